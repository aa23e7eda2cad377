package search

import (
	"slices"
	"testing"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/bm25f"
)

// Every word of howForms is a term as the index normalises it, and a
// question "how long ..." reaches a timeout through the word after "how".
func TestHowForms(t *testing.T) {
	for _, w := range []string{"long", "many", "much", "big", "large"} {
		if _, ok := HowForms[bm25f.Normalize(w)]; !ok {
			t.Errorf("howForms has no entry for %q (%q)", w, bm25f.Normalize(w))
		}
	}
	for k, forms := range HowForms {
		for _, f := range forms {
			if bm25f.Normalize(f) != f && bm25f.Stem(f) != f {
				t.Errorf("howForms[%q]: %q is no term", k, f)
			}
		}
	}
	x := &index.Index{}
	terms, err := bm25f.Join(0, bm25f.Part{Index: bm25f.NewBuilder(index.NumTermFields).Build()})
	if err != nil {
		t.Fatal(err)
	}
	x.Search.Terms = terms
	cs := Searcher{Index: x}.QueryTerms("how long to wait for the next request")
	i := slices.IndexFunc(cs, func(c bm25f.Concept) bool { return c.Terms[0] == "long" })
	if i < 0 || !slices.Contains(cs[i].Terms, "timeout") {
		t.Errorf("how long: concepts %v, want long with the form timeout", cs)
	}
	cs = Searcher{Index: x}.QueryTerms("a long name")
	i = slices.IndexFunc(cs, func(c bm25f.Concept) bool { return c.Terms[0] == "long" })
	if i < 0 || slices.Contains(cs[i].Terms, "timeout") {
		t.Errorf("long without how: concepts %v, want long without timeout", cs)
	}
}
