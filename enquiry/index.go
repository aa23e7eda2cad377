package enquiry

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/internal/bm25f"
	"github.com/google/jsonschema-go/jsonschema"
)

// The searched fields, in the order of Weights.fields.
const (
	fieldName = iota
	fieldTitle
	fieldDescription
	fieldWhenToUse
	fieldDetails
	fieldExamples
	fieldParameters
	numFields
)

// otherCategory holds the tools without a category.
const otherCategory = "Other"

// enquirer is the state shared by the two tools: the source, the
// authorizer and the index of the source's current generation.
type enquirer struct {
	src     Source
	az      mcp.Authorizer
	prefix  string // lower case
	weights [numFields]float64
	opts    Options

	mu  sync.Mutex // serialises index builds
	cur atomic.Pointer[index]
	gen atomic.Uint64 // counts the source's changes (Watch)
}

// index is an immutable view of one generation of the source, built once
// and shared by all calls until the source changes.
type index struct {
	gen    uint64
	params bm25f.Params // the field weights and length normalisation
	docs   []doc        // sorted by name
	group  []int32      // docs[i].group, packed for ranking
	bm     *bm25f.Index // the searched fields of docs, by doc number
	all    bm25f.Stats  // statistics over every doc
	byName map[string]int32
	byNorm map[string][]int32 // normalised name → docs
	codes  map[string][]int32 // lower-case error code → docs, by name

	byFirstWord map[string][]int32 // first name word → docs

	// Permission groups: docs sharing a permission share one Authorizer
	// question per call.
	perms []string

	catalogue []int32 // docs in catalogue order: category, then name
}

// doc is one indexed tool and what the answers show of it.
type doc struct {
	name      string
	norm      string
	nameWords []string // distinct words of norm, stop words included
	group     int32
	category  string // display category, otherCategory when unset
	entry     toolEntry
	params    []parameter

	// The input schema is encoded when first shown: encoding every schema
	// would dominate the cost of a build.
	input      *jsonschema.Schema
	schemaOnce sync.Once
	schema     json.RawMessage

	// The output schema of the guide, likewise encoded when first shown.
	output     *jsonschema.Schema
	outputOnce sync.Once
	outSchema  json.RawMessage
}

