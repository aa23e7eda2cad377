package mcp_test

import (
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestPackageOverview: the package documentation starts with code (within
// its first lines), the code is what ExampleNewHandler runs, line for
// line, and the overview stays at most 60 lines; the longer material is
// in docs/design.md.
func TestPackageOverview(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "doc.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	if len(lines) > 60 {
		t.Errorf("the package overview has %d lines, want at most 60", len(lines))
	}
	first := -1
	var code []string
	for i, l := range lines {
		if strings.HasPrefix(l, "\t") {
			if first < 0 {
				first = i
			}
			if first >= 0 && len(code) == i-first {
				code = append(code, strings.TrimSpace(l))
			}
		}
	}
	if first < 0 || first > 5 {
		t.Fatalf("the overview's first code line is line %d, want one of the first 6", first+1)
	}
	src, err := os.ReadFile("example_http_test.go")
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	start := strings.Index(body, "func ExampleNewHandler() {")
	if start < 0 {
		t.Fatal("ExampleNewHandler not found")
	}
	example := map[string]bool{}
	for _, l := range strings.Split(body[start:], "\n") {
		example[strings.TrimSpace(l)] = true
	}
	for _, l := range code {
		if !example[l] {
			t.Errorf("the overview's line %q is not in ExampleNewHandler: the snippet would not be the code that runs", l)
		}
	}
	for _, want := range []string{"mcp.AddTool(", "mcp.NewHandler(", "Authenticator:", "if err != nil"} {
		if !strings.Contains(strings.Join(code, "\n"), want) {
			t.Errorf("the overview's snippet lacks %s", want)
		}
	}
	design, err := os.ReadFile("docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Conventions", "## One request", "Errors keep their JSON-RPC codes"} {
		if !strings.Contains(string(design), want) {
			t.Errorf("docs/design.md lacks %q", want)
		}
	}
}
