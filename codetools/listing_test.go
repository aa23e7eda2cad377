package codetools

import (
	"strings"
	"testing"
)

// A listing writes less of each hit's documentation as its ids grow, so
// that answers stay about as large whatever the id lengths.
func TestListingDocBudget(t *testing.T) {
	doc := "serves one request after checking its token and its origin…"[:maxHitDoc]
	listing := func(idLen int) string {
		var hits []SearchHit
		for i := range 10 {
			pkg := "example.com/" + strings.Repeat("p", idLen-len("example.com//srv")-3) + "/srv"
			hits = append(hits, SearchHit{Name: pkg + ".F" + string(rune('a'+i)), Kind: KindFunc, At: "x.go:1", doc: doc, pkg: pkg})
		}
		return (&SearchResult{Match: MatchTerms, Scope: "main+deps", Total: 10, Results: hits}).Listing()
	}
	short, mid, long := listing(30), listing(70), listing(110)
	if !strings.Contains(short, doc) {
		t.Errorf("short ids: the documentation is cut:\n%s", short)
	}
	if strings.Contains(mid, doc) || !strings.Contains(mid, " - serves") {
		t.Errorf("70-byte ids: the documentation is not shortened:\n%s", mid)
	}
	if strings.Contains(long, " - ") {
		t.Errorf("110-byte ids: documentation written:\n%s", long)
	}
	if d := len(mid) - len(short); d > 0 {
		t.Errorf("40 more bytes of id per hit grow the listing by %d bytes", d)
	}
}
