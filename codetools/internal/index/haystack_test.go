package index

import (
	"strings"
	"testing"
)

// The haystack is the lower-cased id and documentation of each entry,
// each followed by a zero byte, as WriteLower writes them (the literal
// search lower-cases its needles the same way); Freq counts its bytes.
func TestBuildHaystack(t *testing.T) {
	x := &Index{Entries: []Entry{
		{ID: "example.com/app.ServeHTTP", Doc: "ServeHTTP answers GET /Prices."},
		{ID: "example.com/app.x"},
		{ID: "example.com/ü.Größe", Doc: "İSTANBUL has a dotted capital I, whose lower case is longer."},
		{ID: "example.com/app.Z", Doc: "Z"},
	}}
	x.BuildHaystack()
	var want strings.Builder
	for i, e := range x.Entries {
		if got := x.Offs[i]; got != uint32(want.Len()) {
			t.Errorf("Offs[%d] = %d, want %d", i, got, want.Len())
		}
		WriteLower(&want, e.ID)
		want.WriteByte(0)
		WriteLower(&want, e.Doc)
		want.WriteByte(0)
	}
	if x.Hay != want.String() {
		t.Errorf("Hay = %q, want %q", x.Hay, want.String())
	}
	if got := x.Offs[len(x.Entries)]; got != uint32(len(x.Hay)) {
		t.Errorf("last offset %d, want %d", got, len(x.Hay))
	}
	var freq [256]uint32
	for i := 0; i < len(want.String()); i++ {
		freq[want.String()[i]]++
	}
	if x.Freq != freq {
		t.Errorf("Freq differs from the bytes of the haystack")
	}
	empty := &Index{}
	empty.BuildHaystack()
	if empty.Hay != "" || len(empty.Offs) != 1 || empty.Offs[0] != 0 {
		t.Errorf("empty index: Hay %q, Offs %v", empty.Hay, empty.Offs)
	}
}
