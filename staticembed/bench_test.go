package staticembed

import (
	"context"
	"os"
	"strings"
	"testing"
)

// benchTable is the table named by STATICEMBED_TABLE, or one of the golden
// vocabulary with 256 dimensions.
func benchTable(b *testing.B) *Table {
	b.Helper()
	if path := os.Getenv("STATICEMBED_TABLE"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		tab, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		return tab
	}
	vocab := readGolden(b).Vocab
	vecs := make([][]float32, len(vocab))
	for i := range vecs {
		vecs[i] = make([]float32, 256)
		for d := range vecs[i] {
			vecs[i][d] = float32((i*31+d*17)%255) - 127
		}
	}
	tab, err := Parse(build(b, vocab, vecs, "notice"))
	if err != nil {
		b.Fatal(err)
	}
	return tab
}

// BenchmarkEmbedQuery embeds one query, as a search does.
func BenchmarkEmbedQuery(b *testing.B) {
	tab := benchTable(b)
	q := []string{"how does the server close an idle session after a timeout"}
	ctx := context.Background()
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		if _, err := tab.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuPerOp reports the CPU time per operation (cpu-ns/op) when the
// returned function is called: on a shared machine, the time per
// operation also counts the waits for a core.
func cpuPerOp(b *testing.B) func() {
	c0 := cpuSeconds()
	return func() {
		if c0 >= 0 && b.N > 0 {
			b.ReportMetric((cpuSeconds()-c0)*1e9/float64(b.N), "cpu-ns/op")
		}
	}
}

// BenchmarkEmbedRerank embeds a query and 30 candidates of about 300
// bytes, as codetools' reranking does when no vectors are precomputed.
func BenchmarkEmbedRerank(b *testing.B) {
	tab := benchTable(b)
	texts := []string{"how does the server close an idle session after a timeout"}
	doc := "Session close (method): Close ends the session, releases its lease and " +
		"tells the peers; a session idle for longer than the timeout is closed by the " +
		"sweeper, which runs every minute and logs each session it closes with its id " +
		"and the time it was last used."
	for i := range 30 {
		texts = append(texts, doc[i:])
	}
	ctx := context.Background()
	b.SetBytes(int64(len(strings.Join(texts, ""))))
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for b.Loop() {
		if _, err := tab.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse reads a table file.
func BenchmarkParse(b *testing.B) {
	path := os.Getenv("STATICEMBED_TABLE")
	if path == "" {
		b.Skip("STATICEMBED_TABLE names no table file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
