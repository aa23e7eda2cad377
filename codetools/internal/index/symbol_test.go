package index

import (
	"testing"
)

func TestParseSymbol(t *testing.T) {
	const mainPath = "example.com/app"
	known := func(p string) bool { return p == "gopkg.in/yaml.v3" }
	tests := []struct {
		in, want string
		closure  bool
	}{
		{"main.main", "example.com/app.main", false},
		{"main.(*T).M", "example.com/app.(*T).M", false},
		{"main.T.M", "example.com/app.T.M", false},
		{"example.com/x/y.F", "example.com/x/y.F", false},
		{"crypto/internal/entropy/v1%2e0%2e0.Seed", "crypto/internal/entropy/v1.0.0.Seed", false},
		{"crypto/internal/entropy/v1%2e0%2e0.(*source).Sample", "crypto/internal/entropy/v1.0.0.(*source).Sample", false},
		{"gopkg.in/yaml%2ev3.Unmarshal", "gopkg.in/yaml.v3.Unmarshal", false},
		{"gopkg.in/yaml.v3.Unmarshal", "gopkg.in/yaml.v3.Unmarshal", false},
		{"gopkg.in/yaml.v3.(*decoder).unmarshal", "gopkg.in/yaml.v3.(*decoder).unmarshal", false},
		{"main.Map[...]", "example.com/app.Map", false},
		{"main.Map[go.shape.int,go.shape.string]", "example.com/app.Map", false},
		{"internal/sync.(*HashTrieMap[go.shape.interface {},go.shape.interface {}]).Load", "internal/sync.(*HashTrieMap).Load", false},
		{"main.List[...].Len", "example.com/app.List.Len", false},
		{"main.F.func1", "example.com/app.F", true},
		{"main.F.func1.2", "example.com/app.F", true},
		{"main.(*T).M.func3", "example.com/app.(*T).M", true},
		{"main.T.M.gowrap1", "example.com/app.T.M", true},
		{"main.F.deferwrap2", "example.com/app.F", true},
		{"main.F-range1", "example.com/app.F", true},
		{"main.T.M-fm", "example.com/app.T.M", true},
		{"main.init.0", "example.com/app.init.0", false},
		{"main.init.1.func2", "example.com/app.init.1", true},
		{"main.init", "example.com/app.init", false},
		{"main.glob..func1", "example.com/app.init", true},
		{"main.(*T).M(0xc000010000, 0x1)", "example.com/app.(*T).M", false},
		{"main.F(...)", "example.com/app.F", false},
		{"  net/http.(*Server).Serve  ", "net/http.(*Server).Serve", false},
	}
	for _, tt := range tests {
		sym, ok := ParseSymbol(tt.in, mainPath, known)
		if !ok {
			t.Errorf("parseSymbol(%q) failed", tt.in)
			continue
		}
		if got := sym.ID(); got != tt.want || sym.Closure != tt.closure {
			t.Errorf("parseSymbol(%q) = %q closure=%v, want %q closure=%v", tt.in, got, sym.Closure, tt.want, tt.closure)
		}
	}
	for _, bad := range []string{"", "type:.eq.main.T", "go:buildid", "_rt0_amd64_linux", "main.(*T)", "no dots here"} {
		if sym, ok := ParseSymbol(bad, mainPath, nil); ok {
			t.Errorf("parseSymbol(%q) = %q, want failure", bad, sym.ID())
		}
	}
}

func TestAltID(t *testing.T) {
	sym, _ := ParseSymbol("main.T.M", "p", nil)
	if got := sym.AltID(); got != "p.(*T).M" {
		t.Errorf("altID = %q", got)
	}
	sym, _ = ParseSymbol("main.(*T).M", "p", nil)
	if got := sym.AltID(); got != "p.T.M" {
		t.Errorf("altID = %q", got)
	}
	sym, _ = ParseSymbol("main.F", "p", nil)
	if got := sym.AltID(); got != "" {
		t.Errorf("altID of func = %q", got)
	}
}
