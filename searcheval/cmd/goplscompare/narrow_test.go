package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The narrowed workspace holds the root and searcheval modules only, and
// the go command accepts it.
func TestNarrowWorkspace(t *testing.T) {
	module, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work, err := narrowWorkspace(filepath.Dir(module), module, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-m")
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "GOWORK="+work)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m: %v\n%s", err, out)
	}
	mods := strings.Fields(string(out))
	if len(mods) != 2 || mods[0] != "github.com/embedmcp/mcp" || mods[1] != "github.com/embedmcp/mcp/searcheval" {
		t.Errorf("workspace modules %q, want the root and searcheval modules", mods)
	}
}

// A name go_search qualifies with its package is read with the package
// clause of its file.
func TestPackageName(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.go")
	if err := os.WriteFile(f, []byte("// Package smtp is a doc.\n//go:build linux\n\npackage smtp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := packageName(f); got != "smtp" {
		t.Errorf("packageName = %q, want smtp", got)
	}
	if got := packageName(filepath.Join(t.TempDir(), "missing.go")); got != "" {
		t.Errorf("packageName of a missing file = %q, want \"\"", got)
	}
}
