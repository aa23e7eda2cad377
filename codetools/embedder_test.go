package codetools

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// fakeEmbedder is a deterministic Embedder: a text holding target (or the
// query) points one way, every other text another.
type fakeEmbedder struct {
	query, target string
	fail          error
	calls, texts  atomic.Int64
}

func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	f.texts.Add(int64(len(texts)))
	if f.fail != nil {
		return nil, f.fail
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if t == f.query || strings.Contains(t, f.target) {
			out[i] = []float32{1, 0}
		} else {
			out[i] = []float32{0, 1}
		}
	}
	return out, nil
}

// An Embedder fuses with a phrase's ranking by words the entries nearest
// by vector; one that fails, or none, leaves the order by words; names are
// not fused.
func TestEmbedderFuses(t *testing.T) {
	const q = "serves a request handler"
	plain := rankedCatalog(t)
	base := searchOK(t, plain, SearchQuery{Query: q})
	words := ids(base)
	if base.Match != MatchTerms || len(words) < 3 {
		t.Fatalf("%q: %s %q", q, base.Match, words)
	}
	last := words[len(words)-1]
	x, _ := plain.index(ctx)
	i, _ := x.ExactID(last)
	target := search.EmbedText(&x.Entries[i], x.DocOf(i))

	c := rankedCatalog(t)
	em := &fakeEmbedder{query: q, target: target}
	c.opts.Embedder = em
	got := ids(searchOK(t, c, SearchQuery{Query: q}))
	if !raised(got, words) {
		t.Errorf("fused %q, want %s raised above its rank by words in %q", got, last, words)
	}
	// The vectors of entries are kept: a second query embeds the query alone.
	n := em.texts.Load()
	searchOK(t, c, SearchQuery{Query: q})
	if d := em.texts.Load() - n; d != 1 {
		t.Errorf("second query embedded %d texts, want 1", d)
	}
	// Names are matched literally and not reranked.
	calls := em.calls.Load()
	if r := searchOK(t, c, SearchQuery{Query: "Handle"}); r.Match != MatchLiteral || em.calls.Load() != calls {
		t.Errorf("Handle: %s, %d embedder calls", r.Match, em.calls.Load()-calls)
	}

	// Vectors that say nothing keep the order by words.
	flat := rankedCatalog(t)
	flat.opts.Embedder = &fakeEmbedder{query: "-", target: "\x00"}
	if got := ids(searchOK(t, flat, SearchQuery{Query: q})); !slices.Equal(got, words) {
		t.Errorf("flat vectors: %q, want %q", got, words)
	}
	// A failing Embedder keeps the order by words, and the note says so.
	bad := rankedCatalog(t)
	bad.opts.Embedder = &fakeEmbedder{fail: errors.New("model offline")}
	res := searchOK(t, bad, SearchQuery{Query: q})
	if !slices.Equal(ids(res), words) || !strings.Contains(res.Note, "model offline") {
		t.Errorf("failing embedder: %q, note %q", ids(res), res.Note)
	}
}

// raised reports whether got is words (a ranking by words) with its last
// entry, the one nearest to the query by vector, raised above its rank
// but below the first, the others in their order.
func raised(got, words []string) bool {
	last := words[len(words)-1]
	at := slices.Index(got, last)
	if len(got) != len(words) || at < 1 || at >= len(words)-1 || got[0] != words[0] {
		return false
	}
	return slices.Equal(slices.Delete(slices.Clone(got), at, at+1), words[:len(words)-1])
}

// namedFake is a fakeEmbedder that names its model, and records the
// largest batch it was given.
type namedFake struct {
	fakeEmbedder
	name     string
	dims     int // 0 means the fake's 2
	maxBatch atomic.Int64
}

func (n *namedFake) EmbedderName() string { return n.name }

func (n *namedFake) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if int64(len(texts)) > n.maxBatch.Load() {
		n.maxBatch.Store(int64(len(texts)))
	}
	out, err := n.fakeEmbedder.Embed(ctx, texts)
	for i := range out {
		for len(out[i]) < n.dims {
			out[i] = append(out[i], 0)
		}
	}
	return out, err
}

