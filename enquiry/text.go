package enquiry

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// Text renders the tool_detail answer as the text a model reads: the tool
// with its guidance and one line per parameter, or one line per candidate,
// or what to do next. The structured content keeps every field, the JSON
// schemas among them.
func (r detailResult) Text() string {
	var b strings.Builder
	if r.Note != "" {
		b.WriteString(r.Note)
		b.WriteString(".\n")
	}
	switch {
	case r.Tool != nil:
		r.Tool.text(&b)
	case len(r.Candidates) > 0:
		b.WriteString("Ambiguous: ")
		b.WriteString(strconv.Itoa(len(r.Candidates)))
		b.WriteString(" candidates, best first.\n")
		for _, c := range r.Candidates {
			b.WriteString(c.Name)
			if s := firstSentence(c.Description); s != "" {
				b.WriteString(" - ")
				b.WriteString(s)
			}
			b.WriteByte('\n')
		}
	default:
		b.WriteString("Not found.\n")
	}
	if r.NextStep != "" {
		b.WriteString(r.NextStep)
		b.WriteByte('\n')
	}
	return b.String()
}

// text writes one tool entry: a header line, then one line per member the
// entry has.
func (t *toolEntry) text(b *strings.Builder) {
	b.WriteString(t.Name)
	if t.Title != "" {
		b.WriteString(" - ")
		b.WriteString(t.Title)
	}
	if t.Category != "" {
		b.WriteString(" [")
		b.WriteString(t.Category)
		b.WriteString("]")
	}
	b.WriteByte('\n')
	line := func(label, s string) {
		if s == "" {
			return
		}
		if label != "" {
			b.WriteString(label)
			b.WriteString(": ")
		}
		b.WriteString(oneLine(s))
		b.WriteByte('\n')
	}
	line("", t.Description)
	line("When to use", t.WhenToUse)
	for _, s := range t.WhenNotToUse {
		line("Not for", s)
	}
	line("Details", t.Details)
	for _, p := range t.Parameters {
		b.WriteString("param ")
		b.WriteString(p.Name)
		if p.Type != "" {
			b.WriteByte(' ')
			b.WriteString(p.Type)
		}
		if p.Required {
			b.WriteString(" required")
		}
		if len(p.Enum) > 0 {
			b.WriteString(" one of")
			for i, v := range p.Enum {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteByte(' ')
				b.WriteString(toString(v))
			}
		}
		b.WriteByte('\n')
	}
	for _, ex := range t.Examples {
		b.WriteString("example ")
		b.Write(ex.Arguments)
		if ex.Outcome != "" {
			b.WriteString(" -> ")
			b.WriteString(oneLine(ex.Outcome))
		}
		b.WriteByte('\n')
	}
	if len(t.Workflows) > 0 {
		line("Workflows", strings.Join(t.Workflows, "; "))
	}
	if len(t.ErrorCodes) > 0 {
		line("Error codes", strings.Join(t.ErrorCodes, ", "))
	}
	if len(t.InputSchema) > 0 {
		b.WriteString("The input schema")
		if len(t.OutputSchema) > 0 {
			b.WriteString(" and output schema")
		}
		b.WriteString(" are in the structured content.\n")
	}
}

// Text renders the tool_catalogue answer: a header line, then per category
// its name and one line per tool (name, title and the first sentence of
// when to use it, else of its description).
func (r catalogueResult) Text() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(r.Total))
	b.WriteString(" tools")
	if n := r.shown(); n < r.Total {
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(r.Offset + 1))
		b.WriteString("-")
		b.WriteString(strconv.Itoa(r.Offset + n))
		b.WriteString(" shown")
	}
	if r.NextOffset != nil {
		b.WriteString(", next offset ")
		b.WriteString(strconv.Itoa(*r.NextOffset))
	}
	b.WriteString(".\n")
	for _, c := range r.Categories {
		b.WriteString(c.Name)
		b.WriteString(":\n")
		for _, t := range c.Tools {
			b.WriteString(t.Name)
			if t.Title != "" {
				b.WriteString(" (")
				b.WriteString(t.Title)
				b.WriteString(")")
			}
			s := firstSentence(t.WhenToUse)
			if s == "" {
				s = firstSentence(t.Description)
			}
			if s != "" {
				b.WriteString(" - ")
				b.WriteString(s)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (r catalogueResult) shown() int {
	n := 0
	for _, c := range r.Categories {
		n += len(c.Tools)
	}
	return n
}

// maxSentence bounds a first sentence in a listing, in bytes.
const maxSentence = 160

// firstSentence returns the first sentence of s on one line, cut to
// maxSentence bytes.
func firstSentence(s string) string {
	s = oneLine(s)
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' {
			s = s[:i+1]
			break
		}
	}
	if len(s) > maxSentence {
		s = boundedjson.Truncate(s, maxSentence) + "…"
	}
	return s
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// toString renders an enum value of a schema.
func toString(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}
