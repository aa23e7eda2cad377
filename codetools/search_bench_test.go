package codetools

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// vocabulary of the wordy synthetic catalog.
var (
	benchVerbs = strings.Fields("parse write read check verify serve handle route encode decode open close " +
		"start stop list create delete update copy fetch load store send receive flush reset")
	benchNouns = strings.Fields("bucket object token header body request response server client session cookie " +
		"cache stream frame buffer record entry index query result error limit size version upload part range " +
		"policy origin caller grant schema tool snapshot manifest catalog file line module package")
)

// wordySnapshot returns a snapshot of n documented functions whose names
// and documentation are drawn from a small vocabulary, in packages of 500
// declarations and files of 100, and the matching function table: a
// catalog where words recur as they do in real code.
func wordySnapshot(tb testing.TB, n int) (fstest.MapFS, []index.RuntimeFunc) {
	tb.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	word := func(ws []string) string { return ws[r.IntN(len(ws))] }
	title := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
	man := codesnap.Manifest{MainPackage: "example.com/big", GOOS: "linux", GOARCH: "amd64",
		Modules: []codesnap.Module{{Path: "example.com/big", Main: true}}}
	var funcs []index.RuntimeFunc
	var files []srcFile
	for p := 0; p*500 < n; p++ {
		pkg := fmt.Sprintf("example.com/big/%s%03d", word(benchNouns), p)
		for f := 0; f < 5 && p*500+f*100 < n; f++ {
			var b strings.Builder
			b.WriteString("package p\n\n")
			line := 3
			for i := 0; i < 100 && p*500+f*100+i < n; i++ {
				k := p*500 + f*100 + i
				name := fmt.Sprintf("%s%s%s%d", title(word(benchVerbs)), title(word(benchNouns)), title(word(benchNouns)), k)
				fmt.Fprintf(&b, "// %s %ss the %s of a %s when the %s %s is %s.\nfunc %s(x int) int {\n\treturn x * 2\n}\n\n",
					name, word(benchVerbs), word(benchNouns), word(benchNouns), word(benchNouns), word(benchNouns), word(benchVerbs), name)
				funcs = append(funcs, index.RuntimeFunc{Name: pkg + "." + name, File: fmt.Sprintf("/build/src/%s/f%d.go", pkg, f), Line: line + 1})
				line += 5
			}
			files = append(files, srcFile{pkg, fmt.Sprintf("f%d.go", f), b.String()})
		}
	}
	return makeSnapshot(tb, man, files), funcs
}

func wordyCatalog(tb testing.TB, n int) *Catalog {
	fsys, funcs := wordySnapshot(tb, n)
	c := syntheticCatalog(fsys, funcs)
	if _, err := c.index(ctx); err != nil {
		tb.Fatal(err)
	}
	return c
}

func benchWordy(b *testing.B, q SearchQuery) {
	c := wordyCatalog(b, 50000)
	res, err := c.Search(ctx, q)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Coverage.Entries), "entries")
	b.ReportMetric(float64(res.Total), "matches")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// Literal: a name of one entry, a word of thousands of names, nothing.
func BenchmarkSearchLiteralName(b *testing.B) {
	benchWordy(b, SearchQuery{Query: "ParseBucketToken", Limit: 10})
}
func BenchmarkSearchLiteralCommon(b *testing.B) {
	benchWordy(b, SearchQuery{Query: "bucket", Limit: 10})
}
func BenchmarkSearchLiteralNone(b *testing.B) { benchWordy(b, SearchQuery{Query: "zzyzx", Limit: 10}) }

// Terms: a phrase of common and rarer words.
func BenchmarkSearchTerms(b *testing.B) {
	benchWordy(b, SearchQuery{Query: "where is the bucket token checked before the upload", Limit: 10})
}

// A single word without a literal match falls back to terms.
func BenchmarkSearchTermsFallback(b *testing.B) {
	benchWordy(b, SearchQuery{Query: "buckets", Limit: 10, Kind: "type"})
}

// traceLine is a stack-trace line of the wordy catalog: file:line of a
// declaration in the middle of the catalog, as the build machine names it.
func traceLine(tb testing.TB, c *Catalog) string {
	x, err := c.index(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	e := &x.Entries[len(x.Entries)/2]
	return fmt.Sprintf("/build/src/%s:%d +0x1d", x.FileOf(e), e.Line+1)
}

func BenchmarkSearchFileLine(b *testing.B) {
	benchWordy(b, SearchQuery{Query: traceLine(b, wordyCatalog(b, 50000)), Limit: 10})
}

func benchDefinition(b *testing.B, name string) {
	c := wordyCatalog(b, 50000)
	q := DefinitionQuery{Name: name}
	if _, err := c.Definition(ctx, q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Definition(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDefinitionID(b *testing.B) {
	c := wordyCatalog(b, 50000)
	x, _ := c.index(ctx)
	benchDefinition(b, x.Entries[len(x.Entries)/2].ID)
}

func BenchmarkDefinitionShortName(b *testing.B) {
	c := wordyCatalog(b, 50000)
	x, _ := c.index(ctx)
	benchDefinition(b, index.EntryName(&x.Entries[len(x.Entries)/3]))
}

func BenchmarkDefinitionFileLine(b *testing.B) {
	benchDefinition(b, traceLine(b, wordyCatalog(b, 50000)))
}

// The literal path allocates nothing that grows with the catalog: the
// same query allocates as much on 5 000 entries as on 50 000.
func TestLiteralSearchAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 50 000-entry catalog")
	}
	measure := func(n int) (allocs, bytes float64) {
		c := wordyCatalog(t, n)
		q := SearchQuery{Query: "bucket", Limit: 10}
		if _, err := c.Search(ctx, q); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		allocs = testing.AllocsPerRun(20, func() {
			if _, err := c.Search(ctx, q); err != nil {
				t.Fatal(err)
			}
		})
		runtime.ReadMemStats(&after)
		return allocs, float64(after.TotalAlloc-before.TotalAlloc) / 21
	}
	a5, b5 := measure(5000)
	a50, b50 := measure(50000)
	t.Logf("literal search allocations: %.0f (%.0f bytes) on 5 000 entries, %.0f (%.0f bytes) on 50 000", a5, b5, a50, b50)
	if a50 > a5+2 || b50 > 2*b5+4096 {
		t.Errorf("allocations grow with the catalog: %.0f/%.0f B on 5 000 entries, %.0f/%.0f B on 50 000", a5, b5, a50, b50)
	}
}

// hashEmbedder embeds a text as the sum of its words hashed into 128
// dimensions: the cost of a static table's lookups, for benchmarks.
type hashEmbedder struct{}

func (hashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, 128)
		for _, w := range strings.Fields(strings.ToLower(s)) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%128]++
		}
		out[i] = v
	}
	return out, nil
}

// Terms fused with dense retrieval over all 50 000 entries: the first
// query (which embeds every entry) and the p50 and p95 of the next.
func BenchmarkSearchTermsFused(b *testing.B) {
	c := wordyCatalog(b, 50000)
	c.opts.Embedder = hashEmbedder{}
	q := SearchQuery{Query: "where is the bucket token checked before the upload", Limit: 10}
	t0 := time.Now()
	if _, err := c.Search(ctx, q); err != nil {
		b.Fatal(err)
	}
	first := time.Since(t0)
	var lat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t := time.Now()
		if _, err := c.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(first.Milliseconds()), "first-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-µs")
}
