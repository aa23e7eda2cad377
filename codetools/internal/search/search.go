package search

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/bm25f"
	"github.com/embedmcp/mcp/internal/boundedjson"
	"strings"
)

// Values of the match an answer reports, as SearchResult.Match spells
// them.
const (
	matchLiteral = "literal"
	matchTerms   = "terms"
	matchFile    = "file"
)

// Answer answers a query: a file name or file:line answers that file's
// declarations; a single word (or a symbol, a stack-trace frame) is matched
// literally; several words, or a word that matches nothing literally, are
// matched as terms. When the default scope has no match, the standard
// library is searched too, and the note says so. It returns the best k
// rank keys in order (a pooled buffer the caller returns), the number of
// matches, the match mode and a note.
func (x Searcher) Answer(query string, f *Filter, k int) (keys *[]uint64, total int, match, note string) {
	keys = KeyPool.Get().(*[]uint64)
	top := topK{k: min(k, len(x.Entries)), heap: (*keys)[:0]}
	defer func() { *keys = top.sorted() }()
	if fq, ok := ParseFileQuery(query); ok {
		if total = x.fileSearch(fq, f, top.push); total > 0 {
			return keys, total, matchFile, ""
		}
	}
	widen := func(run func(*Filter) int) int {
		n := run(f)
		if n == 0 && f.Widen && f.Scopes == DefaultScopes && x.Search.Counts[index.ScopeStd] > 0 {
			wide := *f
			wide.Scopes = allScopes
			if n = run(&wide); n > 0 {
				f.Scopes = allScopes
				note = "nothing matched in main+deps; the matches are from the standard library"
			}
		}
		return n
	}
	// A stack-trace frame with its arguments is one symbol.
	literal := query
	if t := index.TrimCallArgs(query); t != query && t != "" && !strings.ContainsAny(t, " \t") {
		literal = t
	}
	if len(strings.Fields(literal)) > 1 {
		literal = ""
	}
	if literal != "" && strings.ContainsAny(literal, "./") {
		// A fully qualified id, as a stack trace or pprof prints it,
		// finds its declaration in any scope.
		if i, ok := x.ExactID(literal); ok {
			if e := &x.Entries[i]; (f.Kinds == 0 || f.Kinds&(1<<e.Kind) != 0) && (f.Pkg == "" || PackageMatches(e.Pkg, f.Pkg)) {
				top.push(x.rankKey(0, i))
				if !f.Scopes.Has(x.Search.Scope[i]) {
					f.Scopes = allScopes
				}
				return keys, 1, matchLiteral, note
			}
		}
	}
	if literal != "" {
		lq := NewLiteralQuery(literal)
		if total = widen(func(f *Filter) int { return x.literal(&lq, f, top.push) }); total > 0 {
			return keys, total, matchLiteral, note
		}
	}
	terms, phrase, words := x.QueryTerms(query), phraseOf(query), surfaceWords(query)
	total = widen(func(f *Filter) int { return x.termSearch(terms, phrase, words, f, top.k, top.push) })
	if total > 0 && literal != "" {
		note = "nothing matched literally; the matches are ranked by the words of the query" + strings.TrimPrefix(note, "nothing matched in main+deps")
	}
	return keys, total, matchTerms, note
}

// Searcher ranks the entries of an index for code_search and resolves
// the names code_definition is given.
type Searcher struct{ *index.Index }

// Clip cuts s to at most n bytes on a rune boundary, marking the cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return boundedjson.Truncate(s, n) + "…"
}

// ScopeNames are the names of the scopes, as the scope argument spells
// them.
var ScopeNames = [index.NumScopes]string{"main", "deps", "std"}

// scopeAll names every scope.
const scopeAll = "all"

// ScopeSet is a set of scopes, a bit per scope.
type ScopeSet uint8

// The scopes searched without a scope argument, and all of them.
const (
	DefaultScopes = ScopeSet(1<<index.ScopeMain | 1<<index.ScopeDeps)
	allScopes     = ScopeSet(1<<index.ScopeMain | 1<<index.ScopeDeps | 1<<index.ScopeStd)
)

// Has reports whether s holds sc.
func (s ScopeSet) Has(sc index.Scope) bool { return s&(1<<sc) != 0 }

// String returns the scope argument that names s.
func (s ScopeSet) String() string {
	if s == allScopes {
		return scopeAll
	}
	var names []string
	for sc := range index.NumScopes {
		if s.Has(sc) {
			names = append(names, ScopeNames[sc])
		}
	}
	return strings.Join(names, "+")
}

// ParseScope parses the scope argument: "" (main and deps), main, deps,
// std or all.
func ParseScope(s string) (ScopeSet, bool) {
	switch s {
	case "":
		return DefaultScopes, true
	case scopeAll:
		return allScopes, true
	}
	for sc, n := range ScopeNames {
		if n == s {
			return 1 << sc, true
		}
	}
	return 0, false
}

// termParams weigh the fields of the term search: a word of the name
// counts most, then the documentation and the receiver (or, for a type,
// its members), the package and the file name. Names are short, so their
// length is normalised little.
//
// The source words (tfBody) weigh 0.7 with little length normalisation
// (0.4): a phrase often describes what a function does in its body
// ("reject a request whose address range runs past 0xffff"), and a long
// function is no less likely to do it. Against 0.4 and 0.75 (with K1 1.2)
// these raised the ten tuning sets of searcheval from 349 to 355 of 458 in
// the top 3, with the coordination of coordIDFPower. K1 0.6 (was 0.8) and
// the receiver at 1 (was 1.5), so that a word met again counts for less
// and a method is not found for its type's name alone, raised the
// fourteen tuning sets (701 queries) from 531 to 536 in the top 3 and
// from 400 to 403 in the top 1, gofakes3 and this repository's set
// unchanged (the search evaluation, 2026-12-02).
var termParams = bm25f.Params{
	K1:     0.6,
	W:      [bm25f.MaxFields]float64{3, 1, 1, 0.75, 0.75, 0.7, 0.8, index.ContextWeight},
	B:      [bm25f.MaxFields]float64{0.3, 0.3, 0.75, 0.3, 0.3, 0.4, 0.4, 0.5},
	Strong: 1<<index.FieldName | 1<<index.FieldQualifier,
}
