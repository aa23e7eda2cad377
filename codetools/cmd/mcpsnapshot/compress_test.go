package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRewritesPlainSnapshot: a snapshot stored plain, as an earlier
// mcpsnapshot wrote it, is rewritten compressed: the plain files are
// removed, -check then passes, and the content reads the same.
func TestRewritesPlainSnapshot(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{"go.mod": "module example.com/plain\n\ngo 1.26\n", "main.go": embeddingMain})
	cfg := config{dir: dir, out: "snapshot", pkg: "."}
	if _, err := runConfig(ctx, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	snapDir := filepath.Join(dir, "snapshot")
	// Store every compressed file plain, as the earlier form did.
	var plain []string
	for name, data := range readTree(t, snapDir) {
		if !strings.HasSuffix(name, ".gz") {
			continue
		}
		content, err := fs.ReadFile(snapFS(snapDir), strings.TrimSuffix(name, ".gz"))
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 || string(data) == string(content) {
			t.Fatalf("%s is not compressed", name)
		}
		p := filepath.Join(snapDir, filepath.FromSlash(name))
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(p, ".gz"), content, 0o644); err != nil {
			t.Fatal(err)
		}
		plain = append(plain, strings.TrimSuffix(name, ".gz"))
	}
	if len(plain) < 2 {
		t.Fatalf("compressed files: %v", plain)
	}
	check := cfg
	check.check = true
	if _, err := runConfig(ctx, check, io.Discard); err == nil {
		t.Error("-check passes on a snapshot stored plain")
	}
	if _, err := runConfig(ctx, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, name := range plain {
		if _, err := os.Stat(filepath.Join(snapDir, filepath.FromSlash(name))); err == nil {
			t.Errorf("%s stored plain was kept", name)
		}
		if _, err := os.Stat(filepath.Join(snapDir, filepath.FromSlash(name)+".gz")); err != nil {
			t.Errorf("%s not rewritten compressed: %v", name, err)
		}
	}
	if _, err := runConfig(ctx, check, io.Discard); err != nil {
		t.Errorf("-check after the rewrite: %v", err)
	}
}