// index returns the index of the source's current generation, building it
// when the source changed since the last build.
func (e *enquirer) index() *index {
	gen := e.gen.Load()
	if ix := e.cur.Load(); ix != nil && ix.gen == gen {
		return ix
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	gen = e.gen.Load()
	if ix := e.cur.Load(); ix != nil && ix.gen == gen {
		return ix
	}
	// A change between reading the generation and listing the tools
	// leaves an index labelled with the older generation: the next call
	// rebuilds it.
	ix := buildIndex(gen, slices.Collect(e.src.All()), e.prefix, e.weights)
	e.cur.Store(ix)
	return ix
}

// buildIndex indexes tools.
func buildIndex(gen uint64, tools []mcp.Tool, prefix string, w [numFields]float64) *index {
	ix := &index{
		gen:    gen,
		params: bm25Params(w),
		byName: make(map[string]int32, len(tools)),
		byNorm: make(map[string][]int32, len(tools)),
		codes:  map[string][]int32{},

		byFirstWord: map[string][]int32{},
	}
	infos := make([]*mcp.ToolInfo, 0, len(tools))
	for _, t := range tools {
		if t == nil {
			continue
		}
		// App-only tools (MCP Apps) are for views, not for the model.
		if info := t.Info(); info != nil && info.Name != "" && info.Visibility != mcp.VisibleToApp {
			if _, dup := ix.byName[info.Name]; !dup {
				ix.byName[info.Name] = -1
				infos = append(infos, info)
			}
		}
	}
	slices.SortFunc(infos, func(a, b *mcp.ToolInfo) int { return strings.Compare(a.Name, b.Name) })
	groups := map[string]int32{}
	b := bm25f.NewBuilder(numFields)
	ix.docs = make([]doc, len(infos))
	ix.group = make([]int32, len(infos))
	for i, info := range infos {
		id := int32(i)
		d := &ix.docs[i]
		g, ok := groups[info.Permission]
		if !ok {
			g = int32(len(ix.perms))
			groups[info.Permission] = g
			ix.perms = append(ix.perms, info.Permission)
		}
		d.group = g
		ix.group[i] = g
		d.name = info.Name
		d.norm = normalize(info.Name, prefix)
		d.nameWords = distinct(bm25f.Words(d.norm))
		if len(d.nameWords) > 0 {
			ix.byFirstWord[d.nameWords[0]] = append(ix.byFirstWord[d.nameWords[0]], id)
		}
		ix.byName[info.Name] = id
		ix.byNorm[d.norm] = append(ix.byNorm[d.norm], id)
		d.entry, d.params = present(info)
		d.input = info.InputSchema
		if info.Guide != nil {
			d.output = info.Guide.OutputSchema
		}
		d.category = otherCategory
		if c := strings.TrimSpace(d.entry.Category); c != "" {
			d.category = c
		}
		for _, code := range d.entry.ErrorCodes {
			k := strings.ToLower(strings.TrimSpace(code))
			if k != "" && (len(ix.codes[k]) == 0 || ix.codes[k][len(ix.codes[k])-1] != id) {
				ix.codes[k] = append(ix.codes[k], id)
			}
		}

		// The searched text of each field; a field of weight 0 is left
		// empty.
		texts := searchedText(info, d)
		for f := range texts {
			if w[f] == 0 {
				texts[f] = ""
			}
		}
		b.Add(texts[:]...)
	}
	ix.bm = b.Build()
	ix.all = ix.bm.Stats(nil)

	ix.catalogue = make([]int32, len(ix.docs))
	for i := range ix.catalogue {
		ix.catalogue[i] = int32(i)
	}
	slices.SortStableFunc(ix.catalogue, func(a, b int32) int {
		return compareCategories(ix.docs[a].category, ix.docs[b].category)
	})
	return ix
}

// compareCategories orders categories case-insensitively, with "Other" last.
func compareCategories(a, b string) int {
	ao, bo := strings.EqualFold(a, otherCategory), strings.EqualFold(b, otherCategory)
	switch {
	case ao && bo:
		return 0
	case ao:
		return 1
	case bo:
		return -1
	}
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// allowed asks the Authorizer once per permission group.
func (ix *index) allowed(ask func(permission string) bool) []bool {
	out := make([]bool, len(ix.perms))
	for g, p := range ix.perms {
		out[g] = ask(p)
	}
	return out
}

// searchedText returns the text of each searched field of a tool.
func searchedText(info *mcp.ToolInfo, d *doc) [numFields]string {
	title := info.Title
	if title == "" && info.Annotations != nil {
		title = info.Annotations.Title
	}
	var examples strings.Builder
	for _, ex := range d.entry.Examples {
		examples.Write(ex.Arguments)
		examples.WriteByte(' ')
		examples.WriteString(ex.Outcome)
		examples.WriteByte(' ')
	}
	var params strings.Builder
	if s := info.InputSchema; s != nil {
		for _, p := range d.params {
			params.WriteString(p.Name)
			params.WriteByte(' ')
			if ps := s.Properties[p.Name]; ps != nil {
				params.WriteString(ps.Description)
				params.WriteByte(' ')
			}
		}
	}
	return [numFields]string{d.norm, withoutReferences(title), withoutReferences(info.Description),
		withoutReferences(d.entry.WhenToUse), withoutReferences(d.entry.Details), withoutReferences(examples.String()),
		params.String()}
}

// withoutReferences blanks the snake_case words of a tool's prose: they name
// other tools ("returns ids for code_definition") or parameters, and a
// mention of a tool is no evidence that this tool does what the other does.
// The rule depends on the text alone, never on which tools are registered,
// so that it reveals nothing about tools a caller may not use.
func withoutReferences(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); {
		if !isNameByte(b[i]) {
			i++
			continue
		}
		j := i
		snake := false
		for j < len(b) && isNameByte(b[j]) {
			snake = snake || b[j] == '_' && j > i && j+1 < len(b) && isNameByte(b[j+1]) && b[j+1] != '_'
			j++
		}
		if snake {
			for k := i; k < j; k++ {
				b[k] = ' '
			}
		}
		i = j
	}
	return string(b)
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// present computes what the answers show of a tool.
func present(info *mcp.ToolInfo) (toolEntry, []parameter) {
	e := toolEntry{Name: info.Name, Title: info.Title, Description: info.Description}
	if e.Title == "" && info.Annotations != nil {
		e.Title = info.Annotations.Title
	}
	if g := info.Guide; g != nil {
		e.Category = strings.TrimSpace(g.Category)
		e.WhenToUse = g.WhenToUse
		e.WhenNotToUse = slices.Clone(g.WhenNotToUse)
		e.Details = g.Details
		e.Workflows = slices.Clone(g.Workflows)
		e.ErrorCodes = slices.Clone(g.ErrorCodes)
		for _, ex := range g.Examples {
			e.Examples = append(e.Examples, exampleEntry{Arguments: validJSON(ex.Arguments), Outcome: ex.Outcome})
		}
	}
	var params []parameter
	if s := info.InputSchema; s != nil {
		params = parameters(s)
	}
	return e, params
}

// inputSchema returns the doc's input schema, encoded on first use; a tool
// without one takes any object.
func (d *doc) inputSchema() json.RawMessage {
	d.schemaOnce.Do(func() {
		d.schema = json.RawMessage(`{"type":"object"}`)
		if d.input != nil {
			if b, err := json.Marshal(d.input); err == nil {
				d.schema = b
			}
		}
	})
	return d.schema
}

// outputSchema returns the guide's output schema, encoded on first use, or
// nil when the guide has none.
func (d *doc) outputSchema() json.RawMessage {
	d.outputOnce.Do(func() {
		if d.output != nil {
			if b, err := json.Marshal(d.output); err == nil {
				d.outSchema = b
			}
		}
	})
	return d.outSchema
}

// validJSON returns raw when it is valid JSON, raw as a JSON string when it
// is not, and nil when it is empty, so that one careless Guide cannot break
// the answers.
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if json.Valid(raw) {
		return slices.Clone(raw)
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// parameters summarises the top-level properties of an input schema, by name.
func parameters(s *jsonschema.Schema) []parameter {
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]parameter, 0, len(names))
	for _, n := range names {
		p := parameter{Name: n, Required: required[n]}
		if ps := s.Properties[n]; ps != nil {
			p.Type = ps.Type
			if p.Type == "" && len(ps.Types) > 0 {
				p.Type = strings.Join(ps.Types, "|")
			}
			p.Enum = slices.Clone(ps.Enum)
		}
		out = append(out, p)
	}
	return out
}

// distinct returns ws without repeats, in first-seen order.
func distinct(ws []string) []string {
	out := ws[:0]
	for _, w := range ws {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}
