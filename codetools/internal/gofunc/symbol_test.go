package gofunc

import (
	"fmt"
	"testing"
)

// TestParseSymbol reads the symbols of declarations, closures, wrappers
// and inlined code, and refuses those that are no Go declaration of a
// package.
func TestParseSymbol(t *testing.T) {
	type rd = Reading
	tests := []struct {
		raw       string
		pkg       string
		own, glob bool
		readings  []Reading
	}{
		{"main.main", "main", true, false, []rd{{Outer: "main"}}},
		{"main.(*T).M", "main", true, false, []rd{{Outer: "(*T).M", Method: true}}},
		{"main.T.M", "main", true, false, []rd{{Outer: "T.M", Method: true}}},
		{"crypto/internal/entropy/v1%2e0%2e0.Seed", "crypto/internal/entropy/v1.0.0", true, false, []rd{{Outer: "Seed"}}},
		{"main.init.0", "main", true, false, []rd{{Outer: "init.0"}}},
		{"runtime.memmove.abi0", "runtime", true, false, []rd{{Outer: "memmove"}}},
		{"main.F.func1", "main", false, false, []rd{{Outer: "F"}}},
		{"main.F.func1.2", "main", false, false, []rd{{Outer: "F"}}},
		{"main.init.1.func2", "main", false, false, []rd{{Outer: "init.1"}}},
		{"main.F-range1", "main", false, false, []rd{{Outer: "F"}}},
		{"main.T.M-fm", "main", false, false, []rd{{Outer: "T.M", Method: true}}},
		{"main.(*T).M.gowrap1", "main", false, false, []rd{{Outer: "(*T).M", Method: true}}},
		// A closure of RequireToken inlined into main.main, or of the
		// method main.RequireToken.
		{"main.main.RequireToken.func3", "main", false, false, []rd{
			{Outer: "main.RequireToken", Method: true},
			{Outer: "main", Prefix: "main.main", Inner: []string{"RequireToken"}}}},
		{"main.F.T.M.func1", "main", false, false, []rd{
			{Outer: "F.T", Method: true, Prefix: "main.F.T", Inner: []string{"M"}},
			{Outer: "F", Prefix: "main.F", Inner: []string{"T.M", "M"}}}},
		{"main.F.(*T).M.func1", "main", false, false, []rd{
			{Outer: "F.(*T)", Method: true, Prefix: "main.F.(*T)", Inner: []string{"M"}},
			{Outer: "F", Prefix: "main.F", Inner: []string{"(*T).M"}}}},
		// The prefix keeps the wrapper suffixes: it is the symbol of the
		// function the callee was inlined into.
		{"main.F-range1.G.func1", "main", false, false, []rd{
			{Outer: "F.G", Method: true},
			{Outer: "F", Prefix: "main.F-range1", Inner: []string{"G"}}}},
		{"main.glob..func1", "main", false, true, nil},
		{"main.init.func1", "main", false, true, nil},
		{"main.map.init.0", "main", false, true, nil},
	}
	for _, tt := range tests {
		sym, ok := ParseSymbol(tt.raw)
		if !ok {
			t.Errorf("ParseSymbol(%q) failed", tt.raw)
			continue
		}
		got := fmt.Sprintf("%q own=%v glob=%v %+v", sym.Pkg, sym.Own, sym.Glob, sym.Readings())
		want := fmt.Sprintf("%q own=%v glob=%v %+v", tt.pkg, tt.own, tt.glob, tt.readings)
		if tt.readings == nil {
			want = fmt.Sprintf("%q own=%v glob=%v %+v", tt.pkg, tt.own, tt.glob, []Reading{})
		}
		if got != want || sym.Raw != tt.raw {
			t.Errorf("ParseSymbol(%q) = %s (raw %q), want %s", tt.raw, got, sym.Raw, want)
		}
	}
	for _, bad := range []string{"", "type:.eq.main.T", "go:buildid", "go.shape.int", "_rt0_amd64_linux", "main.(*T)",
		"main.(*).M", "main.func1", "main.F G", ".F"} {
		if sym, ok := ParseSymbol(bad); ok {
			t.Errorf("ParseSymbol(%q) = %+v, want failure", bad, sym)
		}
	}
}

