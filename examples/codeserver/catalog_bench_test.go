package main

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/embedmcp/mcp/codetools"
)

// Budgets of the catalog of this service (the issue "codetools on a real
// host"): built from a -deps -std snapshot with at most 2 400 bytes
// allocated per entry (the snapshot covers this repository, so the entries
// grow with its code: 64 MB was the budget at 29 257 entries, 2 294 bytes
// an entry, before the snapshot's files were stored compressed, whose
// decompression costs about 90 bytes an entry) and 16 MB of heap kept; from a -deps snapshot with at most 6.5 MB
// kept (4 MB until the service linked the console and the runtime tools'
// history, some 12 700 functions of its binary alone keeping 3.8 MB, and the
// snapshot carried each declaration's search words, which the catalog
// keeps so that a search index built again after Register has them).
const (
	budgetAllocPerEntry = 2400 // bytes, -deps -std
	budgetKeptDepsStd   = 16 << 20
	budgetKeptDeps      = 13 << 19 // 6.5 MB
)

// snapshotDir generates a snapshot of this package with flags into a
// temporary directory, once per flag set and test binary.
func snapshotDir(tb testing.TB, flags ...string) string {
	tb.Helper()
	key := filepath.Join(flags...)
	snapshotsMu.Lock()
	defer snapshotsMu.Unlock()
	if dir, ok := snapshots[key]; ok {
		return dir
	}
	if _, err := exec.LookPath("go"); err != nil {
		tb.Skip("go command not available")
	}
	dir, err := os.MkdirTemp("", "codeserver-snapshot-")
	if err != nil {
		tb.Fatal(err)
	}
	args := append([]string{"run", "../../codetools/cmd/mcpsnapshot", "-o", dir}, flags...)
	cmd := exec.Command("go", append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("mcpsnapshot: %v\n%s", err, out)
	}
	snapshots[key] = dir
	return dir
}

var (
	snapshotsMu sync.Mutex
	snapshots   = map[string]string{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range snapshots {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// build builds a catalog over the snapshot in dir ("" for none) and
// returns its stats, the heap the whole process allocated meanwhile and
// the heap it keeps afterwards.
func build(tb testing.TB, dir string) (st codetools.BuildStats, allocated, kept uint64) {
	tb.Helper()
	opts := codetools.Options{Snapshot: dirFS(dir)}
	var before, after, held runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := codetools.NewCatalog(&opts)
	st, err := c.Warm(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&held)
	runtime.KeepAlive(c)
	if st.SnapshotError != "" || st.RuntimeError != "" {
		tb.Fatalf("sources: %+v", st)
	}
	return st, after.TotalAlloc - before.TotalAlloc, held.HeapAlloc - min(held.HeapAlloc, before.HeapAlloc)
}

// BenchmarkCatalogBuild builds the catalog of this service from its
// function table alone and with snapshots of growing size, and reports
// its entries, the heap kept (kept-MB) and allocated (B/op), and the build
// time (ns/op). It fails when a budget is exceeded.
func BenchmarkCatalogBuild(b *testing.B) {
	for _, tc := range []struct {
		name        string
		flags       []string
		alloc, kept uint64
	}{
		{"binary", nil, 0, 0},
		{"main", []string{}, 0, 0},
		{"deps", []string{"-deps"}, 0, budgetKeptDeps},
		{"deps-std", []string{"-deps", "-std"}, budgetAllocPerEntry, budgetKeptDepsStd},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dir := ""
			if tc.flags != nil {
				dir = snapshotDir(b, tc.flags...)
			}
			st, allocated, kept := build(b, dir)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				c := codetools.NewCatalog(&codetools.Options{Snapshot: dirFS(dir)})
				if _, err := c.Warm(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Entries), "entries")
			b.ReportMetric(float64(st.SnapshotFiles), "files")
			b.ReportMetric(float64(kept)/(1<<20), "kept-MB")
			b.ReportMetric(float64(allocated)/(1<<20), "alloc-MB")
			b.ReportMetric(float64(allocated)/float64(st.Entries), "alloc-B/entry")
			if tc.alloc > 0 && allocated > uint64(tc.alloc)*uint64(st.Entries) {
				b.Errorf("building allocated %d MB, %d bytes an entry over %d entries; budget %d bytes an entry",
					allocated>>20, allocated/uint64(st.Entries), st.Entries, tc.alloc)
			}
			if tc.kept > 0 && kept > tc.kept {
				b.Errorf("the catalog keeps %.1f MB, budget %d MB", float64(kept)/(1<<20), tc.kept>>20)
			}
		})
	}
}

func dirFS(dir string) fs.FS {
	if dir == "" {
		return nil
	}
	return os.DirFS(dir)
}

// BenchmarkColdCalls starts 50 code_search calls on a cold catalog at
// once: one build serves them all.
func BenchmarkColdCalls(b *testing.B) {
	dir := snapshotDir(b, "-deps")
	for b.Loop() {
		c := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(dir)})
		var wg sync.WaitGroup
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Search(context.Background(), codetools.SearchQuery{Query: "ServeHTTP"}); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
	}
}
