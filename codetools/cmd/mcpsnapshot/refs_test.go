package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

func TestSnapshotCarriesGoModAndAssembly(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{
		"go.mod":   "module example.com/asm\n\ngo 1.26\n",
		"data.txt": "secret configuration\n",
		"add.s":    "// add is implemented here.\n",
		"main.go": "package main\n\nimport _ \"embed\"\n\n//go:embed data.txt\nvar data string\n\n" +
			"// add adds, in assembly.\nfunc add(a, b int) int\n\nfunc main() { println(add(1, 2), len(data)) }\n",
	})
	out := filepath.Join(t.TempDir(), "snapshot")
	m := generateTo(t, dir, out, codetools.Selection{})
	if len(m.Modules) != 1 || len(m.Modules[0].Files) != 1 || m.Modules[0].Files[0].Path != "src/example.com/asm/go.mod.txt" {
		t.Errorf("module files: %+v", m.Modules)
	}
	if len(m.Packages) != 1 || len(m.Packages[0].OtherFiles) != 1 || m.Packages[0].OtherFiles[0].Name != "add.s" {
		t.Errorf("package files: %+v", m.Packages)
	}
	mod, err := fs.ReadFile(snapFS(out), "src/example.com/asm/go.mod.txt")
	if err != nil || string(mod) != "module example.com/asm\n\ngo 1.26\n" {
		t.Errorf("go.mod copy: %q %v", mod, err)
	}
	// Embedded files stay out of the snapshot.
	_ = fs.WalkDir(os.DirFS(out), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := fs.ReadFile(snapFS(out), strings.TrimSuffix(p, codesnap.CompressedSuffix)); bytes.Contains(data, []byte("secret configuration")) {
				t.Errorf("%s holds an embedded file", p)
			}
		}
		return nil
	})
	// The references: main calls add.
	f, err := snapFS(out).Open(codesnap.IndexName)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	refs, err := codeindex.ReadRefs(f)
	if err != nil {
		t.Fatal(err)
	}
	var sites []string
	for _, s := range refs.Sites {
		sites = append(sites, refs.Syms[s.From].ID()+" "+string(s.Kind)+" "+refs.Syms[s.To].ID())
	}
	if !slices.Contains(sites, "example.com/asm.main c example.com/asm.add") || !slices.Contains(sites, "example.com/asm.main r example.com/asm.data") {
		t.Errorf("sites: %s", strings.Join(sites, "; "))
	}
}

// TestReferencesWithTypeErrors: a package that does not type-check still
// gets a snapshot, with the references that could be computed, and a
// warning.
func TestReferencesWithTypeErrors(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{
		"go.mod":  "module example.com/broken\n\ngo 1.26\n",
		"main.go": "package main\n\nfunc helper() int { return 1 }\n\nfunc main() { var s string = helper(); println(s) }\n",
	})
	var warn bytes.Buffer
	cfg := config{dir: dir, out: filepath.Join(t.TempDir(), "snapshot"), pkg: ".", warn: &warn}
	if _, err := runConfig(ctx, cfg, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warn.String(), "references may be incomplete") || !strings.Contains(warn.String(), "cannot use helper()") {
		t.Errorf("warning: %q", warn.String())
	}
	f, err := snapFS(cfg.out).Open(codesnap.IndexName)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	refs, err := codeindex.ReadRefs(f)
	if err != nil || len(refs.Sites) == 0 {
		t.Errorf("references: %+v %v", refs, err)
	}
}
