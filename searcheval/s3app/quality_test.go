package s3app

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/embedmcp/mcp/testsupport/searcheval"
)

// snapshotDir holds the -deps snapshot of s3server, written once by
// TestMain with mcpsnapshot, as an adopter's go generate would.
var snapshotDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "s3snapshot")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	snapshotDir = filepath.Join(dir, "snapshot")
	if err := WriteSnapshot("..", snapshotDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func client(t *testing.T) *searcheval.Client {
	t.Helper()
	srv, _, err := NewService(os.DirFS(snapshotDir), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return &searcheval.Client{Server: srv, Caller: searcheval.Caller(Grants)}
}

// evaluate runs a query set with limit 10 and measures the answers.
func evaluate(t *testing.T, c *searcheval.Client, file string) ([]searcheval.Outcome, searcheval.Sizes) {
	t.Helper()
	outs, sizes, err := c.EvaluateFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return outs, sizes
}

// repositoryClient serves the code tools over this repository's code as
// the codeserver example embeds it (its snapshot, generated into a
// temporary directory, and its main module).
func repositoryClient(t *testing.T) *searcheval.Client {
	t.Helper()
	srv, err := RepositoryServer("../..", filepath.Join(t.TempDir(), "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	return &searcheval.Client{Server: srv, Caller: searcheval.Caller(Grants)}
}

// TestSearchQuality runs the code_search evaluation: the gofakes3 set
// (../testdata/gofakes3.tsv) over this service, and, for the targets, the
// set over this repository's code (../../examples/codeserver/testdata/
// search-eval.tsv, whose own test runs it in the codeserver). It prints
// the tables the test command shows (docs/evaluation.md). Targets over both sets: top-3 ≥
// 90 %, top-1 ≥ 70 %; a 10-hit answer ≤ 2 KB p50, a zero-hit answer ≤
// 1 KB.
func TestSearchQuality(t *testing.T) {
	s3, s3sizes := evaluate(t, client(t), "../testdata/gofakes3.tsv")
	repo, repoSizes := evaluate(t, repositoryClient(t), "../../examples/codeserver/testdata/search-eval.tsv")
	both := append(append([]searcheval.Outcome(nil), repo...), s3...)
	fmt.Printf("\ncode_search over gofakes3 v1.2.0 (%d queries):\n\n%s\n%s\nanswer sizes: %s\n",
		len(s3), searcheval.Summary("gofakes3", s3), searcheval.Table(s3), s3sizes)
	fmt.Printf("\ncode_search over both sets (%d queries; this repository: %d, answer sizes %s):\n\n%s\n",
		len(both), len(repo), repoSizes, searcheval.Summary("both", both))
	if err := searcheval.CheckRates(both); err != nil {
		t.Error(err)
	}
	sizes := searcheval.Sizes{Full: append(append([]int(nil), s3sizes.Full...), repoSizes.Full...),
		Zero: append(append([]int(nil), s3sizes.Zero...), repoSizes.Zero...)}
	fmt.Printf("answer sizes over both sets: %s\n\n", sizes)
	if err := sizes.Check(); err != nil {
		t.Error(err)
	}
}
