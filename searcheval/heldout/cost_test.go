package heldout

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
		if rel == codesnap.IndexName+codesnap.CompressedSuffix {
			// Stored compressed: written back plain, which a catalog reads too.
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return err
			}
			if data, err = io.ReadAll(zr); err != nil {
				return err
			}
			rel = codesnap.IndexName
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

// cost is what a catalog over one snapshot costs at start-up.
type cost struct {
	// first is the first code_search after start, which builds the
	// catalog, and firstCPU the process's CPU time meanwhile; built is
	// the number of packages whose words it built, of pkgs (an older
	// snapshot).
	first       time.Duration
	firstCPU    float64
	built, pkgs int
	// rest is the Warm that follows it: over an older snapshot, the
	// words of the other packages and the index built again.
	rest, restCPU time.Duration
	// warmTerms and warmLiteral are a phrase and a literal search on the
	// warm catalog (medians of 21), literalCPU the CPU time of the literal
	// search (the mean of 200).
	warmTerms, warmLiteral time.Duration
	literalCPU             float64
	// warm, warmCPU, st and inuse are Warm on a fresh catalog: its wall
	// and CPU time, its report and the heap it leaves in use.
	warm    time.Duration
	warmCPU float64
	st      codetools.BuildStats
	inuse   uint64
	// top are the first results of costQueries on the warm catalog.
	top [][]string
}

// costQueries are searched on each warm catalog: the snapshot without
// words, once its words are built, must answer them as the one with.
var costQueries = []string{"maximum size of a packet a client may send", "NewServer", "parse the request body",
	"bucket not found", "load packages with their syntax", "handshake timeout", "authentication failed",
	"publish a retained message", "write a cpu profile", "expire keys"}

const phraseQuery = "maximum size of a packet a client may send"