// withVectors returns a copy of fsys with data as its vectors.bin.
func withVectors(fsys fstest.MapFS, data []byte) fstest.MapFS {
	out := fstest.MapFS{}
	for k, v := range fsys {
		out[k] = v
	}
	out[codesnap.VectorsName] = &fstest.MapFile{Data: data}
	return out
}

// rerankCase is the query of TestEmbedderReranks: its candidates by words,
// and the text of the last of them, which the fakes point at the query.
func rerankCase(t *testing.T) (q string, words []string, target string, fsys fstest.MapFS) {
	t.Helper()
	q = "serves a request handler"
	plain := rankedCatalog(t)
	words = ids(searchOK(t, plain, SearchQuery{Query: q}))
	if len(words) < 3 {
		t.Fatalf("%q: %q", q, words)
	}
	x, _ := plain.index(ctx)
	i, _ := x.ExactID(words[len(words)-1])
	return q, words, search.EmbedText(&x.Entries[i], x.DocOf(i)), plain.opts.Snapshot.(fstest.MapFS)
}

// Vectors that WriteVectors precomputed are used by a catalog whose
// Embedder names their model: it embeds the query and only the candidates
// the file lacks, and ranks as if it had embedded them all.
func TestPrecomputedVectors(t *testing.T) {
	q, words, target, fsys := rerankCase(t)
	gen := &namedFake{fakeEmbedder: fakeEmbedder{query: q, target: target}, name: "model-a"}
	var buf bytes.Buffer
	n, err := WriteVectors(ctx, &buf, fsys, gen)
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 || gen.texts.Load() != int64(n) || gen.maxBatch.Load() > search.FuseBatch {
		t.Fatalf("WriteVectors wrote %d vectors, embedded %d texts, batches of up to %d (want at most %d)",
			n, gen.texts.Load(), gen.maxBatch.Load(), search.FuseBatch)
	}
	// The same snapshot writes the same bytes.
	var again bytes.Buffer
	if _, err := WriteVectors(ctx, &again, fsys, gen); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Errorf("a second WriteVectors differs (%v)", err)
	}

	// Embedding everything on demand: the reference order and cost.
	lazy := rankedCatalog(t)
	lazyEm := &namedFake{fakeEmbedder: fakeEmbedder{query: q, target: target}, name: "model-a"}
	lazy.opts.Embedder = lazyEm
	want := ids(searchOK(t, lazy, SearchQuery{Query: q}))
	if !raised(want, words) {
		t.Fatalf("on demand: %q, want %s raised", want, words[len(words)-1])
	}

	run := func(name string, data []byte, em Embedder) (*SearchResult, *Catalog) {
		t.Helper()
		c := rankedCatalog(t)
		c.opts.Snapshot = withVectors(fsys, data)
		c.opts.Embedder = em
		return searchOK(t, c, SearchQuery{Query: q}), c
	}
	pre := &namedFake{fakeEmbedder: fakeEmbedder{query: q, target: target}, name: "model-a"}
	res, c := run("model-a", buf.Bytes(), pre)
	if !slices.Equal(ids(res), want) || res.Note != "" {
		t.Errorf("precomputed: %q (note %q), want %q", ids(res), res.Note, want)
	}
	x, _ := c.index(ctx)
	notInFile := 0
	for i := range x.Entries {
		if x.Entries[i].Sources&index.SrcSnapshot == 0 {
			notInFile++
		}
	}
	// The entries outside the snapshot (the running binary's alone) are
	// not embedded: they rank by words, and the first phrase does not
	// wait for thousands of texts through a remote model.
	if got := pre.texts.Load(); notInFile == 0 || got != 1 {
		t.Errorf("precomputed: embedded %d texts, want the query alone (%d entries outside the snapshot; on demand: %d texts)",
			got, notInFile, lazyEm.texts.Load())
	}

	// Concurrent first searches read the file once and agree.
	shared := rankedCatalog(t)
	shared.opts.Snapshot = withVectors(fsys, buf.Bytes())
	shared.opts.Embedder = &namedFake{fakeEmbedder: fakeEmbedder{query: q, target: target}, name: "model-a"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if res, err := shared.Search(ctx, SearchQuery{Query: q}); err != nil || !slices.Equal(ids(res), want) {
				t.Errorf("concurrent search: %v, %q", err, ids(res))
			}
		})
	}
	wg.Wait()

	// A record whose text changed since is embedded again.
	var p search.PreVectors
	if err := p.Read(withVectors(fsys, buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	off := -1
	for _, at := range p.Recs {
		if id, h := p.Record(at); id == words[len(words)-1] {
			off = h
		}
	}
	if off < 0 {
		t.Fatalf("no record for %s", words[len(words)-1])
	}
	stale := bytes.Clone(buf.Bytes())
	stale[off] ^= 1
	staleEm := &namedFake{fakeEmbedder: fakeEmbedder{query: q, target: target}, name: "model-a"}
	if res, _ := run("stale", stale, staleEm); !slices.Equal(ids(res), want) || staleEm.texts.Load() != 2 {
		t.Errorf("stale record: %q, %d texts embedded; want %q, 2 (the query and the stale record)", ids(res), staleEm.texts.Load(), want)
	}

	// Another model's vectors, or an Embedder without a name, are not
	// used; the answer says so and reranks on demand.
	other := &namedFake{fakeEmbedder: fakeEmbedder{query: q, target: target}, name: "model-b"}
	for em, why := range map[Embedder]string{other: "the embedder's is model-b", &fakeEmbedder{query: q, target: target}: "does not name its model"} {
		res, _ := run("other", buf.Bytes(), em)
		if !slices.Equal(ids(res), want) || !strings.Contains(res.Note, "precomputed vectors not used: they are of model model-a") || !strings.Contains(res.Note, why) {
			t.Errorf("%T: %q (note %q), want %q and a note", em, ids(res), res.Note, want)
		}
	}

	// Vectors of another length under the same name: not used, all
	// embedded on demand, and the first answer says why.
	wide := &namedFake{fakeEmbedder: fakeEmbedder{query: q, target: target}, name: "model-a", dims: 3}
	res, c = run("wide", buf.Bytes(), wide)
	if !slices.Equal(ids(res), want) || !strings.Contains(res.Note, "2 dimensions, the embedder's 3") {
		t.Errorf("3 dimensions: %q (note %q), want %q and a note", ids(res), res.Note, want)
	}
	if res := searchOK(t, c, SearchQuery{Query: q}); !slices.Equal(ids(res), want) || res.Note != "" {
		t.Errorf("3 dimensions, second query: %q (note %q), want %q", ids(res), res.Note, want)
	}
}

// A vectors file that cannot be read is not used: the answer says why,
// and the catalog embeds on demand.
func TestPrecomputedVectorsMalformed(t *testing.T) {
	q, _, target, fsys := rerankCase(t)
	var buf bytes.Buffer
	if _, err := WriteVectors(ctx, &buf, fsys, &namedFake{fakeEmbedder: fakeEmbedder{query: q, target: target}, name: "m"}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	head := func(dim, count uint64) []byte {
		b := append([]byte(search.VectorsMagic), 1, 'm')
		b = binary.AppendUvarint(b, dim)
		return binary.AppendUvarint(b, count)
	}
	// The first record starts after the header of good.
	first := len(head(2, 0))
	firstLen := 1 + int(good[first]) + 8 + 2
	dup := append(bytes.Clone(good[:first]), good[first:first+firstLen]...)
	dup = append(dup, good[first:first+firstLen]...)
	binary.PutUvarint(dup[first-1:], 2)
	for name, data := range map[string][]byte{
		"empty":             {},
		"wrong header":      append([]byte("embedmcp-vectors/9\n"), good[len(search.VectorsMagic):]...),
		"truncated":         good[:len(good)-1],
		"trailing bytes":    append(bytes.Clone(good), 0),
		"no name":           append([]byte(search.VectorsMagic), 0, 2, 0),
		"dimension 0":       append(head(0, 1), 1, 'x', 0, 0, 0, 0, 0, 0, 0, 0),
		"huge dimension":    head(search.MaxVectorDim+1, 0),
		"count too high":    head(2, 1<<40),
		"ids not ascending": dup,
	} {
		var p search.PreVectors
		err := p.Read(withVectors(fsys, data))
		if !errors.Is(err, search.ErrVectorsFile) {
			t.Errorf("%s: %v, want errVectorsFile", name, err)
			continue
		}
		c := rankedCatalog(t)
		c.opts.Snapshot = withVectors(fsys, data)
		c.opts.Embedder = &namedFake{fakeEmbedder: fakeEmbedder{query: q, target: target}, name: "m"}
		res := searchOK(t, c, SearchQuery{Query: q})
		if !strings.Contains(res.Note, "malformed vectors file") || len(res.Note) > 400 {
			t.Errorf("%s: note %q", name, res.Note)
		}
	}
}

// The file of a snapshot without declarations is empty, not malformed.
func TestPrecomputedVectorsEmpty(t *testing.T) {
	_, _, _, fsys := rerankCase(t)
	var p search.PreVectors
	data := append([]byte(search.VectorsMagic), 1, 'm', 0, 0)
	if err := p.Read(withVectors(fsys, data)); err != nil || p.Recs != nil {
		t.Errorf("empty file: %v, %d records", err, len(p.Recs))
	}
}

// WriteVectors refuses what it cannot write faithfully.
func TestWriteVectorsErrors(t *testing.T) {
	_, _, _, fsys := rerankCase(t)
	named := func(fail error, name string) *namedFake {
		return &namedFake{fakeEmbedder: fakeEmbedder{fail: fail}, name: name}
	}
	for name, tc := range map[string]struct {
		fsys fs.FS
		em   NamedEmbedder
		want string
	}{
		"nil embedder":   {fsys, nil, "nil Embedder"},
		"no name":        {fsys, named(nil, ""), "name must have"},
		"long name":      {fsys, named(nil, strings.Repeat("m", search.MaxVectorName+1)), "name must have"},
		"failing":        {fsys, named(errors.New("model offline"), "m"), "model offline"},
		"wrong count":    {fsys, &countingEmbedder{drop: 1}, "vectors for"},
		"not finite":     {fsys, &countingEmbedder{nan: true}, "not a finite number"},
		"no snapshot":    {nil, named(nil, "m"), "nil snapshot"},
		"empty snapshot": {fstest.MapFS{}, named(nil, "m"), "snapshot not used"},
	} {
		var buf bytes.Buffer
		_, err := WriteVectors(ctx, &buf, tc.fsys, tc.em)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// countingEmbedder answers one vector fewer than asked (drop), or NaNs.
type countingEmbedder struct {
	drop int
	nan  bool
}

func (c *countingEmbedder) EmbedderName() string { return "m" }

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts)-c.drop)
	for i := range out {
		out[i] = []float32{1, 2}
		if c.nan {
			out[i][1] = float32(math.NaN())
		}
	}
	return out, nil
}

// Quantizing to signed bytes keeps cosine similarities to within 0.02.
func TestQuantizedCosine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		a, b := make([]float32, 384), make([]float32, 384)
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64()+0.5*float64(a[i]))
		}
		q, err := appendQuantized(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(search.Cosine(a, b) - search.CosineQ(a, q)); d > 0.02 {
			t.Fatalf("quantized cosine off by %.3f", d)
		}
	}
	if q, _ := appendQuantized(nil, []float32{0, 0}); search.CosineQ([]float32{1, 0}, q) != 0 {
		t.Error("a zero vector is not similar to anything")
	}
}

// panicEmbedder panics when it embeds the entries' texts (documents) or,
// with onQuery, every text.
type panicEmbedder struct{ onQuery bool }

func (p panicEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if p.onQuery {
		panic("embedder bug")
	}
	return [][]float32{{1, 0}}, nil
}

func (p panicEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	panic("embedder bug")
}

// An Embedder that panics leaves the order by words, says so, and lets
// the next search run (the vectors' lock is not left held).
func TestEmbedderPanics(t *testing.T) {
	const q = "serves a request handler"
	words := ids(searchOK(t, rankedCatalog(t), SearchQuery{Query: q}))
	for _, onQuery := range []bool{false, true} {
		c := rankedCatalog(t)
		c.opts.Embedder = panicEmbedder{onQuery: onQuery}
		for range 2 {
			res := searchOK(t, c, SearchQuery{Query: q})
			if !slices.Equal(ids(res), words) || !strings.Contains(res.Note, "panic: embedder bug") {
				t.Errorf("onQuery=%v: %q, note %q; want the order by words and the panic said", onQuery, ids(res), res.Note)
			}
		}
	}
}