// TestGenericSymbols checks the reading of the symbols of generic
// instantiations, whose shapes may hold spaces, dots, slashes, nested
// brackets and quoted struct tags.
func TestGenericSymbols(t *testing.T) {
	const iface = "[go.shape.interface { BlockSize() int; Sum([]uint8) []uint8 }]"
	const tagged = "[go.shape.struct { A []int \"json:\\\"a[\\\"\"; B net/http.Header }]"
	tests := []struct {
		raw, stripped, elided, printed, outer string
		inner                                 []string
	}{
		{"crypto/hkdf.Expand" + iface, "crypto/hkdf.Expand", "crypto/hkdf.Expand[...]", "crypto/hkdf.Expand[...]", "Expand", nil},
		// A closure of UnwrapNew, inlined into Expand: the runtime prints
		// it as if it were Expand's.
		{"crypto/hkdf.Expand" + iface + ".UnwrapNew" + iface + ".func1", "crypto/hkdf.Expand.UnwrapNew.func1",
			"crypto/hkdf.Expand[...].UnwrapNew[...].func1", "crypto/hkdf.Expand[...].func1", "Expand", []string{"UnwrapNew"}},
		{"example.com/app.(*List" + tagged + ").Push", "example.com/app.(*List).Push",
			"example.com/app.(*List[...]).Push", "example.com/app.(*List[...]).Push", "(*List).Push", nil},
		{"example.com/app.Map[go.shape.[]uint8,go.shape.map[string]int]", "example.com/app.Map",
			"example.com/app.Map[...]", "example.com/app.Map[...]", "Map", nil},
	}
	for _, tt := range tests {
		if got := StripTypeArgs(tt.raw); got != tt.stripped {
			t.Errorf("StripTypeArgs(%q) = %q, want %q", tt.raw, got, tt.stripped)
		}
		if got := ElideTypeArgs(tt.raw); got != tt.elided {
			t.Errorf("ElideTypeArgs(%q) = %q, want %q", tt.raw, got, tt.elided)
		}
		if got := PrintedName(tt.raw); got != tt.printed {
			t.Errorf("PrintedName(%q) = %q, want %q", tt.raw, got, tt.printed)
		}
		sym, ok := ParseSymbol(tt.raw)
		if !ok {
			t.Errorf("ParseSymbol(%q) failed", tt.raw)
			continue
		}
		rd := sym.Readings()
		last := rd[len(rd)-1]
		if last.Outer != tt.outer || fmt.Sprint(last.Inner) != fmt.Sprint(tt.inner) {
			t.Errorf("ParseSymbol(%q): last reading %+v, want outer %s inner %v", tt.raw, last, tt.outer, tt.inner)
		}
	}
}

// TestNameParts checks the helpers that read the parts of a name.
func TestNameParts(t *testing.T) {
	for in, want := range map[string]string{"a/b%2ec.F": "a/b.c.F", "%2E%2f": "./", "100%": "100%", "%zz%2": "%zz%2", "plain": "plain"} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"M-fm": "M", "F-range1": "F", "F": "F", "-x": ""} {
		if got := TrimWrapper(in); got != want {
			t.Errorf("TrimWrapper(%q) = %q, want %q", in, got, want)
		}
	}
	for seg, want := range map[string]bool{"func1": true, "func12-range1": true, "gowrap2": true, "deferwrap1": true, "3": true,
		"func": false, "funcs": false, "F": false, "": false, "gowrap": false} {
		if got := IsClosureSegment(seg); got != want {
			t.Errorf("IsClosureSegment(%q) = %v, want %v", seg, got, want)
		}
	}
	for s, want := range map[string]bool{"T": true, "List[int]": true, "": false, "a.b": false, "(*T": false, "*T": false, "a/b": false} {
		if got := ValidIdent(s); got != want {
			t.Errorf("ValidIdent(%q) = %v, want %v", s, got, want)
		}
	}
}
