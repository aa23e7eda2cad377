package codetools

import (
	"context"
	_ "embed"
	"go/scanner"
	"go/token"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/internal/viewdata"
	"github.com/embedmcp/mcp/internal/viewkit"
)

// DefinitionViewURI is the MCP Apps view of code_definition: clients that
// render it show the source highlighted, its calls linked to their
// definitions. Register adds it to the ToolSet with the tools; Views
// returns it for other registries.
const DefinitionViewURI = "ui://embedmcp/code/definition"

// definitionPage is the page file of the definition view: it names the
// parts every view shares (theme, host bridge, source renderer) by a
// marker, which viewkit.Page replaces.
//
//go:embed views/definition.html
var definitionPage string

// Views returns the views the code tools name (ToolInfo.View), for
// registries other than a ToolSet: set them in mcp.Options.Views. Each
// View's HTML is one self-contained document.
func Views() []mcp.View {
	border := true
	return []mcp.View{{URI: DefinitionViewURI, Name: "code_definition_view", Title: "Source",
		Description: "A declaration's source, highlighted, its calls linked to their definitions and its name to its references.",
		HTML:        viewkit.Page(definitionPage), PrefersBorder: &border}}
}

// registerViews adds Views to ts unless they are there already.
func registerViews(ts *mcp.ToolSet) error {
	var missing []mcp.View
	for _, v := range Views() {
		if _, ok := ts.LookupView(v.URI); !ok {
			missing = append(missing, v)
		}
	}
	return ts.RegisterViews(missing...)
}

// Bounds of the source view's data.
const (
	maxViewTokens = 20000
	maxViewLinks  = 2000
	maxViewPages  = 5 // pages of callees asked for links
)

// The token classes of sourceView.Tokens, by index.
var viewTokenClasses = []string{"keyword", "string", "comment", "number"}

// sourceView is the view data of code_definition (docs/views.md): the
// chunk's lines, its tokens to highlight and its identifiers linked.
// Columns count UTF-16 code units, as JavaScript strings do.
type sourceView struct {
	View string `json:"view"` // "source"
	ID   string `json:"id"`
	Kind string `json:"kind"`
	File string `json:"file,omitempty"`
	// Line is the line number of Lines[0] in File; 0 when unknown.
	Line  int      `json:"line"`
	Lines []string `json:"lines"`
	// Tokens are [line index, column, length, class], the class an index
	// of Classes.
	Tokens  [][4]int     `json:"tokens"`
	Classes []string     `json:"classes"`
	Links   []sourceLink `json:"links"`
	// More is set when the definition goes on after this chunk; Next is
	// then the offset to ask code_definition for.
	More bool `json:"more,omitempty"`
	Next int  `json:"next,omitempty"`
}

// sourceLink is an identifier of the source linked to a declaration:
// code_definition of ID reads it; How says what the site does (call,
// dynamic, value, declaration: the declared name, whose references
// code_references lists).
type sourceLink struct {
	Line int    `json:"line"` // index in Lines
	Col  int    `json:"col"`
	Len  int    `json:"len"`
	ID   string `json:"id"`
	How  string `json:"how"`
}

// newSourceView builds the view data of d, the definition answered to q.
func (c *Catalog) newSourceView(ctx context.Context, d *Definition, q DefinitionQuery) *sourceView {
	v := &sourceView{View: "source", ID: d.Name, Kind: d.Kind, File: d.SourceFile, Lines: []string{},
		Tokens: [][4]int{}, Classes: viewTokenClasses, Links: []sourceLink{}, More: d.More}
	if d.NextArguments != nil {
		v.Next = d.NextArguments.Offset
	}
	if !d.SourceAvailable || d.Definition == "" {
		return v
	}
	v.Line = c.chunkLine(ctx, d, q.Offset, d.Definition)
	v.Lines = strings.Split(d.Definition, "\n")
	v.Tokens = viewTokens(d.Definition, v.Lines)
	if v.Line > 0 && d.Line-v.Line < len(v.Lines) && d.Line >= v.Line {
		v.link(d.Line-v.Line, lastName(d.Name), d.Name, "declaration")
	}
	if v.Line == 0 || (d.Kind != KindFunc && d.Kind != KindMethod) {
		return v
	}
	for page, off := 0, 0; page < maxViewPages && ctx.Err() == nil; page++ {
		refs, err := c.References(ctx, ReferencesQuery{Name: d.Name, Relation: "callees", Limit: MaxLimit, Offset: off})
		if err != nil {
			break
		}
		for _, r := range refs.Items {
			if r.File == d.SourceFile && r.Line >= v.Line && r.Line < v.Line+len(v.Lines) {
				v.link(r.Line-v.Line, lastName(r.ID), r.ID, r.How)
			}
		}
		if !refs.More {
			break
		}
		off += len(refs.Items)
	}
	return v
}

