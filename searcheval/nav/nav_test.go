// Package nav holds the code-navigation evaluation: code_references over
// this repository's code and over the search evaluation's real service
// (gofakes3), compared relation by relation with what go/types computes,
// and code_search's route answers for a chi router.
package nav

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codesnap"
	"github.com/embedmcp/mcp/searcheval/navcheck"
	"github.com/embedmcp/mcp/searcheval/s3app"
)

// packagesOf returns the import paths of a snapshot's packages, those of
// the standard library left out.
func packagesOf(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, codesnap.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	var man codesnap.Manifest
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range man.Packages {
		if !p.Standard {
			out = append(out, p.ImportPath)
		}
	}
	return out
}

// check runs navcheck over the snapshot in snap, loading its packages from
// dir, and prints the table.
func check(t *testing.T, title, dir, snap string) {
	t.Helper()
	pkgs := packagesOf(t, snap)
	cat := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(snap)})
	rs, err := navcheck.Check(context.Background(), dir, pkgs, cat)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("\ncode_references over %s (%d packages) against go/types:\n\n%s\n", title, len(pkgs), navcheck.Table(rs))
	if f := navcheck.Failures(rs); len(f) > 0 {
		t.Errorf("code_references differs from go/types:\n%s", strings.Join(f, "\n"))
	}
}

// TestRelationsRepository checks every relation of every declaration of
// this repository's code as the codeserver example embeds it (its
// snapshot, as go generate writes it, here into a temporary directory).
func TestRelationsRepository(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "snapshot")
	if err := s3app.WriteRepositorySnapshot("../..", snap); err != nil {
		t.Fatal(err)
	}
	check(t, "this repository (the snapshot of examples/codeserver)", "../..", snap)
}

// TestRelationsGofakes3 checks every relation of the real service of the
// search evaluation: gofakes3 and the other modules of its -deps snapshot.
func TestRelationsGofakes3(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "snapshot")
	if err := s3app.WriteSnapshot("..", snap); err != nil {
		t.Fatal(err)
	}
	check(t, "gofakes3 v1.2.0 and its -deps snapshot", "..", snap)
}