// measure measures a catalog over the snapshot in dir.
func measure(t *testing.T, dir string) (c cost) {
	t.Helper()
	ctx := context.Background()
	opts := &codetools.Options{Snapshot: os.DirFS(dir)}

	// The first search after start, then the rest of the build.
	cat := codetools.NewCatalog(opts)
	cpu0, t0 := cpuSeconds(), time.Now()
	res, err := cat.Search(ctx, codetools.SearchQuery{Query: phraseQuery, Limit: 10})
	c.first, c.firstCPU = time.Since(t0), cpuSeconds()-cpu0
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("first search: %v, %d results", err, len(res.Results))
	}
	cpu0, t0 = cpuSeconds(), time.Now()
	st, err := cat.Warm(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.built, c.pkgs = st.FirstWordPackages, st.SourceWordPackages
	c.rest, c.restCPU = time.Since(t0), time.Duration((cpuSeconds()-cpu0)*float64(time.Second))
	median := func(q string) time.Duration {
		var ds []time.Duration
		for range 21 {
			t0 := time.Now()
			if _, err := cat.Search(ctx, codetools.SearchQuery{Query: q, Limit: 10}); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	c.warmTerms, c.warmLiteral = median(phraseQuery), median("NewServer")
	cpu0 = cpuSeconds()
	for range 200 {
		if _, err := cat.Search(ctx, codetools.SearchQuery{Query: "NewServer", Limit: 10}); err != nil {
			t.Fatal(err)
		}
	}
	c.literalCPU = (cpuSeconds() - cpu0) / 200
	for _, q := range costQueries {
		res, err := cat.Search(ctx, codetools.SearchQuery{Query: q, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range res.Results {
			ids = append(ids, h.Name)
		}
		c.top = append(c.top, ids)
	}
	runtime.KeepAlive(cat)
	cat = nil

	// Warm on a fresh catalog, as a service calls it at start-up.
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cat = codetools.NewCatalog(opts)
	cpu0, t0 = cpuSeconds(), time.Now()
	if c.st, err = cat.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	c.warm, c.warmCPU = time.Since(t0), cpuSeconds()-cpu0
	if c.st.SnapshotError != "" {
		t.Fatalf("snapshot: %s", c.st.SnapshotError)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if m1.HeapInuse > m0.HeapInuse {
		c.inuse = m1.HeapInuse - m0.HeapInuse
	}
	runtime.KeepAlive(cat)
	return c
}

// Bars of the issue (#24) on the large snapshot with its words. The
// allocation Warm reports covers the sources and the first search index:
// over a snapshot without words, the words built afterwards are not in it.
const (
	// minFiles is the size of snapshot the bars are set for.
	minFiles = 600
	// maxFirstRatio bounds the CPU time of the first code_search as a
	// ratio to that of a literal search on the warm catalog: 1 s over
	// 200 µs, that search's CPU time on the (shared, loaded) 2-core
	// machine the bars were set on. CPU times, as the wall times of a
	// shared machine vary with its load; the wall time is printed.
	maxFirstRatio = 5000
	maxWarmCPU    = 2.0  // seconds of CPU of Catalog.Warm
	maxWarmMemory = 64e6 // bytes Warm allocates, and leaves in use
	maxGrowth     = 40   // % of the snapshot the search words add
)

// TestStartupCost reports what the search index costs at start-up on the
// -deps snapshot of every service of the evaluation linked together with
// the runtime tools and a package loader (over 600 files): the
// snapshot's growth from the search words mcpsnapshot computes, the
// first code_search after start (in absolute time and as a ratio to a
// literal search on the warm catalog), the CPU time and memory of
// Catalog.Warm, and the same for the snapshot without the words, as an
// earlier mcpsnapshot wrote it (the first search then builds the words
// of the host's own packages, Warm those of the others). It fails above
// the bars for the snapshot with its words: the first search's
// CPU time above maxFirstRatio times a warm literal search's, Warm above 2 s of CPU or 64 MB, the words above
// 40 % of the snapshot; and if the snapshot without words, once its words
// are built, answers otherwise than the one with them.
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
	if files < minFiles {
		t.Fatalf("the snapshot has %d files, the bars are set for %d or more", files, minFiles)
	}
	growth := 100 * float64(size-oldSize) / float64(oldSize)
	fmt.Printf("\nstart-up cost of the search index, -deps snapshot of %s: %d files, %.1f MB;"+
		" search words %d KB, growth %.1f %% (bar ≤ %d %%)\n\n", largeService.Main, files, float64(size)/1e6, words/1000, growth, maxGrowth)
	fmt.Println("| snapshot | first code_search | CPU | packages built | first / warm literal (CPU) | rest of the build (Warm after it) | CPU | warm phrase search | warm literal search |" +
		" Warm on a fresh catalog | CPU | allocated | retained (estimate) | heap in use |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var costs []cost
	for _, s := range []struct{ name, dir string }{{"with words (this mcpsnapshot)", snap}, {"without words (earlier mcpsnapshot)", old}} {
		c := measure(t, s.dir)
		costs = append(costs, c)
		built := "-"
		if c.built > 0 {
			built = fmt.Sprintf("%d of %d", c.built, c.pkgs)
		}
		fmt.Printf("| %s | %v | %.2f s | %s | %.0f× | %v | %.2f s | %v | %v | %v | %.2f s | %.1f MB | %.1f MB | %.1f MB |\n", s.name,
			c.first.Round(time.Millisecond), c.firstCPU, built, c.firstCPU/c.literalCPU,
			c.rest.Round(time.Millisecond), c.restCPU.Seconds(), c.warmTerms.Round(10*time.Microsecond), c.warmLiteral.Round(10*time.Microsecond),
			c.warm.Round(time.Millisecond), c.warmCPU, float64(c.st.AllocatedBytes)/1e6, float64(c.st.RetainedBytes)/1e6, float64(c.inuse)/1e6)
	}
	fmt.Printf("\nbars (snapshot with words): first / warm literal ≤ %d× in CPU time (1 s over 200 µs; the literal search took %.0f µs of CPU here),"+
		" Warm ≤ %.0f s CPU and ≤ %.0f MB allocated and in use\n\n", maxFirstRatio, costs[0].literalCPU*1e6, maxWarmCPU, maxWarmMemory/1e6)
	c := costs[0]
	if growth > maxGrowth {
		t.Errorf("the search words grow the snapshot by %.1f %%, want ≤ %d %%", growth, maxGrowth)
	}
	if r := c.firstCPU / c.literalCPU; r > maxFirstRatio {
		t.Errorf("the first code_search took %v (%.2f s of CPU), %.0f× the CPU of a warm literal search (%.0f µs), want ≤ %d×",
			c.first, c.firstCPU, r, c.literalCPU*1e6, maxFirstRatio)
	}
	if c.warmCPU > maxWarmCPU {
		t.Errorf("Warm took %.2f s of CPU, want ≤ %.0f s", c.warmCPU, maxWarmCPU)
	}
	if float64(c.st.AllocatedBytes) > maxWarmMemory || float64(c.inuse) > maxWarmMemory {
		t.Errorf("Warm allocated %.1f MB and left %.1f MB in use, want ≤ %.0f MB", float64(c.st.AllocatedBytes)/1e6, float64(c.inuse)/1e6, maxWarmMemory/1e6)
	}
	if costs[1].built == 0 || costs[1].built >= costs[1].pkgs {
		t.Errorf("the first search on the snapshot without words built the words of %d of %d packages, want some, not all", costs[1].built, costs[1].pkgs)
	}
	for i, q := range costQueries {
		if !slices.Equal(costs[0].top[i], costs[1].top[i]) {
			t.Errorf("%q: %q without words, %q with", q, costs[1].top[i], costs[0].top[i])
		}
	}
}
