package codetools

import (
	"fmt"
	"testing"
)

// A type whose methods are all unlinked is unused, with its methods and
// fields; a type with a linked method, an interface, a function and the
// standard library's types are not; without a function table nothing is.
func TestUnusedTypes(t *testing.T) {
	e := func(id string, k kind, member, linked bool) entry {
		en := entry{id: id, pkg: "example.com/lib", kind: k, member: member}
		if linked {
			en.sources = srcRuntime
		}
		return en
	}
	entries := []entry{
		e("example.com/lib.(*Client).Dial", kMethod, false, false),
		e("example.com/lib.(*Server).Serve", kMethod, false, true),
		e("example.com/lib.(*Server).idle", kMethod, false, false),
		e("example.com/lib.Client", kType, false, false),
		e("example.com/lib.Client.Timeout", kField, true, false),
		e("example.com/lib.Handler", kType, false, false),
		e("example.com/lib.Handler.Handle", kMethod, true, false),
		e("example.com/lib.NewClient", kFunc, false, false),
		e("example.com/lib.Server", kType, false, false),
		e("example.com/lib.Server.Addr", kField, true, false),
		{id: "net/http.(*Client).Do", pkg: "net/http", kind: kMethod},
		{id: "net/http.Client", pkg: "net/http", kind: kType},
	}
	scopes := make([]scope, len(entries))
	scopes[len(scopes)-1], scopes[len(scopes)-2] = scStd, scStd
	set := unusedTypes(entries, scopes)
	want := map[string]bool{
		"example.com/lib.(*Client).Dial": true, "example.com/lib.Client": true, "example.com/lib.Client.Timeout": true,
	}
	for i := range entries {
		if got := isUnused(set, i); got != want[entries[i].id] {
			t.Errorf("%s: unused %v, want %v", entries[i].id, got, want[entries[i].id])
		}
	}
	for i := range entries {
		entries[i].sources = 0
	}
	if set := unusedTypes(entries, scopes); set != nil {
		t.Errorf("without a linked entry: %v, want nil", set)
	}
}

// A package with unusedPkgMinFuncs functions or more is unused when none
// of them is linked; its constants and variables are when fewer than one
// in unusedPkgRatio is; a smaller package, or one used enough, is judged
// by its types alone.
func TestUnusedPackages(t *testing.T) {
	var entries []entry
	var scopes []scope
	add := func(pkg, name string, k kind, linked bool) {
		en := entry{id: pkg + "." + name, pkg: pkg, kind: k}
		if linked {
			en.sources = srcRuntime
		}
		entries = append(entries, en)
		scopes = append(scopes, scDeps)
	}
	funcs := func(pkg string, n, linked int) {
		for i := range n {
			add(pkg, fmt.Sprintf("F%03d", i), kFunc, i < linked)
		}
	}
	funcs("example.com/dead", unusedPkgMinFuncs, 0)
	add("example.com/dead", "Limit", kConst, false)
	funcs("example.com/barely", 2*unusedPkgRatio, 1)
	add("example.com/barely", "NL_CMD_DISCONNECT", kConst, false)
	add("example.com/barely", "ErrClosed", kVar, false)
	add("example.com/barely", "Options", kType, false)
	funcs("example.com/used", 2*unusedPkgRatio, 3)
	add("example.com/used", "MaxSize", kConst, false)
	funcs("example.com/small", unusedPkgMinFuncs-1, 0)
	add("example.com/small", "Version", kConst, false)
	set := unusedTypes(entries, scopes)
	for i, e := range entries {
		want := false
		switch e.pkg {
		case "example.com/dead":
			want = true
		case "example.com/barely":
			want = e.kind == kConst || e.kind == kVar
		}
		if got := isUnused(set, i); got != want {
			t.Errorf("%s: unused %v, want %v", e.id, got, want)
		}
	}
}
