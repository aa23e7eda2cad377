package codetools

import (
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"slices"
	"testing"
)

// The search engine is built from a searchInput alone, without an index:
// scopes and priors come from the module list, names are sorted case
// insensitively, and the term index holds the entries' words, of the
// main module and its dependencies only.
func TestBuildSearchInput(t *testing.T) {
	in := &searchInput{
		entries: []entry{
			{id: "example.com/app.Serve", pkg: "example.com/app", kind: kFunc, snap: 0, words: "listen socket |  | "},
			{id: "example.com/lib.(*Pool).acquire", pkg: "example.com/lib", kind: kMethod, snap: 1, doc: "acquire takes a connection."},
			{id: "net/http.Serve", pkg: "net/http", kind: kFunc, snap: 2, words: "listen |  | "},
		},
		mainMod: "example.com/app",
		mods:    []snapshot.Module{{Path: "example.com/app"}, {Path: "example.com/lib", Version: "v1.0.0"}},
		mainPkg: "example.com/app",
	}
	in.words = func(scopes []scope) func(e *entry) (string, bool) {
		if len(scopes) != len(in.entries) {
			t.Errorf("words got %d scopes for %d entries", len(scopes), len(in.entries))
		}
		return func(e *entry) (string, bool) { return e.words, e.words != "" }
	}
	si := buildSearch(in)
	if want := []scope{scMain, scDeps, scStd}; !slices.Equal(si.scope, want) {
		t.Errorf("scopes %v, want %v", si.scope, want)
	}
	if si.tier[0] != tierMain || si.tier[1] != tierDirect || si.tier[2] != tierLibrary {
		t.Errorf("tiers %v", si.tier)
	}
	var names []string
	for _, i := range si.byName {
		names = append(names, entryNameAt(in.entries, si.nameOff, int(i)))
	}
	if want := []string{"acquire", "Serve", "Serve"}; !slices.Equal(names, want) {
		t.Errorf("names by name %q, want %q", names, want)
	}
	if si.terms.Len() != 3 {
		t.Fatalf("term index of %d entries, want 3", si.terms.Len())
	}
	// "socket" is a word of the main module's Serve; "listen" of both
	// Serve functions, but the standard library's takes no source words;
	// "connection" is in the documentation of acquire.
	for term, want := range map[string]int{"socket": 1, "listen": 1, "connection": 1, "acquir": 1} {
		if got := si.terms.DocFreq(term); got != want {
			t.Errorf("DocFreq(%q) = %d, want %d", term, got, want)
		}
	}
	if !slices.Equal(si.mainPkgs, []string{"example.com/app"}) {
		t.Errorf("main packages %q", si.mainPkgs)
	}
}
