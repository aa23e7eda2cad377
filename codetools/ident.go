package codetools

import (
	"strings"
	"unicode/utf8"

	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"github.com/embedmcp/mcp/codetools/internal/index"
)

// symbol is a parsed Go symbol name.
type symbol struct {
	pkg  string // import path
	recv string // receiver type name without type arguments, "" for functions
	ptr  bool   // pointer receiver
	name string // function, method, or init.N name
	// closure reports that a closure, wrapper or numbered suffix was
	// folded into the enclosing declaration.
	closure bool
}

// id returns the canonical id of s.
func (s symbol) id() string {
	switch {
	case s.recv == "":
		return s.pkg + "." + s.name
	case s.ptr:
		return s.pkg + ".(*" + s.recv + ")." + s.name
	default:
		return s.pkg + "." + s.recv + "." + s.name
	}
}

// altID returns the id with the other receiver spelling, or "".
func (s symbol) altID() string {
	if s.recv == "" {
		return ""
	}
	s.ptr = !s.ptr
	return s.id()
}

// parseSymbol parses a symbol name from the function table, a stack trace
// or a pprof profile. mainPath, if not empty, replaces the package "main".
// isPkg, if not nil, reports known import paths; it disambiguates paths
// whose last element contains a dot when the name is not escaped.
func parseSymbol(raw, mainPath string, isPkg func(string) bool) (symbol, bool) {
	s := strings.TrimSpace(raw)
	s = trimCallArgs(s)
	s = gofunc.StripTypeArgs(s)
	if s == "" || strings.HasPrefix(s, "type:") || strings.HasPrefix(s, "go:") ||
		strings.HasPrefix(s, "go.") || strings.ContainsAny(s, " \t\n") {
		return symbol{}, false
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot <= 0 {
		return symbol{}, false
	}
	cut := slash + 1 + dot
	if isPkg != nil {
		for j := cut + 1; j < len(s); j++ {
			if s[j] == '.' && isPkg(gofunc.Unescape(s[:j])) {
				cut = j
			}
		}
	}
	sym := symbol{pkg: gofunc.Unescape(s[:cut])}
	if sym.pkg == "main" && mainPath != "" {
		sym.pkg = mainPath
	}
	rest := s[cut+1:]
	if strings.HasPrefix(rest, "(*") {
		end := strings.IndexByte(rest, ')')
		if end < 3 || !strings.HasPrefix(rest[end:], ").") {
			return symbol{}, false
		}
		sym.recv, sym.ptr = rest[2:end], true
		rest = rest[end+2:]
		parts := strings.Split(rest, ".")
		sym.name = gofunc.TrimWrapper(parts[0])
		sym.closure = len(parts) > 1 || sym.name != parts[0]
		return sym, sym.name != "" && gofunc.ValidIdent(sym.recv)
	}
	parts := strings.Split(rest, ".")
	if parts[0] == "glob" && len(parts) > 1 && parts[1] == "" {
		// Closure in a package-level variable initializer.
		sym.name, sym.closure = "init", true
		return sym, true
	}
	first := gofunc.TrimWrapper(parts[0])
	folded := first != parts[0]
	switch {
	case first == "init" && !folded && len(parts) > 1 && gofunc.IsDigits(parts[1]):
		sym.name = "init." + parts[1]
		folded = len(parts) > 2
	case len(parts) > 1 && !folded && !gofunc.IsClosureSegment(parts[1]):
		sym.recv = first
		sym.name = gofunc.TrimWrapper(parts[1])
		folded = len(parts) > 2 || sym.name != parts[1]
	default:
		sym.name = first
		folded = folded || len(parts) > 1
	}
	sym.closure = folded
	if sym.name == "" || (sym.recv != "" && !gofunc.ValidIdent(sym.recv)) {
		return symbol{}, false
	}
	return sym, true
}

// trimCallArgs removes the argument list of a stack-trace frame, as in
// "main.(*T).M(0xc000010000, 0x1)" or "main.F(...)".
func trimCallArgs(s string) string {
	if !strings.HasSuffix(s, ")") {
		return s
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if i > 0 && s[i-1] != '.' {
					return s[:i]
				}
				return s
			}
		}
	}
	return s
}

