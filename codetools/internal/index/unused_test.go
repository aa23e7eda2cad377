package index

import (
	"fmt"
	"testing"
)

// A type whose methods are all unlinked is unused, with its methods and
// fields; a type with a linked method, an interface, a function and the
// standard library's types are not; without a function table nothing is.
func TestUnusedTypes(t *testing.T) {
	e := func(id string, k Kind, member, linked bool) Entry {
		en := Entry{ID: id, Pkg: "example.com/lib", Kind: k, Member: member}
		if linked {
			en.Sources = SrcRuntime
		}
		return en
	}
	entries := []Entry{
		e("example.com/lib.(*Client).Dial", KindMethod, false, false),
		e("example.com/lib.(*Server).Serve", KindMethod, false, true),
		e("example.com/lib.(*Server).idle", KindMethod, false, false),
		e("example.com/lib.Client", KindType, false, false),
		e("example.com/lib.Client.Timeout", KindField, true, false),
		e("example.com/lib.Handler", KindType, false, false),
		e("example.com/lib.Handler.Handle", KindMethod, true, false),
		e("example.com/lib.NewClient", KindFunc, false, false),
		e("example.com/lib.Server", KindType, false, false),
		e("example.com/lib.Server.Addr", KindField, true, false),
		{ID: "net/http.(*Client).Do", Pkg: "net/http", Kind: KindMethod},
		{ID: "net/http.Client", Pkg: "net/http", Kind: KindType},
	}
	scopes := make([]Scope, len(entries))
	scopes[len(scopes)-1], scopes[len(scopes)-2] = ScopeStd, ScopeStd
	set := UnusedTypes(entries, scopes)
	want := map[string]bool{
		"example.com/lib.(*Client).Dial": true, "example.com/lib.Client": true, "example.com/lib.Client.Timeout": true,
	}
	for i := range entries {
		if got := IsUnused(set, i); got != want[entries[i].ID] {
			t.Errorf("%s: unused %v, want %v", entries[i].ID, got, want[entries[i].ID])
		}
	}
	for i := range entries {
		entries[i].Sources = 0
	}
	if set := UnusedTypes(entries, scopes); set != nil {
		t.Errorf("without a linked entry: %v, want nil", set)
	}
}

// A package with unusedPkgMinFuncs functions or more is unused when none
// of them is linked; its constants and variables are when fewer than one
// in unusedPkgRatio is; a smaller package, or one used enough, is judged
// by its types alone.
func TestUnusedPackages(t *testing.T) {
	var entries []Entry
	var scopes []Scope
	add := func(pkg, name string, k Kind, linked bool) {
		en := Entry{ID: pkg + "." + name, Pkg: pkg, Kind: k}
		if linked {
			en.Sources = SrcRuntime
		}
		entries = append(entries, en)
		scopes = append(scopes, ScopeDeps)
	}
	funcs := func(pkg string, n, linked int) {
		for i := range n {
			add(pkg, fmt.Sprintf("F%03d", i), KindFunc, i < linked)
		}
	}
	funcs("example.com/dead", UnusedPkgMinFuncs, 0)
	add("example.com/dead", "Limit", KindConst, false)
	funcs("example.com/barely", 2*UnusedPkgRatio, 1)
	add("example.com/barely", "NL_CMD_DISCONNECT", KindConst, false)
	add("example.com/barely", "ErrClosed", KindVar, false)
	add("example.com/barely", "Options", KindType, false)
	funcs("example.com/used", 2*UnusedPkgRatio, 3)
	add("example.com/used", "MaxSize", KindConst, false)
	funcs("example.com/small", UnusedPkgMinFuncs-1, 0)
	add("example.com/small", "Version", KindConst, false)
	set := UnusedTypes(entries, scopes)
	for i, e := range entries {
		want := false
		switch e.Pkg {
		case "example.com/dead":
			want = true
		case "example.com/barely":
			want = e.Kind == KindConst || e.Kind == KindVar
		}
		if got := IsUnused(set, i); got != want {
			t.Errorf("%s: unused %v, want %v", e.ID, got, want)
		}
	}
}
