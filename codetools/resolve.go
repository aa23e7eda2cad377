package codetools

import (
	"errors"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
)

// MaxNameBytes bounds DefinitionQuery.Name.
const MaxNameBytes = 1000

// Focus marks the line of a definition that a stack-trace file line named.
type Focus struct {
	// Line is the line of the file, as the query gave it.
	Line int `json:"line" jsonschema:"Line of the file the query named."`
	// Text is that line of the source, when the snapshot holds it.
	Text string `json:"text,omitempty" jsonschema:"That line of the source; untrusted."`
	// Offset is the character offset of the line in the definition, to
	// pass as offset when the definition comes in several chunks.
	Offset int `json:"offset" jsonschema:"Character offset of the line in the definition."`
	// Exact is false when the enclosing declaration was inferred from the
	// function table (the function that starts last before the line),
	// without the snapshot's spans.
	Exact bool `json:"exact" jsonschema:"False when the enclosing declaration was inferred from the function table."`
}

// resolveName finds the entry for a name as an agent has it: an id, a
// symbol from a stack trace or profile (resolve), a short or qualified name
// (NewHandler, mcp.NewHandler, (*Server).Handle), or a stack-trace file
// line (/build/x/protocol.go:227 +0x339), which answers the enclosing
// declaration and a Focus on the line. An ambiguous name is an error
// wrapping ErrAmbiguousName, an unknown one ErrUnknownName; both list up
// to 10 candidate ids, closest first.
func (c *Catalog) resolveName(x *catalogIndex, name string) (*index.Entry, *Focus, error) {
	e, f, err := c.resolveKept(x, name)
	if errors.Is(err, ErrUnknownName) && len(x.dropped) > 0 {
		if id, ok := c.droppedID(x, name); ok {
			return nil, nil, &droppedNameError{name: strings.TrimSpace(name), id: id, max: c.max}
		}
	}
	return e, f, err
}

// droppedID returns the id of the entry the entry bound dropped that name
// designates, as resolve would find it among the kept ones.
func (c *Catalog) droppedID(x *catalogIndex, name string) (string, bool) {
	has := func(id string) bool {
		i := sort.SearchStrings(x.dropped, id)
		return i < len(x.dropped) && x.dropped[i] == id
	}
	name = strings.TrimSpace(index.TrimCallArgs(strings.TrimSpace(name)))
	if has(name) {
		return name, true
	}
	isPkg := func(p string) bool {
		return c.build.isModulePath(p) || strings.IndexByte(p, '.') >= 0 || snapshot.IsStdPkg(p)
	}
	mainPkgs := []string{c.build.mainPkg}
	if s := x.base.Snap; s != nil && s.Manifest.MainPackage != c.build.mainPkg {
		mainPkgs = append(mainPkgs, s.Manifest.MainPackage)
	}
	for _, mp := range mainPkgs {
		sym, ok := index.ParseSymbol(name, mp, isPkg)
		if !ok {
			continue
		}
		for _, id := range []string{sym.ID(), sym.AltID()} {
			if id != "" && has(id) {
				return id, true
			}
		}
	}
	return "", false
}

// resolveKept finds the entry of name among the catalog's entries.
func (c *Catalog) resolveKept(x *catalogIndex, name string) (*index.Entry, *Focus, error) {
	name = strings.TrimSpace(name)
	if e, ok := c.resolve(x, name); ok {
		return e, nil, nil
	}
	if fq, ok := search.ParseFileQuery(name); ok && fq.Line > 0 {
		return renderer{x}.resolveFileLine(name, fq)
	}
	sym := index.TrimCallArgs(name)
	if strings.ContainsAny(sym, " \t") {
		return nil, nil, &unknownNameError{name: name, candidates: search.Searcher{Index: x.Index}.Candidates(name)}
	}
	lq := search.NewLiteralQuery(sym)
	short := sym
	if lq.Qualified {
		short = lq.Name
	}
	lo, hi := x.Search.NamedRange(x.Entries, short, false)
	var exact, fold []int32
	for _, i := range x.Search.ByName[lo:hi] {
		if lq.Qualified && !(search.Searcher{Index: x.Index}).Qualifies(int(i), sym) {
			continue
		}
		if x.Name(int(i)) == short {
			exact = append(exact, i)
		} else {
			fold = append(fold, i)
		}
	}
	found := exact
	if len(found) == 0 {
		found = fold
	}
	found = search.Searcher{Index: x.Index}.DropMembers(found)
	switch len(found) {
	case 0:
		return nil, nil, &unknownNameError{name: name, candidates: search.Searcher{Index: x.Index}.Candidates(sym)}
	case 1:
		return &x.Entries[found[0]], nil, nil
	}
	return nil, nil, &ambiguousNameError{name: name, n: len(found), candidates: search.Searcher{Index: x.Index}.Ranked(found)}
}

// resolveFileLine answers a file:line: the declaration that encloses the
// line in the file the path names best.
func (x renderer) resolveFileLine(name string, fq search.FileQuery) (*index.Entry, *Focus, error) {
	var found []int32
	exact := false
	for _, fe := range (search.Searcher{Index: x.Index}).FilesFor(fq) {
		if i, ok := x.Enclosing(fe, fq.Line); i >= 0 {
			found = append(found, int32(i))
			exact = ok
		}
	}
	switch len(found) {
	case 0:
		return nil, nil, &unknownNameError{name: name, candidates: search.Searcher{Index: x.Index}.Candidates(fq.Path),
			why: "no declaration of the catalog encloses that file line"}
	case 1:
		return &x.Entries[found[0]], &Focus{Line: fq.Line, Exact: exact}, nil
	}
	return nil, nil, &ambiguousNameError{name: name, n: len(found), candidates: search.Searcher{Index: x.Index}.Ranked(found),
		why: "several files of the catalog end with that path"}
}

// focus fills the text and offset of f from the definition text of e.
func (x renderer) focus(f *Focus, e *index.Entry, text string) {
	if e.Snap < 0 || x.base.Snap == nil || text == "" {
		return
	}
	start := x.SpanStartLine(e)
	k := f.Line - start
	if k < 0 {
		return
	}
	off := 0
	for ; k > 0; k-- {
		nl := strings.IndexByte(text[off:], '\n')
		if nl < 0 {
			return
		}
		off += nl + 1
	}
	line := text[off:]
	if nl := strings.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	f.Text = index.CutText(line, index.MaxEcho)
	f.Offset = utf8.RuneCountInString(text[:off])
}
