package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

var ctx = context.Background()

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
}

func fixtureDir(t *testing.T) string {
	t.Helper()
	needGo(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "fixture"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// generateTo runs mcpsnapshot for package pkg of module dir into out.
func generateTo(t *testing.T, dir, out string, sel codetools.Selection, args ...string) *codesnap.Manifest {
	t.Helper()
	cfg := config{dir: dir, out: out, pkg: ".", sel: sel}
	if len(args) > 0 {
		cfg.tags = args[0]
	}
	m, err := runConfig(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGenerate(t *testing.T) {
	dir := fixtureDir(t)
	out := t.TempDir()
	m := generateTo(t, dir, out, codetools.Selection{})
	if m.MainPackage != "example.com/fixture" || m.Format != codesnap.Format || m.GOOS == "" || m.GOARCH == "" || m.GoVersion != "" {
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
			data, err := fs.ReadFile(snapFS(out), f.Path)
			if err != nil {
				t.Fatal(err)
			}
			orig, _ := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, "example.com/fixture"), "/"), f.Name))
			sum := sha256.Sum256(orig)
			if string(data) != string(orig) || f.SHA256 != hex.EncodeToString(sum[:]) || !strings.HasSuffix(f.Path, ".go"+codesnap.SourceSuffix) {
				t.Errorf("%s: copy or sha256 mismatch", f.Path)
			}
		}
	}
	if strings.Join(paths, ",") != "example.com/fixture,example.com/fixture/sub" {
		t.Errorf("packages = %v", paths)
	}
	// The index lists every declaration with the lines and spans of the source.
	if _, err := os.Stat(filepath.Join(out, codesnap.IndexName+codesnap.CompressedSuffix)); err != nil {
		t.Errorf("the index is not stored compressed: %v", err)
	}
	idx, err := snapFS(out).Open(codesnap.IndexName)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	r, err := codeindex.NewReader(idx)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]codeindex.Decl{}
	for {
		file, d, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		found[file+" "+d.Name] = d
	}
	shapes, _ := os.ReadFile(filepath.Join(dir, "shapes.go"))
	ptr := found["src/example.com/fixture/shapes.go.txt (*T).Ptr"]
	if ptr.Kind != codeindex.Method || !strings.HasPrefix(string(shapes[ptr.Start:ptr.End]), "// Ptr doubles") ||
		!strings.HasSuffix(string(shapes[ptr.Start:ptr.End]), "return t.N\n}") {
		t.Errorf("(*T).Ptr = %+v: %q", ptr, shapes[ptr.Start:ptr.End])
	}
	if _, ok := found["src/example.com/fixture/main.go.txt init.1"]; !ok {
		t.Error("second init function not indexed as init.1")
	}
	// The snapshot loads in a catalog.
	c := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(out)})
	d, err := c.Definition(ctx, codetools.DefinitionQuery{Name: "example.com/fixture.(*T).Ptr"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Source != codetools.SourceSnapshot || !strings.Contains(d.Definition, "func (t *T) Ptr() int") {
		t.Errorf("definition = %+v", d)
	}
	if _, err := c.Definition(ctx, codetools.DefinitionQuery{Name: "example.com/fixture.Tagged"}); !errors.Is(err, codetools.ErrUnknownName) {
		t.Errorf("Tagged without tag: %v", err)
	}
}

func TestGenerateTagsAndStd(t *testing.T) {
	dir := fixtureDir(t)
	out := t.TempDir()
	m := generateTo(t, dir, out, codetools.Selection{Std: true}, "fixturetag")
	if strings.Join(m.Tags, ",") != "fixturetag" || m.GoVersion == "" {
		t.Errorf("tags = %v, goVersion = %q", m.Tags, m.GoVersion)
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
	d, err := c.Definition(ctx, codetools.DefinitionQuery{Name: "fmt.Println"})
	if err != nil {
		t.Fatal(err)
	}
	if d.SourceFile != "$GOROOT/src/fmt/print.go" || !strings.Contains(d.Definition, "func Println(") {
		t.Errorf("fmt.Println: %s %q", d.SourceFile, d.Definition)
	}
	cfg := config{dir: dir, out: out, pkg: "./sub"}
	if _, err := generate(ctx, cfg); err == nil {
		t.Error("generate accepted a non-main package")
	}
}

// writeModule writes files (slash paths) into a new temporary directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const embeddingMain = `package main

import (
	"embed"
	"fmt"
)

//go:generate go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -o snapshot .

//go:embed snapshot
var snapshot embed.FS

// Hello greets.
func Hello() string { return "hello" }

func main() { fmt.Println(Hello(), snapshot) }
`

// TestFirstRunAndIdempotence generates into a module whose main package
// embeds a snapshot directory that does not exist yet, then again, and
// checks that the second run and -check change nothing, and that -check
// sees an edit.
func TestFirstRunAndIdempotence(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{"go.mod": "module example.com/first\n\ngo 1.26\n", "main.go": embeddingMain})
	cfg := config{dir: dir, out: "snapshot", pkg: "."}
	var stdout bytes.Buffer
	if _, err := runConfig(ctx, cfg, &stdout); err != nil {
		t.Fatalf("first run: %v", err)
	}
	snapDir := filepath.Join(dir, "snapshot")
	before := readTree(t, snapDir)
	if main, err := fs.ReadFile(snapFS(snapDir), "src/example.com/first/main.go.txt"); err != nil || string(main) != embeddingMain ||
		before[markerName] == "" || before["src/example.com/first/main.go.txt.gz"] == "" {
		t.Fatalf("first run wrote %v", keys(before))
	}
	stdout.Reset()
	if _, err := runConfig(ctx, cfg, &stdout); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "; 0 files changed") {
		t.Errorf("second run: %s", stdout.String())
	}
	// The index is compressed before it is written: the count of its
	// declarations is still said.
	if !regexp.MustCompile(`mcpsnapshot: [1-9][0-9]* declarations`).MatchString(stdout.String()) {
		t.Errorf("second run does not count the declarations: %s", stdout.String())
	}
	if after := readTree(t, snapDir); !equalTrees(before, after) {
		t.Error("second run changed the snapshot")
	}
	cfg.check = true
	if _, err := runConfig(ctx, cfg, io.Discard); err != nil {
		t.Errorf("-check on a fresh snapshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(strings.Replace(embeddingMain, `"hello"`, `"hi"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runConfig(ctx, cfg, io.Discard)
	var stale *staleError
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), "differs src/example.com/first/main.go.txt.gz") ||
		!strings.Contains(err.Error(), "differs manifest.json") {
		t.Errorf("-check after an edit: %v", err)
	}
	t.Chdir(dir)
	var stderr bytes.Buffer
	if code := cli(ctx, []string{"-check", "-o", "snapshot"}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "out of date") {
		t.Errorf("cli -check: exit status %d, %s", code, stderr.String())
	}
	if after := readTree(t, snapDir); !equalTrees(before, after) {
		t.Error("-check wrote files")
	}
}