// declID returns the id of declaration name (as in gofunc.Reading's Outer
// or Inner) of package pkg.
func declID(pkg, name string) string {
	return pkg + "." + name
}

// MaxNameBytes bounds DefinitionQuery.Name.
const MaxNameBytes = 1000

// maxCandidates bounds the candidate ids of an ambiguous or unknown name.
const maxCandidates = 10

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
	name = strings.TrimSpace(name)
	if e, ok := c.resolve(x, name); ok {
		return e, nil, nil
	}
	if fq, ok := parseFileQuery(name); ok && fq.line > 0 {
		return searcher{x.coreIndex}.resolveFileLine(name, fq)
	}
	sym := trimCallArgs(name)
	if strings.ContainsAny(sym, " \t") {
		return nil, nil, &unknownNameError{name: name, candidates: searcher{x.coreIndex}.candidates(name)}
	}
	lq := newLiteralQuery(sym)
	short := sym
	if lq.qualified {
		short = lq.name
	}
	lo, hi := x.search.NamedRange(x.entries, short, false)
	var exact, fold []int32
	for _, i := range x.search.ByName[lo:hi] {
		if lq.qualified && !(searcher{x.coreIndex}).qualifies(int(i), sym) {
			continue
		}
		if x.name(int(i)) == short {
			exact = append(exact, i)
		} else {
			fold = append(fold, i)
		}
	}
	found := exact
	if len(found) == 0 {
		found = fold
	}
	found = searcher{x.coreIndex}.dropMembers(found)
	switch len(found) {
	case 0:
		return nil, nil, &unknownNameError{name: name, candidates: searcher{x.coreIndex}.candidates(sym)}
	case 1:
		return &x.entries[found[0]], nil, nil
	}
	return nil, nil, &ambiguousNameError{name: name, n: len(found), candidates: searcher{x.coreIndex}.ranked(found)}
}

// resolveFileLine answers a file:line: the declaration that encloses the
// line in the file the path names best.
func (x searcher) resolveFileLine(name string, fq fileQuery) (*index.Entry, *Focus, error) {
	var found []int32
	exact := false
	for _, fe := range x.filesFor(fq) {
		if i, ok := x.enclosing(fe, fq.line); i >= 0 {
			found = append(found, int32(i))
			exact = ok
		}
	}
	switch len(found) {
	case 0:
		return nil, nil, &unknownNameError{name: name, candidates: x.candidates(fq.path),
			why: "no declaration of the catalog encloses that file line"}
	case 1:
		return &x.entries[found[0]], &Focus{Line: fq.line, Exact: exact}, nil
	}
	return nil, nil, &ambiguousNameError{name: name, n: len(found), candidates: x.ranked(found),
		why: "several files of the catalog end with that path"}
}

// ranked returns up to maxCandidates ids of the given entries, closest
// first: by scope (main module first), then shorter id.
func (x searcher) ranked(is []int32) []string {
	top := topK{k: maxCandidates}
	for _, i := range is {
		top.push(x.rankKey(tierExact, int(i)))
	}
	var out []string
	for _, k := range top.sorted() {
		out = append(out, x.entries[keyEntry(k)].ID)
	}
	return out
}

// candidates returns up to maxCandidates ids close to an unknown name: the
// literal matches of its last element in every scope, ranked, or else the
// term matches of its words.
func (x searcher) candidates(name string) []string {
	top := topK{k: maxCandidates}
	f := filter{scopes: allScopes}
	lq := newLiteralQuery(name)
	if lq.qualified {
		lq = newLiteralQuery(lq.name)
	}
	if x.literal(&lq, &f, top.push) == 0 {
		x.termSearch(x.queryTerms(name), "", nil, &f, top.k, top.push)
	}
	var out []string
	for _, k := range top.sorted() {
		out = append(out, x.entries[keyEntry(k)].ID)
	}
	return out
}

// focus fills the text and offset of f from the definition text of e.
func (x renderer) focus(f *Focus, e *index.Entry, text string) {
	if e.Snap < 0 || x.base.snap == nil || text == "" {
		return
	}
	start := x.spanStartLine(e)
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
	f.Text = cutText(line, maxEcho)
	f.Offset = utf8.RuneCountInString(text[:off])
}
