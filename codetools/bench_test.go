package codetools

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// syntheticSnapshot returns a snapshot with n documented functions spread
// over packages of 500 declarations in files of 100, and the matching
// function table.
func syntheticSnapshot(tb testing.TB, n int) (fstest.MapFS, []index.RuntimeFunc) {
	tb.Helper()
	man := codesnap.Manifest{MainPackage: "example.com/big", GOOS: "linux", GOARCH: "amd64",
		Modules: []codesnap.Module{{Path: "example.com/big", Main: true}}}
	var funcs []index.RuntimeFunc
	var files []srcFile
	given := map[string][]codeindex.Decl{}
	for p := 0; p*500 < n; p++ {
		pkg := fmt.Sprintf("example.com/big/pkg%03d", p)
		for f := 0; f < 5 && p*500+f*100 < n; f++ {
			var b strings.Builder
			fmt.Fprintf(&b, "package pkg%03d\n\n", p)
			// The declarations, as mcpsnapshot would index them (written
			// out: parsing 50 000 functions is slow under the race detector).
			decls := []codeindex.Decl{{Kind: codeindex.Package, Line: 1, EndLine: 1, End: int32(len("package pkg000"))}}
			line := 3
			for i := 0; i < 100 && p*500+f*100+i < n; i++ {
				k := p*500 + f*100 + i
				doc := fmt.Sprintf("// Handler%d serves request kind %d of the synthetic catalog.\n// It returns the doubled input.\n", k, k)
				body := fmt.Sprintf("func Handler%d(x int) int {\n\treturn x * 2\n}", k)
				off := int32(b.Len())
				decls = append(decls, codeindex.Decl{Kind: codeindex.Func, Name: fmt.Sprintf("Handler%d", k), Line: int32(line + 2),
					EndLine: int32(line + 4), Start: off, End: off + int32(len(doc)+len(body)), DocStart: off, DocEnd: off + int32(len(doc)-1)})
				b.WriteString(doc + body + "\n\n")
				funcs = append(funcs, index.RuntimeFunc{Name: fmt.Sprintf("%s.Handler%d", pkg, k),
					File: fmt.Sprintf("/build/big/pkg%03d/f%d.go", p, f), Line: line + 2, MinLine: int32(line + 3), MaxLine: int32(line + 3)})
				line += 6
			}
			name := fmt.Sprintf("f%d.go", f)
			files = append(files, srcFile{pkg, name, b.String()})
			given[pkg+"/"+name] = decls
		}
	}
	return makeIndexedSnapshot(tb, man, files, given), funcs
}

// TestSyntheticIndex checks the written-out declarations of the synthetic
// snapshot against the generator's parser.
func TestSyntheticIndex(t *testing.T) {
	fsys, _ := syntheticSnapshot(t, 250)
	var srcs [][]codeindex.Source
	for _, f := range []string{"f0.go", "f1.go", "f2.go"} {
		p := "src/example.com/big/pkg000/" + f + codesnap.SourceSuffix
		srcs = append(srcs, []codeindex.Source{{Path: p, Name: f, Src: fsys[p].Data}})
	}
	parsed, err := codeindex.Build(srcs...)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(parsed), "\nfile ")
	if !strings.Contains(string(fsys[codesnap.IndexName].Data), "\nfile "+body) {
		t.Errorf("written-out index differs from the parsed one:\n%.600s\n---\n%.600s", fsys[codesnap.IndexName].Data, parsed)
	}
}

func syntheticCatalog(fsys fstest.MapFS, funcs []index.RuntimeFunc) *Catalog {
	c := NewCatalog(&Options{Snapshot: fsys, BuildInfo: fixtureBuildInfo("")})
	c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{Funcs: funcs}, nil }
	return c
}

func TestSyntheticCatalog(t *testing.T) {
	fsys, funcs := syntheticSnapshot(t, 1234)
	c := syntheticCatalog(fsys, funcs)
	res, err := c.Search(ctx, SearchQuery{Query: "handler12"})
	if err != nil {
		t.Fatal(err)
	}
	// Handler12, Handler120..129, Handler1200..1233.
	if res.Total != 1+10+34 {
		t.Errorf("total = %d", res.Total)
	}
	d := define(t, c, "example.com/big/pkg002.Handler1233")
	if d.Consistency.Lines.Status != StatusMatch || !strings.HasPrefix(d.Definition, "// Handler1233 serves") {
		t.Errorf("definition = %+v", d)
	}
}

func BenchmarkCatalogBuild20k(b *testing.B) {
	fsys, funcs := syntheticSnapshot(b, 20000)
	b.ResetTimer()
	for b.Loop() {
		c := syntheticCatalog(fsys, funcs)
		if _, err := c.Search(ctx, SearchQuery{Query: "handler19999"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCatalogBuildRuntime20k(b *testing.B) {
	_, funcs := syntheticSnapshot(b, 20000)
	b.ResetTimer()
	for b.Loop() {
		c := NewCatalog(&Options{BuildInfo: fixtureBuildInfo("")})
		c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{Funcs: funcs}, nil }
		if _, err := c.Search(ctx, SearchQuery{Query: "handler19999"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCatalogBuildTestBinary(b *testing.B) {
	for b.Loop() {
		c := NewCatalog(&Options{})
		if _, err := c.Search(ctx, SearchQuery{Query: "runtime.main"}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSearch(b *testing.B, query string) {
	fsys, funcs := syntheticSnapshot(b, 50000)
	c := syntheticCatalog(fsys, funcs)
	res, err := c.Search(ctx, SearchQuery{Query: query})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Coverage.Entries), "entries")
	b.ReportMetric(float64(res.Total), "matches")
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Search(ctx, SearchQuery{Query: query, Limit: 100}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearch50kRare(b *testing.B)   { benchSearch(b, "Handler4999") }
func BenchmarkSearch50kCommon(b *testing.B) { benchSearch(b, "doubled INPUT") }
func BenchmarkSearch50kNone(b *testing.B)   { benchSearch(b, "zzzz-no-match") }

func BenchmarkDefinition(b *testing.B) {
	fsys, funcs := syntheticSnapshot(b, 50000)
	c := syntheticCatalog(fsys, funcs)
	q := DefinitionQuery{Name: "example.com/big/pkg042.Handler21234"}
	if _, err := c.Definition(ctx, q); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Definition(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCatalogMemory measures the heap held by a 50 000-entry catalog,
// excluding the snapshot file contents (which live in the binary's
// read-only data when embedded).
func TestCatalogMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("memory measurement in -short mode")
	}
	fsys, funcs := syntheticSnapshot(t, 50000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := syntheticCatalog(fsys, funcs)
	res, err := c.Search(ctx, SearchQuery{Query: "x"})
	if err != nil {
		t.Fatal(err)
	}
	funcs = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	n := res.Coverage.Entries
	t.Logf("50k catalog: %d entries, %.1f MiB held, %d bytes/entry", n, float64(held)/(1<<20), held/int64(n))
	if want := 50000 + 50000/500; n != want { // the functions and their packages
		t.Errorf("entries = %d, want %d", n, want)
	}
	if held > 64<<20 {
		t.Errorf("catalog holds %d bytes, want ≤ 64 MiB", held)
	}
	runtime.KeepAlive(c)
	runtime.KeepAlive(fsys)
}
