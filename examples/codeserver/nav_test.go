package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codeindex"
)

// budgetRefsShare is the bound on what references add to this
// repository's snapshot.
const budgetRefsShare = 0.30

// TestReferencesSize measures what the references add to this service's
// snapshot (as go generate writes it): the references section of
// index.txt against every other byte of the snapshot. It prints the
// figures and fails above 30 %.
func TestReferencesSize(t *testing.T) {
	var total, refs, other int64
	err := filepath.WalkDir(snapshotDir(t), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".mcpsnapshot" || d.Name() == "README.md" {
			return err
		}
		data, err := readSnapshotFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(d.Name(), ".gz")
		total += int64(len(data))
		if name == "index.txt" {
			if i := bytes.Index(data, []byte("\n"+codeindex.RefsHeader)); i >= 0 {
				refs += int64(len(data) - i - 1)
			}
		} else if filepath.Ext(name) == ".txt" && filepath.Ext(name[:len(name)-4]) != ".go" {
			other += int64(len(data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if refs == 0 {
		t.Fatal("the snapshot holds no references")
	}
	without := total - refs
	share := float64(refs) / float64(without)
	fmt.Printf("\nsnapshot of examples/codeserver: %d bytes without references (%d of them files other than Go), "+
		"references %d bytes: +%.1f %% (budget %.0f %%)\n\n", without, other, refs, 100*share, 100*budgetRefsShare)
	if share > budgetRefsShare {
		t.Errorf("references add %.1f %% to the snapshot, budget %.0f %%", 100*share, 100*budgetRefsShare)
	}
}

// readSnapshotFile reads a file of a generated snapshot, decompressed if
// it is stored compressed (.gz), as the catalog reads it.
func readSnapshotFile(p string) ([]byte, error) {
	data, err := os.ReadFile(p)
	if err != nil || !strings.HasSuffix(p, ".gz") {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return io.ReadAll(zr)
}

// navQueries are lookups an agent debugging this service makes.
var navQueries = []codetools.ReferencesQuery{
	{Name: "github.com/embedmcp/mcp.(*Server).Handle", Relation: codetools.RelationCallers},
	{Name: "github.com/embedmcp/mcp.(*Server).Handle", Relation: codetools.RelationCallees},
	{Name: "github.com/embedmcp/mcp/codetools.invalidf", Relation: codetools.RelationCallers},
	{Name: "mcp.Authorizer", Relation: codetools.RelationImplementations},
	{Name: "github.com/embedmcp/mcp.Tool", Relation: codetools.RelationImplementations},
	{Name: "github.com/embedmcp/mcp/codetools.Catalog", Relation: codetools.RelationMethods},
	{Name: "github.com/embedmcp/mcp.Caller", Relation: codetools.RelationReferences},
	{Name: "github.com/embedmcp/mcp/codetools.Options.Snapshot", Relation: codetools.RelationReferences},
	{Name: "(*Handler).ServeHTTP", Relation: codetools.RelationCallers},
	{Name: "github.com/embedmcp/mcp.Authorizer.Allowed", Relation: codetools.RelationImplementations},
}

// BenchmarkReferences times code_references lookups over this service's
// snapshot once its references are loaded, and reports the median and
// 90th percentile latency of the lookups (p50-µs, p90-µs), the median of a
// code_search of the same names in the same run (search-p50-µs, the
// baseline), the cost of loading the references (load-ms, refs-MB kept),
// and fails when the median lookup exceeds 1 ms. ns/op covers a lookup
// and its baseline search.
func BenchmarkReferences(b *testing.B) {
	c := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(snapshotDir(b))})
	ctx := context.Background()
	if _, err := c.Warm(ctx); err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	if _, err := c.References(ctx, navQueries[0]); err != nil {
		b.Fatal(err)
	}
	load := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	for _, q := range navQueries { // every query answers, and the line texts are cached
		if _, err := c.References(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	var lat, base []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := navQueries[i%len(navQueries)]
		t0 := time.Now()
		if _, err := c.References(ctx, q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		// The baseline, in the same run: code_search of the same name.
		t0 = time.Now()
		if _, err := c.Search(ctx, codetools.SearchQuery{Query: q.Name, Limit: 10}); err != nil {
			b.Fatal(err)
		}
		base = append(base, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	slices.Sort(base)
	p50, p90 := lat[len(lat)/2], lat[len(lat)*9/10]
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(p90.Microseconds()), "p90-µs")
	b.ReportMetric(float64(base[len(base)/2].Microseconds()), "search-p50-µs")
	b.ReportMetric(float64(load.Microseconds())/1000, "load-ms")
	b.ReportMetric(float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc))/(1<<20), "refs-MB")
	if p50 > time.Millisecond {
		b.Errorf("a lookup takes %v at the median, budget 1 ms", p50)
	}
}

// TestCodeServerNavigates follows this service's code as an agent with a
// stack trace would: absolute build paths, the module's go.mod, callers,
// the handler of its route; and a path outside the snapshot is refused.
func TestCodeServerNavigates(t *testing.T) {
	url := start(t, "")
	abs, err := filepath.Abs("main.go")
	if err != nil {
		t.Fatal(err)
	}
	line := lineOf(t, "func newMux(")
	f := call(t, url, "", "code_file", fmt.Sprintf(`{"path":%q}`, fmt.Sprintf("%s:%d +0x1d", abs, line)))
	if f["path"] != "github.com/embedmcp/mcp/examples/codeserver/main.go" || !bytes.Contains([]byte(f["text"].(string)), []byte("func newMux(")) {
		t.Errorf("code_file of a stack-trace path: %v", f)
	}
	root, _ := filepath.Abs(filepath.Join("..", "..", "go.mod"))
	mod := call(t, url, "", "code_file", fmt.Sprintf(`{"path":%q}`, root))
	if mod["path"] != "github.com/embedmcp/mcp/go.mod" || !bytes.HasPrefix([]byte(mod["text"].(string)), []byte("module github.com/embedmcp/mcp\n")) {
		t.Errorf("code_file of the module's go.mod by its build path: %v", mod)
	}
	for _, p := range []string{"/etc/passwd", filepath.Join(filepath.Dir(abs), "..", "..", "..", "etc", "passwd"), "../../go.sum"} {
		status, out := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code_file","arguments":{"path":`+strconv.Quote(p)+`}}}`)
		res, _ := out["result"].(map[string]any)
		if status != 200 || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "not in the snapshot") {
			t.Errorf("code_file %s: %d %v", p, status, out)
		}
	}
	refs := call(t, url, "", "code_references", `{"name":"main.newMux","relation":"callers"}`)
	items, _ := refs["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != "github.com/embedmcp/mcp/examples/codeserver.run" {
		t.Errorf("callers of newMux: %v", refs)
	}
	route := call(t, url, "", "code_search", `{"query":"POST /mcp"}`)
	hits, _ := route["results"].([]any)
	if route["match"] != "route" || len(hits) == 0 || hits[0].(map[string]any)["id"] != "github.com/embedmcp/mcp.(*Handler).ServeHTTP" {
		t.Errorf("the handler of POST /mcp: %v", route)
	}
}