// TestOnlyOwnDirectory checks that mcpsnapshot refuses a directory it did
// not create and, in its own, removes only what its manifest listed.
func TestOnlyOwnDirectory(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{"go.mod": "module example.com/own\n\ngo 1.26\n",
		"main.go": strings.Replace(embeddingMain, "//go:embed snapshot", "//go:embed src", 1), "src/keep.txt": "mine"})
	_, err := runConfig(ctx, config{dir: dir, out: ".", pkg: "."}, io.Discard)
	if !errors.Is(err, errNotOurs) {
		t.Fatalf("-o . in a module: %v", err)
	}
	_, err = runConfig(ctx, config{dir: dir, out: "src", pkg: "."}, io.Discard)
	if !errors.Is(err, errNotOurs) {
		t.Fatalf("-o src over a foreign directory: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "src", "keep.txt")); err != nil || string(data) != "mine" {
		t.Fatalf("foreign file touched: %q %v", data, err)
	}
	// In its own directory, foreign files stay and stale sources go.
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(embeddingMain), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config{dir: dir, out: "snapshot", pkg: "."}
	if _, err := runConfig(ctx, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	snapDir := filepath.Join(dir, "snapshot")
	extra := filepath.Join(snapDir, "src", "notes.md")
	if err := os.WriteFile(extra, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extra.go"), []byte("package main\n\nfunc extra() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runConfig(ctx, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(snapDir, "src", "example.com", "own", "extra.go.txt.gz")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "extra.go")); err != nil {
		t.Fatal(err)
	}
	if _, err := runConfig(ctx, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(snapDir, "src", "example.com", "own", "extra.go.txt.gz")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale source kept: %v", err)
	}
	if _, err := os.Stat(extra); err != nil {
		t.Errorf("foreign file in the snapshot directory removed: %v", err)
	}
}

// TestSelection checks -deps, -modules and -exclude over a module with
// two dependencies replaced by local directories.
func TestSelection(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{
		"app/go.mod": "module example.com/app\n\ngo 1.26\n\nrequire (\n\texample.com/a v0.0.0-00010101000000-000000000000\n\texample.com/b v0.0.0-00010101000000-000000000000\n)\n\n" +
			"replace example.com/a => ../a\n\nreplace example.com/b => ../b\n",
		"app/main.go":  "package main\n\nimport (\n\t\"example.com/a\"\n\t\"example.com/b/inner\"\n)\n\nfunc main() { a.A(); inner.B() }\n",
		"a/go.mod":     "module example.com/a\n\ngo 1.26\n",
		"a/a.go":       "package a\n\n// A is in module a.\nfunc A() {}\n",
		"b/go.mod":     "module example.com/b\n\ngo 1.26\n",
		"b/inner/b.go": "package inner\n\nimport \"example.com/b/leaf\"\n\n// B is in module b.\nfunc B() { leaf.L() }\n",
		"b/leaf/l.go":  "package leaf\n\n// L is a leaf.\nfunc L() {}\n",
	})
	app := filepath.Join(dir, "app")
	pkgsOf := func(sel codetools.Selection) string {
		m := generateTo(t, app, t.TempDir(), sel)
		var p []string
		for _, mp := range m.Packages {
			p = append(p, mp.ImportPath)
		}
		return strings.Join(p, ",")
	}
	for _, tt := range []struct {
		sel  codetools.Selection
		want string
	}{
		{codetools.Selection{}, "example.com/app"},
		{codetools.Selection{Deps: true}, "example.com/a,example.com/app,example.com/b/inner,example.com/b/leaf"},
		{codetools.Selection{Modules: []string{"example.com/b"}}, "example.com/app,example.com/b/inner,example.com/b/leaf"},
		{codetools.Selection{Modules: []string{"example.com/..."}}, "example.com/a,example.com/app,example.com/b/inner,example.com/b/leaf"},
		{codetools.Selection{Deps: true, Exclude: []string{"example.com/b/leaf"}}, "example.com/a,example.com/app,example.com/b/inner"},
		{codetools.Selection{Deps: true, Exclude: []string{"example.com/b"}}, "example.com/a,example.com/app"},
	} {
		if got := pkgsOf(tt.sel); got != tt.want {
			t.Errorf("%s: packages %s, want %s", tt.sel.String(), got, tt.want)
		}
	}
	m := generateTo(t, app, t.TempDir(), codetools.Selection{Deps: true})
	for _, mm := range m.Modules {
		if mm.Path == "example.com/a" && (!mm.Local || mm.Replace != "../a") {
			t.Errorf("module a = %+v", mm)
		}
	}
	if code := cli(ctx, []string{"-modules", "bad pattern"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("bad -modules pattern: exit status %d", code)
	}
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// snapFS is the snapshot written into dir as a catalog reads it: files
// stored compressed are read under their manifest names.
func snapFS(dir string) fs.FS { return snapshot.NewFS(os.DirFS(dir)) }
