package index

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
	in := &SearchInput{
		Entries: []Entry{
			{ID: "example.com/app.Serve", Pkg: "example.com/app", Kind: KindFunc, Snap: 0},
			{ID: "example.com/lib.(*Pool).acquire", Pkg: "example.com/lib", Kind: KindMethod, Snap: 1},
			{ID: "net/http.Serve", Pkg: "net/http", Kind: KindFunc, Snap: 2},
		},
		MainMod: "example.com/app",
		Mods:    []snapshot.Module{{Path: "example.com/app"}, {Path: "example.com/lib", Version: "v1.0.0"}},
		MainPkg: "example.com/app",
	}
	words := []string{"listen socket |  | ", "", "listen |  | "}
	docs := []string{"", "acquire takes a connection.", ""}
	in.Doc = func(i int) string { return docs[i] }
	in.Words = func(scopes []Scope) func(i int, e *Entry) (string, bool) {
		if len(scopes) != len(in.Entries) {
			t.Errorf("words got %d scopes for %d entries", len(scopes), len(in.Entries))
		}
		return func(i int, e *Entry) (string, bool) { return words[i], words[i] != "" }
	}
	si := BuildSearch(in)
	if want := []Scope{ScopeMain, ScopeDeps, ScopeStd}; !slices.Equal(si.Scope, want) {
		t.Errorf("scopes %v, want %v", si.Scope, want)
	}
	if si.Tier[0] != TierMain || si.Tier[1] != TierDirect || si.Tier[2] != TierLibrary {
		t.Errorf("tiers %v", si.Tier)
	}
	var names []string
	for _, i := range si.ByName {
		names = append(names, EntryNameAt(in.Entries, si.NameOff, int(i)))
	}
	if want := []string{"acquire", "Serve", "Serve"}; !slices.Equal(names, want) {
		t.Errorf("names by name %q, want %q", names, want)
	}
	if si.Terms.Len() != 3 {
		t.Fatalf("term index of %d entries, want 3", si.Terms.Len())
	}
	// "socket" is a word of the main module's Serve; "listen" of both
	// Serve functions, but the standard library's takes no source words;
	// "connection" is in the documentation of acquire.
	for term, want := range map[string]int{"socket": 1, "listen": 1, "connection": 1, "acquir": 1} {
		if got := si.Terms.DocFreq(term); got != want {
			t.Errorf("DocFreq(%q) = %d, want %d", term, got, want)
		}
	}
	if !slices.Equal(si.MainPkgs, []string{"example.com/app"}) {
		t.Errorf("main packages %q", si.MainPkgs)
	}
}
