package boundedjson

import (
	"errors"
	"strings"
	"testing"
)

// TestWhere: every refusal says what was wrong and where, as a JSON
// pointer inside the document (or an offset at the top level), without
// echoing the input unbounded.
func TestWhere(t *testing.T) {
	long := strings.Repeat("k", 5000)
	lim := Limits{MaxDepth: 4, MaxString: 10, MaxMembers: 3}
	tests := []struct {
		doc, where string
		err        error
	}{
		{`{"params":{"arguments":{"query":"01234567890"}}}`, "string longer than 10 bytes at /params/arguments/query", ErrBound},
		{`{"a":[1,2,3,4]}`, "array with more than 3 elements at /a", ErrBound},
		{`{"a":1,"b":2,"c":3,"d":4}`, "object with more than 3 members at offset 22", ErrBound},
		{`[[[[[1]]]]]`, "nesting deeper than 4 at /0/0/0/0", ErrBound},
		{`{"a":{"b":1,"b":2}}`, `duplicate member "b" at /a`, ErrDuplicate},
		{`{"a":[{"x~/y":1e999}]}`, "number out of range at /a/0/x~0~1y", ErrBound},
		{`{"a":tru}`, "invalid literal at /a", nil},
		{`{"a":1`, "unexpected end of input in an object at offset 6", nil},
		{`{"` + long + `":{"x":1,"x":2}}`, `duplicate member "x" at /` + strings.Repeat("k", 48) + "…", ErrDuplicate},
		{`{"` + strings.Repeat("a", 600) + `":1,"` + strings.Repeat("a", 600) + `":1}`, `duplicate member "` + strings.Repeat("a", 64) + `"… at offset 606`, ErrDuplicate},
	}
	for _, tt := range tests {
		lim := lim
		if len(tt.doc) > 1000 {
			lim.MaxString = 10000
		}
		_, err := Parse([]byte(tt.doc), lim)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("%.60s: %v, want a *SyntaxError", tt.doc, err)
		}
		if se.Where() != tt.where {
			t.Errorf("%.60s:\n got %q\nwant %q", tt.doc, se.Where(), tt.where)
		}
		if tt.err != nil && !errors.Is(err, tt.err) {
			t.Errorf("%.60s: %v does not match %v", tt.doc, err, tt.err)
		}
		if len(se.Error()) > 400 {
			t.Errorf("%.60s: a %d-byte message", tt.doc, len(se.Error()))
		}
	}
}

// TestCaptureAndBorrow: the raw bytes of the captured members are the
// document's own, and borrowed maps go back on Release.
func TestCaptureAndBorrow(t *testing.T) {
	doc := []byte(`{"id": 9007199254740993 ,"params":{"_meta":{"progressToken":9007199254740993},"arguments":{"a":[1, 2]}},"x":[{"id":1}]}`)
	p := Parser{Capture: [][]string{{"id"}, {"params", "arguments"}, {"params", "_meta", "progressToken"}, {"nope"}},
		Borrow: [][]string{nil, {"params"}}}
	v, err := p.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`9007199254740993`, `{"a":[1, 2]}`, `9007199254740993`, ``} {
		if string(p.Captured[i]) != want {
			t.Errorf("capture %d = %q, want %q", i, p.Captured[i], want)
		}
	}
	top := v.(map[string]any)
	params := top["params"].(map[string]any)
	args := params["arguments"].(map[string]any)
	p.Release()
	if len(top) != 0 || len(params) != 0 {
		t.Error("Release did not clear the borrowed maps")
	}
	if len(args) != 1 {
		t.Error("Release cleared a map that was not borrowed")
	}
}

func TestGroupAndQuote(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1 000", 65536: "65 536", 1234567: "1 234 567", -4096: "-4 096"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Quote("héllo", 2); got != `"h"…` {
		t.Errorf("Quote cut inside a rune: %q", got)
	}
}

// TestDecode: Decode fills plain types by JSON Schema's rules and says
// where a value does not fit.
func TestDecode(t *testing.T) {
	type in struct {
		N  int      `json:"n"`
		U  uint8    `json:"u"`
		S  string   `json:"s"`
		L  []int    `json:"l"`
		P  *float64 `json:"p"`
		Ig string   `json:"-"`
	}
	var got in
	if err := Decode(map[string]any{"n": 1.0, "u": 255.0, "s": "x", "l": []any{2.0}, "p": 1.5, "Ig": "no"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.N != 1 || got.U != 255 || got.S != "x" || len(got.L) != 1 || *got.P != 1.5 || got.Ig != "" {
		t.Errorf("Decode = %+v", got)
	}
	for v, want := range map[string]any{
		"/n: expected integer, got number 1.5":       map[string]any{"n": 1.5},
		"/u: integer 256 is out of range 0..255":     map[string]any{"u": 256.0},
		"/l/0: expected integer, got string \"two\"": map[string]any{"l": []any{"two"}},
		"expected object, got array":                 []any{},
	} {
		err := Decode(want, &got)
		var de *DecodeError
		if !errors.As(err, &de) || de.Error() != v {
			t.Errorf("Decode(%v) = %v, want %q", want, err, v)
		}
	}
	if err := Decode(map[string]any{"n": 1e17}, &got); !errors.Is(err, ErrImprecise) {
		t.Errorf("an integer past 2^53: %v, want ErrImprecise", err)
	}
}
