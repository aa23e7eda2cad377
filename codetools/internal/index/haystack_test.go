package index

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// The haystack is the lower-cased id, less its package prefix, and
// documentation of each entry, each followed by a zero byte, as WriteLower
// writes them (the literal search lower-cases its needles the same way);
// HayPkgs holds the prefixes left out, and Freq counts its bytes.
// Once it is built, the documentation is read back from it, capitals and
// non-ASCII text as they were, by an index sharing the base's entries or
// holding a copy with registered documents.
func TestBuildHaystack(t *testing.T) {
	entries := []Entry{
		{ID: "example.com/App.ServeHTTP", Pkg: "example.com/App", Sources: SrcSnapshot, Reg: -1},
		{ID: "example.com/app", Pkg: "example.com/app", Kind: KindPackage, Sources: SrcSnapshot, Reg: -1},
		{ID: "example.com/app.Z", Pkg: "example.com/app", Sources: SrcSnapshot, Reg: -1},
		{ID: "example.com/app.x", Pkg: "example.com/app", Sources: SrcSnapshot, Reg: -1},
		{ID: "example.com/zz.lower", Sources: SrcSnapshot, Reg: -1},
		{ID: "example.com/ü.Größe", Pkg: "example.com/ü", Sources: SrcSnapshot, Reg: -1},
	}
	docs := []string{"ServeHTTP answers GET /Prices.", "Package app.", "Z", "", "", "İSTANBUL has a dotted capital I, whose lower case is longer."}
	b := &Base{Entries: entries}
	b.SetDocs(docs)
	x := &Index{Base: b, Entries: b.Entries}
	if !x.SharesBase() {
		t.Fatal("an index of the base's entries does not share them")
	}
	x.BuildHaystack()
	doc := func(i int) string {
		if i < len(docs) {
			return docs[i]
		}
		return ""
	}
	var want strings.Builder
	for i, e := range x.Entries {
		if got := x.Offs[i]; got != uint32(want.Len()) {
			t.Errorf("Offs[%d] = %d, want %d", i, got, want.Len())
		}
		WriteLower(&want, e.ID[HayCut(&e):])
		want.WriteByte(0)
		WriteLower(&want, doc(i))
		want.WriteByte(0)
	}
	if x.Hay != want.String() {
		t.Errorf("Hay = %q, want %q", x.Hay, want.String())
	}
	wantPkgs := map[string]string{"example.com/App": "example.com/app.", "example.com/app": "example.com/app.", "example.com/ü": "example.com/ü."}
	if !maps.Equal(x.HayPkgs, wantPkgs) {
		t.Errorf("HayPkgs = %q, want %q", x.HayPkgs, wantPkgs)
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
	b.ReleaseDocs()
	if b.docs.loaded.Load() != nil {
		t.Errorf("the documentation as read is kept beside the haystack")
	}
	for i := range entries {
		if got := x.DocOf(i); got != doc(i) {
			t.Errorf("DocOf(%d) = %q, want %q", i, got, doc(i))
		}
	}
	// A copy with a registered document on entry 0 and one of its own.
	merged := append([]Entry(nil), entries...)
	merged[0].Reg, merged[0].Sources = 0, SrcSnapshot|SrcRegistered
	merged = append(merged, Entry{ID: "example.com/ü.Tool", Pkg: "other", Sources: SrcRegistered, Reg: 1})
	y := &Index{Base: b, Entries: merged, RegDocs: []string{"Registered: Prices.", "A Tool."}}
	if y.SharesBase() {
		t.Fatal("a copy of the entries shares the base's")
	}
	y.BuildHaystack()
	wantDocs := append([]string{"Registered: Prices."}, docs[1:]...)
	wantDocs = append(wantDocs, "A Tool.")
	want.Reset()
	for i, e := range y.Entries {
		if got := y.DocOf(i); got != wantDocs[i] {
			t.Errorf("copy: DocOf(%d) = %q, want %q", i, got, wantDocs[i])
		}
		WriteLower(&want, e.ID[HayCut(&e):])
		want.WriteByte(0)
		WriteLower(&want, wantDocs[i])
		want.WriteByte(0)
	}
	if y.Hay != want.String() {
		t.Errorf("copy: Hay = %q, want %q", y.Hay, want.String())
	}
	empty := &Index{}
	empty.BuildHaystack()
	if empty.Hay != "" || len(empty.Offs) != 1 || empty.Offs[0] != 0 {
		t.Errorf("empty index: Hay %q, Offs %v", empty.Hay, empty.Offs)
	}
}

// The documentation of a haystack of many 64 KiB blocks reads back as it
// was, capitals in every block and across their bounds.
func TestDocCaseBlocks(t *testing.T) {
	var entries []Entry
	var docs []string
	for i := range 3000 {
		entries = append(entries, Entry{ID: fmt.Sprintf("example.com/p%04d.F", i), Pkg: fmt.Sprintf("example.com/p%04d", i), Sources: SrcSnapshot, Reg: -1})
		var d string
		switch i % 5 {
		case 0:
			d = strings.Repeat("Abc DEF ghi ", 1+i%40)
		case 1:
			d = strings.Repeat("no capitals here ", 1+i%30)
		case 2:
			d = ""
		case 3:
			d = strings.Repeat("Z", 1+i%64)
		default:
			d = "F reads Ünicode and ASCII."
		}
		docs = append(docs, d)
	}
	b := &Base{Entries: entries}
	b.SetDocs(docs)
	x := &Index{Base: b, Entries: b.Entries}
	x.BuildHaystack()
	b.ReleaseDocs()
	if len(x.Hay) < 4<<16 {
		t.Fatalf("the haystack holds %d bytes: too few blocks to test", len(x.Hay))
	}
	for i := range entries {
		if got := x.DocOf(i); got != docs[i] {
			t.Fatalf("DocOf(%d) = %q, want %q", i, got, docs[i])
		}
	}
}
