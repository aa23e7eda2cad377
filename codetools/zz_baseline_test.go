package codetools

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestZZBaseline(t *testing.T) {
	dir := os.Getenv("SNAPDIR")
	if dir == "" {
		t.Skip()
	}
	var before, after, kept runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	c := NewCatalog(&Options{Snapshot: os.DirFS(dir)})
	res, err := c.Search(ctx, SearchQuery{Query: "x"})
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&kept)
	t.Logf("entries=%d build=%v allocated=%.1fMB kept=%.1fMB snapErr=%q", res.Coverage.CatalogEntries, el,
		float64(after.TotalAlloc-before.TotalAlloc)/1e6, float64(int64(kept.HeapAlloc)-int64(before.HeapAlloc))/1e6, res.Coverage.SnapshotError)
	runtime.KeepAlive(c)
}
