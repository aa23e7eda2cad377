package codetools

import (
	"bytes"
	"context"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// lazySources are an app and its dependencies, whose declarations are
// found by the words of their source.
var lazySources = []srcFile{
	{"example.com/app", "main.go", "package main\n\n// run refills the cache.\nfunc run() {\n\t// back off before the next try\n\tprintln(\"cache refill failed\")\n}\n\nfunc init() {}\n"},
	{"example.com/app", "z.go", "package main\n\nfunc init() { println(\"second init\") }\n\n// Config configures.\ntype Config struct {\n\tMaxConns int // connections at most\n}\n"},
	{"example.com/app/store", "store.go", "package store\n\n// Put stores.\nfunc Put() { println(\"bucket quota exceeded\") }\n"},
	{"example.com/dep", "dep.go", "package dep\n\n// Open opens.\nfunc Open() {\n\tretryBackoff := 3\n\tprintln(\"dialing the broker\", retryBackoff)\n}\n\n// Limits bound.\ntype Limits struct {\n\tPacketSize int // maximum packet size a client may send\n}\n"},
	{"example.com/dep/sub", "sub.go", "package sub\n\n// Close closes.\nfunc Close() { println(\"cache refill failed in the broker\") }\n"},
	{"example.com/other", "o.go", "package other\n\n// Serve serves.\nfunc Serve() { println(\"maximum packet size exceeded\") }\n"},
}

// lazyCatalog is a catalog over lazySources; words false leaves the
// search words out of the index, as an earlier mcpsnapshot wrote it.
func lazyCatalog(t *testing.T, words bool) *Catalog {
	t.Helper()
	man := codesnap.Manifest{MainPackage: "example.com/app", GOOS: "linux", GOARCH: "amd64",
		Modules: []codesnap.Module{{Path: "example.com/app", Main: true}, {Path: "example.com/dep", Version: "v1.0.0"},
			{Path: "example.com/other", Version: "v1.0.0"}}}
	fsys := makeSnapshot(t, man, lazySources)
	if !words {
		fsys[codesnap.IndexName] = &fstest.MapFile{Data: stripWords(t, fsys[codesnap.IndexName].Data)}
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26", Path: "example.com/app", Main: debug.Module{Path: "example.com/app"}}
	c := NewCatalog(&Options{Snapshot: fsys, BuildInfo: bi, Server: "app"})
	c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{}, nil }
	return c
}

// stripWords drops the "w" records of an index.
func stripWords(t *testing.T, index []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for line := range bytes.Lines(index) {
		if !bytes.HasPrefix(line, []byte("w ")) && string(line) != "words\n" {
			out.Write(line)
		}
	}
	if out.Len() == len(index) {
		t.Fatal("the index has no search words")
	}
	return out.Bytes()
}

var lazyQueries = []string{"cache refill failed", "back off before the next try", "connections at most",
	"bucket quota", "dialing the broker", "retry backoff", "maximum packet size", "second init", "broker"}

// A snapshot without search words loads; its first search index holds
// the words of the host's own packages only, the rest are built per
// package afterwards, and the catalog then ranks as over a snapshot with
// the words: the same term index and the same answers.
func TestLazyWords(t *testing.T) {
	ctx := context.Background()
	withWords, old := lazyCatalog(t, true), lazyCatalog(t, false)

	// The first search: the main module's two packages are built, not
	// the three of the dependencies.
	first := searchOK(t, old, SearchQuery{Query: "cache refill failed"})
	if got := ids(first); len(got) == 0 || got[0] != "example.com/app.run" {
		t.Errorf("first search: %q", got)
	}
	x, err := old.index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if x.base.Lazy == nil {
		t.Fatal("no lazy words over a snapshot without words")
	}
	if _, n := x.base.Lazy.Count(); n != 2 {
		t.Errorf("the first search index built %d packages, want the main module's 2", n)
	}
	if y, _ := withWords.index(ctx); y.base.Lazy != nil {
		t.Error("lazy words over a snapshot with words")
	}

	// Searches meanwhile, concurrent with the build (-race).
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, q := range lazyQueries {
				if _, err := old.Search(ctx, SearchQuery{Query: q}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if _, err := old.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if built, _ := x.base.Lazy.Count(); built != 5 {
		t.Errorf("%d packages built after Warm, want 5", built)
	}

	a, _ := withWords.index(ctx)
	b, _ := old.index(ctx)
	if a == nil || b == nil || !reflect.DeepEqual(a.Search.Terms, b.Search.Terms) || a.Search.TermStats != b.Search.TermStats {
		t.Error("the term index built lazily differs from the one over the snapshot's words")
	}
	for _, q := range lazyQueries {
		want, got := ids(searchOK(t, withWords, SearchQuery{Query: q})), ids(searchOK(t, old, SearchQuery{Query: q}))
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
	// Found by the words of a dependency's source, which the first index
	// did not hold.
	if got := ids(searchOK(t, old, SearchQuery{Query: "dialing the broker"})); len(got) == 0 || got[0] != "example.com/dep.Open" {
		t.Errorf("dialing the broker: %q", got)
	}
}
