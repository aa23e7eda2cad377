package search

import (
	"context"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Dense retrieval fused with the word ranking. With an Embedder, a
// phrase (a query matched by terms) is also embedded, and the entries
// whose vectors are nearest to it are fused with the best entries by
// words, by reciprocal rank: an entry's fused score is
//
//	1/(fuseK+rank by words) + denseWeight/(fuseK+rank by vector)
//
// (a rank counted from 1; an entry absent from a list adds nothing from
// it), except that the best entry by words stays first. A question that shares no word with the code can then reach the
// first results, while an entry that both rankings place high stays
// first. The vectors of all entries are gathered on the first phrase: the
// snapshot's precomputed ones (PreVectors) where their text is unchanged,
// the others embedded then, FuseBatch at a time; with precomputed vectors,
// the entries that the snapshot lacks (those the running binary alone
// knows) are not embedded, and rank by words alone.
const (
	// FuseDepth is the number of entries taken from each ranking.
	FuseDepth = 30
	// FuseBatch is the most texts given to an Embedder at a time.
	FuseBatch = 31
	// fuseK damps the reciprocal ranks.
	fuseK = 10
	// denseWeight weighs the ranking by vector against the one by words.
	// With fuseK and the first by words kept, tuned on the seventeen
	// tuning sets of searcheval (891 queries, the static table of
	// staticembed): phrases top-3 from 55 % to 57 % (256 dimensions), a
	// pasted message of words alone from 91 % to 89 %; weights 0.6 and 1,
	// fuseK 30 and 60, or the first by words not kept, lost more.
	denseWeight = 0.3
)

// Embedder is an Embedder, as the search sees it.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// DocumentEmbedder is codetools.DocumentEmbedder as the search sees it:
// an Embedder that embeds the entries' texts otherwise than queries.
type DocumentEmbedder interface {
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedDocuments embeds the entries' texts: with EmbedDocuments when em
// is a DocumentEmbedder, else with Embed. A panic of em is returned as an
// error.
func EmbedDocuments(ctx context.Context, em Embedder, texts []string) ([][]float32, error) {
	if d, ok := em.(DocumentEmbedder); ok {
		return callEmbedder(ctx, d.EmbedDocuments, texts)
	}
	return callEmbedder(ctx, em.Embed, texts)
}

// callEmbedder calls embed, returning its panic as an error: the
// Embedder is the host's code, and a search that called it must neither
// fail whole nor leave the vectors' lock held.
func callEmbedder(ctx context.Context, embed func(context.Context, []string) ([][]float32, error),
	texts []string) (vecs [][]float32, err error) {
	defer func() {
		if r := recover(); r != nil {
			vecs, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return embed(ctx, texts)
}

// IsPhrase reports whether query reads as a phrase in words, which Fuse
// fuses: two words or more, of letters (with hyphens and apostrophes
// within, a comma, a question or full stop after), no digit, no other
// punctuation. A pasted message (with a colon, a number, a quoted or
// bracketed part) or a name is ranked by words alone: its words are the
// code's own, and the words find it better than a vector does.
func IsPhrase(query string) bool {
	ws := strings.Fields(query)
	if len(ws) < 2 {
		return false
	}
	for _, w := range ws {
		w = strings.TrimRight(w, ",.?")
		if w == "" {
			return false
		}
		for j, r := range w {
			switch {
			case unicode.IsLetter(r):
			case (r == '-' || r == '\'') && j > 0 && j < len(w)-1:
			default:
				return false
			}
		}
	}
	return true
}

// Dense holds a vector per entry of an index, gathered on first use: one
// signed byte per dimension (as vectors.bin keeps them), with the
// inverse of each vector's length.
type Dense struct {
	mu    sync.Mutex
	ready bool
	dim   int
	vecs  []int8
	inv   []float32 // by entry; 0 for a zero vector
}

// build gathers the vectors of every entry of x, from pv where it holds
// them, else from em; dim is the dimension of the query's vector.
func (d *Dense) build(ctx context.Context, x Searcher, em Embedder, dim int, pv *PreVectors) error {
	n := len(x.Entries)
	vecs := make([]int8, n*dim)
	inv := make([]float32, n)
	var missing []int
	for i := range x.Entries {
		if pv != nil {
			q, ok, listed := pv.lookup(&x.Entries[i], func() string { return x.DocOf(i) })
			if ok {
				row := vecs[i*dim : (i+1)*dim]
				for j, b := range q {
					row[j] = int8(b)
				}
				inv[i] = invNorm(row)
			}
			if ok || !listed && x.Entries[i].Sources&index.SrcSnapshot == 0 {
				// An entry the snapshot lacks (one the running
				// binary alone knows) is ranked by words alone, as
				// the file was written without it: embedding the
				// thousands of them would hold the first phrase for
				// minutes with a transformer.
				continue
			}
		}
		missing = append(missing, i)
	}
	texts := make([]string, 0, FuseBatch)
	for start := 0; start < len(missing); start += FuseBatch {
		batch := missing[start:min(start+FuseBatch, len(missing))]
		texts = texts[:0]
		for _, i := range batch {
			texts = append(texts, EmbedText(&x.Entries[i], x.DocOf(i)))
		}
		got, err := EmbedDocuments(ctx, em, texts)
		if err == nil && len(got) != len(texts) {
			err = fmt.Errorf("%d vectors for %d texts", len(got), len(texts))
		}
		if err != nil {
			return err
		}
		for j, i := range batch {
			if len(got[j]) != dim {
				return fmt.Errorf("vectors of lengths %d and %d", dim, len(got[j]))
			}
			row := vecs[i*dim : (i+1)*dim]
			if !quantize(row, got[j]) {
				return fmt.Errorf("the vector of %s is not finite", Clip(x.Entries[i].ID, index.MaxEcho))
			}
			inv[i] = invNorm(row)
		}
	}
	d.dim, d.vecs, d.inv, d.ready = dim, vecs, inv, true
	return nil
}

// quantize writes v to row as signed bytes, its largest component ±127;
// it reports false for a vector that is not finite.
func quantize(row []int8, v []float32) bool {
	m := 0.0
	for _, f := range v {
		a := math.Abs(float64(f))
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return false
		}
		m = max(m, a)
	}
	for j, f := range v {
		if m > 0 {
			row[j] = int8(math.Round(float64(f) / m * 127))
		}
	}
	return true
}

// invNorm returns 1/|row|, or 0 for a zero row.
func invNorm(row []int8) float32 {
	var s int64
	for _, b := range row {
		s += int64(b) * int64(b)
	}
	if s == 0 {
		return 0
	}
	return float32(1 / math.Sqrt(float64(s)))
}

// Fuse fuses keys, the rank keys of a term search (best first), with the
// FuseDepth entries that f accepts whose vectors are nearest to the
// query's, and returns the fused keys, best first, and a note when the
// Embedder failed (the keys are then returned as they were) or the
// snapshot's precomputed vectors could not be used (on the query that
// gathers the vectors). pre reads the
// snapshot's precomputed vectors.
func (x Searcher) Fuse(ctx context.Context, em Embedder, query string, keys []uint64, f *Filter,
	d *Dense, pre func() (*PreVectors, string)) ([]uint64, string) {
	got, err := callEmbedder(ctx, em.Embed, []string{query})
	if err == nil && (len(got) != 1 || len(got[0]) == 0 || len(got[0]) > MaxVectorDim) {
		err = fmt.Errorf("%d vectors for 1 text", len(got))
		if len(got) == 1 {
			err = fmt.Errorf("a vector of %d dimensions", len(got[0]))
		}
	}
	if err != nil {
		return keys, "the embedder failed (" + Clip(err.Error(), index.MaxEcho) + "); ranked by words alone"
	}
	qv := got[0]
	note, err := d.ensure(ctx, x, em, len(qv), pre)
	if err != nil {
		return keys, joinNote(note, "the embedder failed ("+Clip(err.Error(), index.MaxEcho)+"); ranked by words alone")
	}
	if d.dim != len(qv) {
		return keys, joinNote(note, "the embedder changed its vector length; ranked by words alone")
	}
	near := d.nearest(x, qv, f, FuseDepth)
	return fuse(keys[:min(len(keys), FuseDepth)], near, keys), note
}

// ensure builds d's vectors unless they are built, dim being the query's
// vector length, and returns the note pre gave.
func (d *Dense) ensure(ctx context.Context, x Searcher, em Embedder, dim int, pre func() (*PreVectors, string)) (note string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ready {
		return "", nil
	}
	pv, note := pre()
	if pv != nil && pv.dim != dim {
		// Vectors of another model of the same name: never again.
		pv.Off.Store(true)
		pv, note = nil, fmt.Sprintf("precomputed vectors not used: %d dimensions, the embedder's %d", pv.dim, dim)
	}
	return note, d.build(ctx, x, em, dim, pv)
}

// nearest returns the k entries that f accepts whose vectors are nearest
// to q, nearest first: those of a positive cosine, nearer than the
// farthest and than the k+1st (an entry tied with one left out is left
// out, so that vectors that say nothing, all alike, fuse nothing).
func (d *Dense) nearest(x Searcher, q []float32, f *Filter, k int) []int {
	k++
	type hit struct {
		i   int
		cos float32
	}
	best := make([]hit, 0, k+1)
	dim := d.dim
	low := float32(math.Inf(1))
	for i, inv := range d.inv {
		if inv == 0 || !f.match(x.Index, i) {
			continue
		}
		row := d.vecs[i*dim : (i+1)*dim : (i+1)*dim]
		c := dotQ(q, row) * inv
		low = min(low, c)
		if len(best) == k && c <= best[k-1].cos {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, c, func(h hit, c float32) int {
			if h.cos >= c {
				return -1
			}
			return 1
		})
		best = slices.Insert(best, at, hit{i, c})
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]int, 0, k)
	for j, h := range best {
		if j == k-1 || h.cos <= 0 || h.cos <= low || len(best) == k && h.cos <= best[k-1].cos {
			break
		}
		out = append(out, h.i)
	}
	return out
}

// fuse returns the keys of lex (best first) and the entries of near
// (nearest first) ordered by their reciprocal-rank score, then the rest
// of all (lex's tail) in their order.
func fuse(lex []uint64, near []int, all []uint64) []uint64 {
	score := map[int]float64{}
	key := map[int]uint64{}
	var order []int
	for r, k := range lex {
		i := KeyEntry(k)
		score[i] += 1 / (fuseK + float64(r+1))
		if r == 0 {
			// The best by words stays first.
			score[i] += 1
		}
		key[i] = k
		order = append(order, i)
	}
	for r, i := range near {
		if _, ok := key[i]; !ok {
			key[i] = uint64(i)
			order = append(order, i)
		}
		score[i] += denseWeight / (fuseK + float64(r+1))
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch sa, sb := score[a], score[b]; {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	out := make([]uint64, 0, len(order)+len(all))
	for _, i := range order {
		out = append(out, key[i])
	}
	for _, k := range all[len(lex):] {
		if _, ok := score[KeyEntry(k)]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// dotQ returns the dot product of q and row, of equal lengths, in four
// running sums (a brute-force scan spends its time here).
func dotQ(q []float32, row []int8) float32 {
	var s0, s1, s2, s3 float32
	j := 0
	for ; j+4 <= len(row); j += 4 {
		r := row[j : j+4 : j+4]
		v := q[j : j+4 : j+4]
		s0 += v[0] * float32(r[0])
		s1 += v[1] * float32(r[1])
		s2 += v[2] * float32(r[2])
		s3 += v[3] * float32(r[3])
	}
	for ; j < len(row); j++ {
		s0 += q[j] * float32(row[j])
	}
	return s0 + s1 + s2 + s3
}
