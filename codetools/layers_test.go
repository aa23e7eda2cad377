package codetools

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// layers are the packages of the catalog, lowest first: each may import
// the layers below it and none above.
var layers = []string{"internal/snapshot", "internal/index", "internal/search", "internal/nav", "."}

// TestLayersImportDownward: no layer of the catalog imports a layer above
// it (search and navigation are siblings: neither imports the other), and
// nothing under the library's internal/ imports codetools.
func TestLayersImportDownward(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	const mod = "github.com/embedmcp/mcp/codetools"
	path := func(l string) string { return strings.TrimSuffix(mod+"/"+l, "/.") }
	deps := func(pkgs ...string) []string {
		out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(out))
	}
	for i, l := range layers {
		d := deps("./" + l)
		for _, above := range layers[i+1:] {
			if slices.Contains(d, path(above)) {
				t.Errorf("%s imports %s, a layer above it", path(l), path(above))
			}
		}
	}
	if d := deps("./internal/nav"); slices.Contains(d, path("internal/search")) {
		t.Errorf("navigation imports search")
	}
	for _, dep := range deps("../internal/...", "./internal/...") {
		if dep == mod {
			t.Errorf("an internal package imports %s", dep)
		}
	}
}
