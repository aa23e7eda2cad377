package search

import (
	"math"
	"slices"
	"testing"
)

func TestIsPhrase(t *testing.T) {
	for q, want := range map[string]bool{
		"close the idle connections":                true,
		"who's allowed to write, and when?":         true,
		"per-recipient status of a delivery":        true,
		"ServeHTTP":                                 false,
		"read":                                      false,
		"cannot bind to port 67: permission denied": false,
		"in-flight message limit (1024) exceeded":   false,
		`level=WARN msg="reading"`:                  false,
		"net/http.(*Server).Serve":                  false,
		"- dash first":                              false,
		"trailing- dash":                            false,
	} {
		if got := IsPhrase(q); got != want {
			t.Errorf("IsPhrase(%q) = %v, want %v", q, got, want)
		}
	}
}

// The best by words stays first; an entry both rankings place high
// passes one that only words place there; one found by vector alone
// enters; the tail by words follows in its order.
func TestFuse(t *testing.T) {
	lex := []uint64{10, 11, 12, 13, 14}
	got := fuse(lex[:4], []int{13, 99, 10}, lex)
	var ids []int
	for _, k := range got {
		ids = append(ids, KeyEntry(k))
	}
	if want := []int{10, 13, 11, 12, 99, 14}; !slices.Equal(ids, want) {
		t.Errorf("fused %v, want %v", ids, want)
	}
	if got := fuse(lex, nil, lex); !slices.Equal(got, lex) {
		t.Errorf("nothing near: %v, want %v", got, lex)
	}
}

func TestDotQ(t *testing.T) {
	for n := range 11 {
		q := make([]float32, n)
		row := make([]int8, n)
		var want float64
		for j := range n {
			q[j], row[j] = float32(j)-2.5, int8(7*j-30)
			want += float64(q[j]) * float64(row[j])
		}
		if got := dotQ(q, row); math.Abs(float64(got)-want) > 1e-3 {
			t.Errorf("%d dimensions: %v, want %v", n, got, want)
		}
	}
}
