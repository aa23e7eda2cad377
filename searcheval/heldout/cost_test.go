package heldout

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// largeService links every service of the evaluation: its -deps snapshot
// is the large one of TestStartupCost.
var largeService = Service{Name: "all services", Main: "./cmd/allservices"}

// withoutWords copies the snapshot in src to dst with the search words
// left out of its index, as an mcpsnapshot of an earlier version wrote it.
func withoutWords(t *testing.T, src, dst string) (words int) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == codesnap.IndexName {
			var out bytes.Buffer
			for line := range bytes.Lines(data) {
				if bytes.HasPrefix(line, []byte("w ")) || string(line) == "words\n" {
					words += len(line)
					continue
				}
				out.Write(line)
			}
			data = out.Bytes()
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return words
}

func dirSize(t *testing.T, dir string) (size int64, files int) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
				files++
			}
		}
		return nil
	})
	return size, files
}

func cpuSeconds() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/user:cpu-seconds"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64() + s[1].Value.Float64()
}

// startup measures a catalog over the snapshot in dir: the first
// code_search after start (which builds it), the same search and a
// literal search on the warm catalog (median of 21), and Warm's report.
func startup(t *testing.T, dir string) (first, warmTerms, warmLiteral time.Duration, cpu float64, st codetools.BuildStats, inuse uint64) {
	t.Helper()
	ctx := context.Background()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(dir)})
	cpu0 := cpuSeconds()
	t0 := time.Now()
	res, err := c.Search(ctx, codetools.SearchQuery{Query: "maximum size of a packet a client may send", Limit: 10})
	first = time.Since(t0)
	cpu = cpuSeconds() - cpu0
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("first search: %v, %d results", err, len(res.Results))
	}
	if st, err = c.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	if st.SnapshotError != "" {
		t.Fatalf("snapshot: %s", st.SnapshotError)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if m1.HeapInuse > m0.HeapInuse {
		inuse = m1.HeapInuse - m0.HeapInuse
	}
	median := func(q string) time.Duration {
		var ds []time.Duration
		for range 21 {
			t0 := time.Now()
			if _, err := c.Search(ctx, codetools.SearchQuery{Query: q, Limit: 10}); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	warmTerms = median("maximum size of a packet a client may send")
	warmLiteral = median("NewServer")
	runtime.KeepAlive(c)
	return first, warmTerms, warmLiteral, cpu, st, inuse
}

// TestStartupCost reports what the search index costs at start-up on the
// -deps snapshot of every service of the evaluation (about 500 files):
// the snapshot's growth from the search words mcpsnapshot computes, the
// first code_search after start (as a ratio to a literal search on the
// warm catalog, and in absolute time), the CPU time and memory of the
// build as Catalog.Warm reports them, and the same for the snapshot
// without the words, as an earlier mcpsnapshot wrote it (the catalog then
// tokenizes the source itself). It checks that both snapshots load and
// answer, and that the words grow the snapshot by at most 40 %; the times
// are printed, not checked (2 shared cores).
func TestStartupCost(t *testing.T) {
	tmp := t.TempDir()
	snap := filepath.Join(tmp, "snapshot")
	cmd := []string{"run", "github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot", "-deps", "-o", snap, largeService.Main}
	if out, err := goCommand("..", cmd...); err != nil {
		t.Fatalf("mcpsnapshot: %v\n%s", err, out)
	}
	old := filepath.Join(tmp, "old")
	words := withoutWords(t, snap, old)
	size, files := dirSize(t, snap)
	oldSize, _ := dirSize(t, old)
	growth := 100 * float64(size-oldSize) / float64(oldSize)
	fmt.Printf("\nstart-up cost of the search index, -deps snapshot of every evaluated service: %d files, %.1f MB;"+
		" search words %d KB, growth %.1f %% (target ≤ 40 %%)\n\n", files, float64(size)/1e6, words/1000, growth)
	fmt.Println("| snapshot | first code_search | CPU | warm phrase search | warm literal search | first / literal | Warm: build | index part | allocated | retained | heap in use |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, s := range []struct{ name, dir string }{{"with words (this mcpsnapshot)", snap}, {"without words (earlier mcpsnapshot)", old}} {
		first, terms, lit, cpu, st, inuse := startup(t, s.dir)
		fmt.Printf("| %s | %v | %.2f s | %v | %v | %.0f× | %v | %v | %.1f MB | %.1f MB | %.1f MB |\n", s.name,
			first.Round(time.Millisecond), cpu, terms.Round(10*time.Microsecond), lit.Round(10*time.Microsecond),
			float64(first)/float64(lit), st.Duration.Round(time.Millisecond), st.IndexDuration.Round(time.Millisecond),
			float64(st.AllocatedBytes)/1e6, float64(st.RetainedBytes)/1e6, float64(inuse)/1e6)
	}
	fmt.Println()
	if growth > 40 {
		t.Errorf("the search words grow the snapshot by %.1f %%, want ≤ 40 %%", growth)
	}
}
