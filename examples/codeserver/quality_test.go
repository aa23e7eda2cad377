package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/embedmcp/mcp/testsupport/searcheval"
)

func qualityClient(t *testing.T) *searcheval.Client {
	t.Helper()
	srv, _, con, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), os.DirFS(snapshotDir(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = con.Close() })
	return &searcheval.Client{Server: srv, Caller: caller()}
}

// TestSearchQuality runs the code_search evaluation set over this
// repository's code (testdata/search-eval.tsv, see docs/evaluation.md)
// and prints its tables. Targets: top-3 ≥ 90 %, top-1 ≥ 70 %; a 10-hit
// answer ≤ 2 KB p50, a zero-hit answer ≤ 1 KB.
func TestSearchQuality(t *testing.T) {
	outs, sizes, err := qualityClient(t).EvaluateFile("testdata/search-eval.tsv")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("\ncode_search over this repository (%d queries):\n\n%s\n%s\nanswer sizes: %s\n\n",
		len(outs), searcheval.Summary("embedmcp", outs), searcheval.Table(outs), sizes)
	if err := searcheval.CheckRates(outs); err != nil {
		t.Error(err)
	}
	if err := sizes.Check(); err != nil {
		t.Error(err)
	}
}

// TestToolDetailQuality runs the tool_detail evaluation set over the tools
// this example registers (testdata/tool-eval.tsv) and prints its table.
// Targets: ≥ 95 % right, no wrong single answer.
func TestToolDetailQuality(t *testing.T) {
	data, err := os.ReadFile("testdata/tool-eval.tsv")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := searcheval.ParsePhrases(data)
	if err != nil {
		t.Fatal(err)
	}
	c := qualityClient(t)
	outs, err := searcheval.EvaluateTools(ps, func(p searcheval.Phrase) (searcheval.ToolAnswer, error) {
		return c.Detail(p.Text)
	})
	if err != nil {
		t.Fatal(err)
	}
	right, wrong, err := searcheval.CheckTools(outs)
	fmt.Printf("\ntool_detail over the codeserver's tools: %d of %d right (%s), %d wrong single\n\n%s\n",
		right, len(outs), searcheval.Pct(right, len(outs)), wrong, searcheval.ToolTable(outs))
	if err != nil {
		t.Error(err)
	}
}
