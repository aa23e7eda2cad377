package codetools

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
)

// Scopes of catalog entries: the host's main module, the other modules of
// the build, and the standard library.
const (
	ScopeMain = "main"
	ScopeDeps = "deps"
	ScopeStd  = "std"
	ScopeAll  = "all"
)

// searchInput returns the input of the search engine of x, built with st.
func (x *catalogIndex) searchInput(st *buildState) *index.SearchInput {
	return &index.SearchInput{Entries: x.Entries, Snap: x.base.Snap, MainMod: st.info.MainModule.Path,
		Mods: st.mods, MainPkg: st.mainPkg, Words: x.WordsOf}
}
