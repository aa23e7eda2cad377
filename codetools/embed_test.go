package codetools

import (
	"context"
	"errors"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
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

// An Embedder reranks a phrase's best candidates as its vectors say; one
// that fails, or none, leaves the order by words; names are not reranked.
func TestEmbedderReranks(t *testing.T) {
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
	target := search.EmbedText(&x.Entries[i])

	c := rankedCatalog(t)
	em := &fakeEmbedder{query: q, target: target}
	c.opts.Embedder = em
	got := ids(searchOK(t, c, SearchQuery{Query: q}))
	if len(got) != len(words) || got[0] != last || !slices.Equal(got[1:], words[:len(words)-1]) {
		t.Errorf("reranked %q, want %s first, then %q", got, last, words[:len(words)-1])
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
