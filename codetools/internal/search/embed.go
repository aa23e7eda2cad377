package search

import (
	"context"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"math"
	"strings"
	"sync"
)

// Reranking by an Embedder.
const (
	// rerankDepth is the number of best candidates an Embedder reranks.
	RerankDepth = 30
	// embedWeight weighs the cosine similarity against the word score
	// (the best candidate's is 1).
	embedWeight = 1.0
	// maxEmbedText bounds the text of an entry given to an Embedder.
	maxEmbedText = 300
)

// VectorCache keeps the vectors of entries, computed on first use.
type VectorCache struct {
	mu   sync.Mutex
	vecs map[int32][]float32
}

// EmbedText returns the text of an entry given to an Embedder: the words
// of its name and type, its kind and the start of its documentation.
func EmbedText(e *index.Entry) string {
	var b strings.Builder
	if r := index.ReceiverOf(e); r != "" {
		b.WriteString(strings.Join(splitWords(r), " "))
		b.WriteByte(' ')
	}
	b.WriteString(strings.Join(splitWords(index.EntryName(e)), " "))
	b.WriteString(" (")
	b.WriteString(e.Kind.String())
	b.WriteString(")")
	if e.Doc != "" {
		b.WriteString(": ")
		b.WriteString(e.Doc)
	}
	return index.CutText(b.String(), maxEmbedText)
}

// splitWords splits a Go identifier at case changes, digits and
// underscores ("ServeHTTP" → Serve HTTP).
func splitWords(s string) []string {
	var out []string
	start := 0
	isUpper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	for i := 1; i <= len(s); i++ {
		switch {
		case i == len(s):
		case s[i] == '_':
		case isUpper(s[i]) && !isUpper(s[i-1]):
		case isUpper(s[i-1]) && isUpper(s[i]) && i+1 < len(s) && !isUpper(s[i+1]) && s[i+1] != '_':
		default:
			continue
		}
		if w := strings.Trim(s[start:i], "_"); w != "" {
			out = append(out, w)
		}
		start = i
	}
	return out
}

// embedder is an Embedder, as the search sees it.
type embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Rerank reorders the rank keys of a term search (best first) by the
// Embedder's similarities; it returns a note when the Embedder failed or
// the snapshot's precomputed vectors could not be used. The vectors of
// candidates are kept in cache; pre reads the snapshot's precomputed ones.
func (x Searcher) Rerank(ctx context.Context, em embedder, query string, keys []uint64,
	cache *VectorCache, pre func() (*PreVectors, string)) string {
	if em == nil || len(keys) < 2 {
		return ""
	}
	keys = keys[:min(len(keys), RerankDepth)]
	pv, note := pre()
	// Each candidate's vector: kept from an earlier query, precomputed,
	// or to be embedded now (missing).
	vecs := make([][]float32, len(keys))
	quant := make([][]byte, len(keys))
	cache.mu.Lock()
	if cache.vecs == nil {
		cache.vecs = map[int32][]float32{}
	}
	texts := []string{query}
	var missing []int
	for j, k := range keys {
		i := int32(KeyEntry(k))
		if v, ok := cache.vecs[i]; ok {
			vecs[j] = v
			continue
		}
		if pv != nil {
			if q, ok := pv.lookup(&x.Entries[i]); ok {
				quant[j] = q
				continue
			}
		}
		missing = append(missing, j)
		texts = append(texts, EmbedText(&x.Entries[i]))
	}
	cache.mu.Unlock()
	got, err := em.Embed(ctx, texts)
	if err == nil && len(got) != len(texts) {
		err = fmt.Errorf("%d vectors for %d texts", len(got), len(texts))
	}
	for _, v := range got {
		if err == nil && (len(v) == 0 || len(v) != len(got[0])) {
			err = fmt.Errorf("vectors of lengths %d and %d", len(got[0]), len(v))
		}
	}
	if err != nil {
		return joinNote(note, "the embedder failed ("+Clip(err.Error(), index.MaxEcho)+"); ranked by words alone")
	}
	qv := got[0]
	if pv != nil && pv.dim != len(qv) {
		// Vectors of another model of the same name: never again.
		pv.Off.Store(true)
		return joinNote(note, fmt.Sprintf("precomputed vectors not used: %d dimensions, the embedder's %d; ranked by words alone", pv.dim, len(qv)))
	}
	cache.mu.Lock()
	for n, j := range missing {
		vecs[j] = got[n+1]
		cache.vecs[int32(KeyEntry(keys[j]))] = got[n+1]
	}
	cache.mu.Unlock()
	sims := make([]float64, len(keys))
	for j := range keys {
		switch {
		case quant[j] != nil:
			sims[j] = CosineQ(qv, quant[j])
		case len(vecs[j]) != len(qv):
			return joinNote(note, "the embedder changed its vector length; ranked by words alone")
		default:
			sims[j] = Cosine(qv, vecs[j])
		}
	}
	best := keyScore(keys[0])
	type scored struct {
		key   uint64
		score float64
	}
	order := make([]scored, len(keys))
	for j, k := range keys {
		rel := 0.0
		if best > 0 {
			rel = keyScore(k) / best
		}
		order[j] = scored{k, rel + embedWeight*sims[j]}
	}
	// A stable insertion sort: few candidates, ties keep the word order.
	for a := 1; a < len(order); a++ {
		for b := a; b > 0 && order[b].score > order[b-1].score; b-- {
			order[b], order[b-1] = order[b-1], order[b]
		}
	}
	for j := range order {
		keys[j] = order[j].key
	}
	return note
}

// joinNote joins two notes of an answer.
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// keyScore returns the score a term rank key encodes (termKey).
func keyScore(k uint64) float64 { return float64(1<<32-1-k>>32) / 1e6 }

// Cosine returns the cosine similarity of a and b, of equal lengths; 0
// when either is zero.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
