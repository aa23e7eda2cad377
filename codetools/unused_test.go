package codetools

import (
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"testing"
)

// A type whose methods are all unlinked is unused, with its methods and
// fields; a type with a linked method, an interface, a function and the
// standard library's types are not; without a function table nothing is.
func TestUnusedTypes(t *testing.T) {
	e := func(id string, k index.Kind, member, linked bool) index.Entry {
		en := index.Entry{ID: id, Pkg: "example.com/lib", Kind: k, Member: member}
		if linked {
			en.Sources = index.SrcRuntime
		}
		return en
	}
	entries := []index.Entry{
		e("example.com/lib.(*Client).Dial", index.KindMethod, false, false),
		e("example.com/lib.(*Server).Serve", index.KindMethod, false, true),
		e("example.com/lib.(*Server).idle", index.KindMethod, false, false),
		e("example.com/lib.Client", index.KindType, false, false),
		e("example.com/lib.Client.Timeout", index.KindField, true, false),
		e("example.com/lib.Handler", index.KindType, false, false),
		e("example.com/lib.Handler.Handle", index.KindMethod, true, false),
		e("example.com/lib.NewClient", index.KindFunc, false, false),
		e("example.com/lib.Server", index.KindType, false, false),
		e("example.com/lib.Server.Addr", index.KindField, true, false),
		{ID: "net/http.(*Client).Do", Pkg: "net/http", Kind: index.KindMethod},
		{ID: "net/http.Client", Pkg: "net/http", Kind: index.KindType},
	}
	scopes := make([]index.Scope, len(entries))
	scopes[len(scopes)-1], scopes[len(scopes)-2] = index.ScopeStd, index.ScopeStd
	set := index.UnusedTypes(entries, scopes)
	want := map[string]bool{
		"example.com/lib.(*Client).Dial": true, "example.com/lib.Client": true, "example.com/lib.Client.Timeout": true,
	}
	for i := range entries {
		if got := search.IsUnused(set, i); got != want[entries[i].ID] {
			t.Errorf("%s: unused %v, want %v", entries[i].ID, got, want[entries[i].ID])
		}
	}
	for i := range entries {
		entries[i].Sources = 0
	}
	if set := index.UnusedTypes(entries, scopes); set != nil {
		t.Errorf("without a linked entry: %v, want nil", set)
	}
}

// A package with unusedPkgMinFuncs functions or more is unused when none
// of them is linked; its constants and variables are when fewer than one
// in unusedPkgRatio is; a smaller package, or one used enough, is judged
// by its types alone.
func TestUnusedPackages(t *testing.T) {
	var entries []index.Entry
	var scopes []index.Scope
	add := func(pkg, name string, k index.Kind, linked bool) {
		en := index.Entry{ID: pkg + "." + name, Pkg: pkg, Kind: k}
		if linked {
			en.Sources = index.SrcRuntime
		}
		entries = append(entries, en)
		scopes = append(scopes, index.ScopeDeps)
	}
	funcs := func(pkg string, n, linked int) {
		for i := range n {
			add(pkg, fmt.Sprintf("F%03d", i), index.KindFunc, i < linked)
		}
	}
	funcs("example.com/dead", index.UnusedPkgMinFuncs, 0)
	add("example.com/dead", "Limit", index.KindConst, false)
	funcs("example.com/barely", 2*index.UnusedPkgRatio, 1)
	add("example.com/barely", "NL_CMD_DISCONNECT", index.KindConst, false)
	add("example.com/barely", "ErrClosed", index.KindVar, false)
	add("example.com/barely", "Options", index.KindType, false)
	funcs("example.com/used", 2*index.UnusedPkgRatio, 3)
	add("example.com/used", "MaxSize", index.KindConst, false)
	funcs("example.com/small", index.UnusedPkgMinFuncs-1, 0)
	add("example.com/small", "Version", index.KindConst, false)
	set := index.UnusedTypes(entries, scopes)
	for i, e := range entries {
		want := false
		switch e.Pkg {
		case "example.com/dead":
			want = true
		case "example.com/barely":
			want = e.Kind == index.KindConst || e.Kind == index.KindVar
		}
		if got := search.IsUnused(set, i); got != want {
			t.Errorf("%s: unused %v, want %v", e.ID, got, want)
		}
	}
}