// chunkLine returns the line of d's file at which the chunk at offset
// starts, 0 when it cannot be told. d.Line is the line of the declaration,
// which the documentation comment precedes: the line of the definition's
// first character is d.Line less the comment's lines, and the chunk's is
// that plus the newlines before offset. chunk is d's text at offset.
func (c *Catalog) chunkLine(ctx context.Context, d *Definition, offset int, chunk string) int {
	if d.Line <= 0 {
		return 0
	}
	text, more := "", true
	if offset == 0 {
		text, more = chunk, d.More
	}
	for reads := 0; more && reads < 8 && (utf8.RuneCountInString(text) < offset || !pastDoc(text)); reads++ {
		next, err := c.Definition(ctx, DefinitionQuery{Name: d.Name, Offset: utf8.RuneCountInString(text), MaxCharacters: maxMaxCharacters})
		if err != nil || next.Definition == "" {
			return 0
		}
		text, more = text+next.Definition, next.More
	}
	if utf8.RuneCountInString(text) < offset || !pastDoc(text) {
		return 0
	}
	doc := 0
	for line := range strings.SplitSeq(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			break
		}
		doc++
	}
	prefix := text
	if offset < len(text) {
		prefix = string([]rune(text)[:offset])
	}
	if d.Line-doc < 1 {
		return 0
	}
	return d.Line - doc + strings.Count(prefix, "\n")
}

// pastDoc reports whether text holds a line after its leading comment.
func pastDoc(text string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			return true
		}
	}
	return false
}

// link links the first occurrence of name as a whole word on line i not
// linked yet.
func (v *sourceView) link(i int, name, id, how string) {
	if name == "" || i < 0 || i >= len(v.Lines) || len(v.Links) >= maxViewLinks {
		return
	}
	line := v.Lines[i]
	for from := 0; from < len(line); {
		k := strings.Index(line[from:], name)
		if k < 0 {
			return
		}
		at := from + k
		from = at + len(name)
		if (at > 0 && identByte(line[at-1])) || (from < len(line) && identByte(line[from])) {
			continue
		}
		col := utf16Len(line[:at])
		taken := false
		for _, l := range v.Links {
			taken = taken || (l.Line == i && l.Col == col)
		}
		if taken {
			continue
		}
		v.Links = append(v.Links, sourceLink{Line: i, Col: col, Len: utf16Len(name), ID: id, How: how})
		return
	}
}

func identByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// lastName returns the name an id's declaration is written with: the
// method or function name after the last dot, a closure's enclosing one.
func lastName(id string) string {
	for {
		dot := strings.LastIndexByte(id, '.')
		if dot < 0 {
			return id
		}
		name := id[dot+1:]
		if strings.HasPrefix(name, "func") && strings.Trim(name[4:], "0123456789") == "" && len(name) > 4 {
			id = id[:dot] // a closure: its enclosing function
			continue
		}
		return strings.Trim(name, "()*")
	}
}

// viewTokens returns the keywords, literals and comments of src, split in
// lines, as [line, column, length, class].
func viewTokens(src string, lines []string) [][4]int {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, scanner.ScanComments)
	out := [][4]int{}
	for len(out) < maxViewTokens {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		class := -1
		switch {
		case tok.IsKeyword():
			class = 0
		case tok == token.STRING || tok == token.CHAR:
			class = 1
		case tok == token.COMMENT:
			class = 2
		case tok == token.INT || tok == token.FLOAT || tok == token.IMAG:
			class = 3
		}
		if class < 0 {
			continue
		}
		if lit == "" {
			lit = tok.String()
		}
		p := fset.Position(pos)
		// A token across lines (a raw string, a block comment) is one
		// token per line.
		line, col := p.Line-1, p.Column-1
		for part := range strings.SplitSeq(lit, "\n") {
			if line >= len(lines) || len(out) >= maxViewTokens {
				break
			}
			l := lines[line]
			end := min(col+len(part), len(l))
			if col <= len(l) && end > col {
				out = append(out, [4]int{line, utf16Len(l[:col]), utf16Len(l[col:end]), class})
			}
			line, col = line+1, 0
		}
	}
	return out
}

// utf16Len returns the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += utf16.RuneLen(r)
	}
	return n
}

// setViewMeta puts the view data of d into res.
func (c *Catalog) setViewMeta(ctx context.Context, res *mcp.Result, d *Definition, q DefinitionQuery) {
	if res.Meta == nil {
		res.Meta = map[string]any{}
	}
	res.Meta[viewdata.MetaKey] = c.newSourceView(ctx, d, q)
}
