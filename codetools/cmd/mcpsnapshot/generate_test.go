package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools"
)

func fixtureDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "fixture"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGenerate(t *testing.T) {
	dir := fixtureDir(t)
	out := t.TempDir()
	m, err := generate(context.Background(), config{dir: dir, out: out, pkg: "."})
	if err != nil {
		t.Fatal(err)
	}
	if m.MainPackage != "example.com/fixture" || m.Format != codetools.SnapshotFormat || m.GOOS == "" || m.GOARCH == "" {
		t.Errorf("manifest = %+v", m)
	}
	// Main module packages only; fmt (standard library) is excluded.
	var paths []string
	for _, p := range m.Packages {
		paths = append(paths, p.ImportPath)
		for _, f := range p.Files {
			if f.Name == "tagged.go" {
				t.Error("tagged.go copied without -tags fixturetag")
			}
			data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f.Path)))
			if err != nil {
				t.Fatal(err)
			}
			orig, _ := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, "example.com/fixture"), "/"), f.Name))
			sum := sha256.Sum256(orig)
			if string(data) != string(orig) || f.SHA256 != hex.EncodeToString(sum[:]) || !strings.HasSuffix(f.Path, ".go"+codetools.SourceSuffix) {
				t.Errorf("%s: copy or sha256 mismatch", f.Path)
			}
		}
	}
	if strings.Join(paths, ",") != "example.com/fixture,example.com/fixture/sub" {
		t.Errorf("packages = %v", paths)
	}
	// The snapshot loads in a catalog.
	c := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(out)})
	d, err := c.Definition(context.Background(), codetools.DefinitionQuery{Name: "example.com/fixture.(*T).Ptr"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Source != codetools.SourceSnapshot || !strings.Contains(d.Definition, "func (t *T) Ptr() int") {
		t.Errorf("definition = %+v", d)
	}
	if _, err := c.Definition(context.Background(), codetools.DefinitionQuery{Name: "example.com/fixture.Tagged"}); !errors.Is(err, codetools.ErrUnknownName) {
		t.Errorf("Tagged without tag: %v", err)
	}
}

func TestGenerateTagsAndStd(t *testing.T) {
	dir := fixtureDir(t)
	out := t.TempDir()
	m, err := generate(context.Background(), config{dir: dir, out: out, pkg: ".", tags: "fixturetag", std: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Tags, ",") != "fixturetag" {
		t.Errorf("tags = %v", m.Tags)
	}
	var haveTagged, haveFmt bool
	for _, p := range m.Packages {
		haveFmt = haveFmt || (p.ImportPath == "fmt" && p.Standard)
		for _, f := range p.Files {
			haveTagged = haveTagged || f.Name == "tagged.go"
		}
	}
	if !haveTagged || !haveFmt {
		t.Errorf("tagged.go copied: %v, fmt included: %v", haveTagged, haveFmt)
	}
	c := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(out)})
	d, err := c.Definition(context.Background(), codetools.DefinitionQuery{Name: "fmt.Println"})
	if err != nil {
		t.Fatal(err)
	}
	if d.SourceFile != "$GOROOT/src/fmt/print.go" || !strings.Contains(d.Definition, "func Println(") {
		t.Errorf("fmt.Println: %s %q", d.SourceFile, d.Definition)
	}
	if _, err := generate(context.Background(), config{dir: dir, out: out, pkg: "./sub"}); err == nil {
		t.Error("generate accepted a non-main package")
	}
}
