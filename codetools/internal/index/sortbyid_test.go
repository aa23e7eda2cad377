package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortByID: entries come out sorted by id, the first of equal ids
// kept, each with its words and documentation, however they came in.
func TestSortByID(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		n := r.IntN(300)
		es := make([]Entry, n)
		words := make([]string, r.IntN(n+1)) // entries past its end have none
		docs := make([]string, r.IntN(n+1))
		for i := range es {
			es[i] = Entry{ID: fmt.Sprintf("p.F%d", r.IntN(n/2+1)), Line: int32(i)}
			if i < len(words) {
				words[i] = fmt.Sprint("w", i)
			}
			if i < len(docs) {
				docs[i] = fmt.Sprint("d", i)
			}
		}
		// What a stable sort and dropping the later duplicates give.
		want := slices.Clone(es)
		slices.SortStableFunc(want, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
		want = slices.CompactFunc(want, func(a, b Entry) bool { return a.ID == b.ID })
		got, gw, gd := SortByID(slices.Clone(es), slices.Clone(words), slices.Clone(docs))
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: entries\n%v\nwant\n%v", round, got, want)
		}
		for k, e := range got {
			w := ""
			if int(e.Line) < len(words) {
				w = words[e.Line]
			}
			if gw[k] != w {
				t.Fatalf("round %d: entry %s (line %d) has words %q, want %q", round, e.ID, e.Line, gw[k], w)
			}
			d := ""
			if int(e.Line) < len(docs) {
				d = docs[e.Line]
			}
			if gd[k] != d {
				t.Fatalf("round %d: entry %s (line %d) has documentation %q, want %q", round, e.ID, e.Line, gd[k], d)
			}
		}
		if got, gw, gd := SortByID(slices.Clone(es), nil, nil); gw != nil || gd != nil || len(got) != len(want) {
			t.Fatalf("round %d: without words: %d entries, words %v, docs %v", round, len(got), gw, gd)
		}
	}
}
