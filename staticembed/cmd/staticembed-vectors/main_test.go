package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codesnap"
	"github.com/embedmcp/mcp/staticembed"
)

// The vectors written for a snapshot of this command are read by a
// catalog whose Embedder is the same table, and by no other.
func TestVectorsOfSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs mcpsnapshot")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot", "-o", dir, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcpsnapshot: %v\n%s", err, out)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), codesnap.VectorsName+": ") || strings.HasPrefix(out.String(), codesnap.VectorsName+": 0 ") {
		t.Errorf("output %q", out.String())
	}
	search := func(em codetools.Embedder) string {
		c := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(dir), Embedder: em})
		defer c.Close()
		res, err := c.Search(context.Background(), codetools.SearchQuery{Query: "write the vectors of a snapshot"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Note
	}
	if note := search(staticembed.Default()); strings.Contains(note, "not used") {
		t.Errorf("same table: note %q", note)
	}
	other, err := staticembed.Load(os.DirFS("../../testdata"), "tiny.semb")
	if err != nil {
		t.Fatal(err)
	}
	if note := search(other); !strings.Contains(note, "precomputed vectors not used") {
		t.Errorf("another table: note %q", note)
	}
}

// Bad arguments and unreadable inputs are errors that say so.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage"},
		{[]string{"-table", filepath.Join(t.TempDir(), "none.semb"), t.TempDir()}, 1, "none.semb"},
		{[]string{t.TempDir()}, 1, "staticembed-vectors:"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), tc.args, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%q: exit %d, %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}
