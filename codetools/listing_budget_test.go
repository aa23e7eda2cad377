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
			id := "example.com/" + strings.Repeat("p", idLen-len("example.com/")-3) + ".F" + string(rune('a'+i))
			hits = append(hits, SearchHit{Name: id, Kind: KindFunc, At: "x.go:1", doc: doc})
		}
		return (&SearchResult{Match: MatchTerms, Scope: "main+deps", Total: 10, Results: hits}).Listing()
	}
	short, mid, long := listing(30), listing(60), listing(100)
	if !strings.Contains(short, doc) {
		t.Errorf("short ids: the documentation is cut:\n%s", short)
	}
	if strings.Contains(mid, doc) || !strings.Contains(mid, " - serves") {
		t.Errorf("60-byte ids: the documentation is not shortened:\n%s", mid)
	}
	if strings.Contains(long, " - ") {
		t.Errorf("100-byte ids: documentation written:\n%s", long)
	}
	if d := len(mid) - len(short); d > 10*30 {
		t.Errorf("30 more bytes of id per hit grow the listing by %d bytes", d)
	}
}
