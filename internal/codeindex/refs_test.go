package codeindex

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func sampleRefs() *Refs {
	return &Refs{
		Files: []string{"src/example.com/a/a.go.txt", "src/example.com/b/b.go.txt"},
		Syms: []Sym{
			{Pkg: "example.com/a", Name: "(*T).M", Kind: SymMethod, File: -1},
			{Pkg: "example.com/a", Name: "F", Kind: SymFunc, File: -1},
			{Pkg: "example.com/a", Name: "I", Kind: SymInterface, File: -1},
			{Pkg: "example.com/a", Name: "I.M", Kind: SymAbstract, File: 0, Line: 7},
			{Pkg: "example.com/a", Name: "T", Kind: SymType, File: -1},
			{Pkg: "example.com/a", Name: "T.n", Kind: SymField, File: 0, Line: 12},
			{Pkg: "example.com/b", Name: "U", Kind: SymType, File: -1},
			{Pkg: "fmt", Name: "Println", Kind: SymFunc, File: -1},
		},
		Impls:    []Impl{{Type: 4, Iface: 2, PtrOnly: true}, {Type: 6, Iface: 2}},
		Promoted: []Promoted{{Type: 6, Method: 0, Via: "T"}},
		Sites: []Site{
			{File: 0, Line: 20, From: 1, To: 0, Kind: RefCall},
			{File: 0, Line: 20, From: 1, To: 7, Kind: RefCall},
			{File: 0, Line: 21, From: 1, To: 3, Kind: RefDynamic},
			{File: 0, Line: 21, From: 0, To: 5, Kind: RefWrite},
			{File: 1, Line: 3, From: 6, To: 4, Kind: RefRead},
			{File: 1, Line: 9, From: 6, To: 1, Kind: RefValue},
		},
	}
}

func TestRefsRoundTrip(t *testing.T) {
	want := sampleRefs()
	var b bytes.Buffer
	if err := Encode(&b, []File{{Path: "src/example.com/a/a.go.txt", Decls: []Decl{{Kind: Func, Name: "F", Line: 20, EndLine: 22, Start: 100, End: 180}}}}); err != nil {
		t.Fatal(err)
	}
	if err := EncodeRefs(&b, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRefs(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v\nfrom\n%s", got, want, b.String())
	}
	// A reader of declarations skips the references: the index reads as
	// it did before they were added.
	r, err := NewReader(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var decls []Decl
	for {
		_, d, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the declaration reader stumbles on the references: %v", err)
		}
		decls = append(decls, d)
	}
	if len(decls) != 1 || decls[0].Name != "F" {
		t.Errorf("declarations = %+v", decls)
	}
}

func TestReadRefsErrors(t *testing.T) {
	var b bytes.Buffer
	if err := Encode(&b, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRefs(bytes.NewReader(b.Bytes())); !errors.Is(err, ErrNoRefs) {
		t.Errorf("an index without references: %v, want ErrNoRefs", err)
	}
	var good bytes.Buffer
	if err := EncodeRefs(&good, sampleRefs()); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ old, new string }{
		{"refs embedmcp-codetools-refs/1 2 8 6", "refs embedmcp-codetools-refs/1 2 x 6"},
		{"S m (*T).M", "S z (*T).M"},           // unknown kind
		{"S a I.M 0 7", "S a I.M 5 7"},         // file out of range
		{"S f F\n", "S f (\n"},                 // out of order
		{"E 1", "E 9"},                         // file out of range
		{"D 6", "D 60"},                        // symbol out of range
		{"I 4 2*", "I 4 99*"},                  // symbol out of range
		{"M 6 T 0", "M 6 T"},                   // no method
		{"20 0c 7c", "20 0c 7q"},               // unknown reference kind
		{"E 0\nD 1", "D 1"},                    // a site before its file
		{"20 0c 7c", "20 0c 700c"},             // symbol out of range
		{"S d T.n 0 12", "S d T.n 0 12 13 14"}, // extra fields
		{"20 0c 7c", "2147483647 0c 7c"},       // the next line is past int32
	} {
		text := good.String()
		if !strings.Contains(text, bad.old) {
			t.Fatalf("sample lacks %q:\n%s", bad.old, text)
		}
		text = strings.Replace(text, bad.old, bad.new, 1)
		if _, err := ReadRefs(strings.NewReader(text)); !errors.Is(err, ErrFormat) {
			t.Errorf("%q → %q: %v, want ErrFormat", bad.old, bad.new, err)
		}
	}
}

func TestCompareIDs(t *testing.T) {
	parts := []string{"", "a", "a.b", "a/b", "ab", "a-b", "b", "(*T).M", "T.M", "a.", "."}
	for _, p1 := range parts {
		for _, n1 := range parts {
			for _, p2 := range parts {
				for _, n2 := range parts {
					a, b := &Sym{Pkg: p1, Name: n1}, &Sym{Pkg: p2, Name: n2}
					if got, want := compareIDs(a, b), strings.Compare(a.ID(), b.ID()); got != want {
						t.Fatalf("compareIDs(%q, %q) = %d, want %d", a.ID(), b.ID(), got, want)
					}
				}
			}
		}
	}
}
