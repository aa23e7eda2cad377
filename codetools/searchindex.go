package codetools

import (
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/bm25f"
)

// Scopes of catalog entries: the host's main module, the other modules of
// the build, and the standard library.
const (
	ScopeMain = "main"
	ScopeDeps = "deps"
	ScopeStd  = "std"
	ScopeAll  = "all"
)

var scopeNames = [index.NumScopes]string{"main", "deps", "std"}

// scopeAll names every scope.
const scopeAll = "all"

// scopeSet is a set of scopes, a bit per scope.
type scopeSet uint8

const (
	defaultScopes = scopeSet(1<<index.ScopeMain | 1<<index.ScopeDeps)
	allScopes     = scopeSet(1<<index.ScopeMain | 1<<index.ScopeDeps | 1<<index.ScopeStd)
)

func (s scopeSet) has(sc index.Scope) bool { return s&(1<<sc) != 0 }

func (s scopeSet) String() string {
	if s == allScopes {
		return scopeAll
	}
	var names []string
	for sc := range index.NumScopes {
		if s.has(sc) {
			names = append(names, scopeNames[sc])
		}
	}
	return strings.Join(names, "+")
}

// parseScope parses the scope argument: "" (main and deps), main, deps,
// std or all.
func parseScope(s string) (scopeSet, bool) {
	switch s {
	case "":
		return defaultScopes, true
	case scopeAll:
		return allScopes, true
	}
	for sc, n := range scopeNames {
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

// searchInput returns the input of the search engine of x, built with st.
func (x *catalogIndex) searchInput(st *buildState) *index.SearchInput {
	return &index.SearchInput{Entries: x.Entries, Snap: x.base.Snap, MainMod: st.info.MainModule.Path,
		Mods: st.mods, MainPkg: st.mainPkg, Words: x.WordsOf}
}
