package bm25f

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Params are the BM25F parameters of a ranking.
type Params struct {
	// K1 saturates the term frequency; 1.2 is usual.
	K1 float64
	// W are the field weights; a field of weight 0 is not searched.
	W [MaxFields]float64
	// B is the length normalisation of each field, 0 (none) to 1 (full).
	B [MaxFields]float64
	// Strong is the mask of the fields whose matches Scores.Strong records.
	Strong byte
}

// Stats are the corpus statistics of the documents a query ranks: their
// number and their average field lengths.
type Stats struct {
	N   float64
	Avg [MaxFields]float64
}

// Stats returns the statistics of the documents that allow accepts, or of
// every document when allow is nil.
func (ix *Index) Stats(allow func(doc int32) bool) Stats {
	var st Stats
	if allow == nil {
		st.N = float64(ix.n)
		for f := 0; f < ix.nf; f++ {
			st.Avg[f] = ix.sumLen[f]
		}
	} else {
		for d := 0; d < ix.n; d++ {
			if !allow(int32(d)) {
				continue
			}
			st.N++
			for f := 0; f < ix.nf; f++ {
				st.Avg[f] += float64(ix.lens[d*ix.nf+f])
			}
		}
	}
	if st.N > 0 {
		for f := range st.Avg {
			st.Avg[f] /= st.N
		}
	}
	return st
}

// Scores accumulates the scores of one query. Its slices grow to the
// number of documents on first use and are reused by later queries.
type Scores struct {
	// Score, Matched and Strong are indexed by document and valid for the
	// documents in Touched only.
	Score []float64
	// Matched has bit i set when query concept i matched the document.
	Matched []uint64
	// Strong has bit i set when the main term of query concept i matched
	// one of the Params.Strong fields of the document.
	Strong []uint64
	// Touched lists the documents with a score, in the order they got one.
	Touched []int32

	// best is the best contribution of the current concept, per document,
	// valid for bestDocs.
	best       []float64
	bestStrong []bool
	bestDocs   []int32
}

// reset prepares s for an index of n documents.
func (s *Scores) reset(n int) {
	if len(s.Score) < n {
		s.Score = make([]float64, n)
		s.Matched = make([]uint64, n)
		s.Strong = make([]uint64, n)
		s.best = make([]float64, n)
		s.bestStrong = make([]bool, n)
		s.Touched = s.Touched[:0]
		s.bestDocs = s.bestDocs[:0]
		return
	}
	for _, d := range s.Touched {
		s.Score[d], s.Matched[d], s.Strong[d] = 0, 0, 0
	}
	s.Touched = s.Touched[:0]
}

// MaxQueryTerms bounds the concepts of one query; later ones are ignored.
const MaxQueryTerms = 64

// lengthNorms returns, per field of nf, B/avg and 1-B of p over st (0 for a
// field of no weight or no length).
func lengthNorms(nf int, p *Params, st *Stats) (bl, one [MaxFields]float64) {
	for f := 0; f < nf; f++ {
		if p.W[f] > 0 && st.Avg[f] > 0 {
			bl[f] = p.B[f] / st.Avg[f]
			one[f] = 1 - p.B[f]
		}
	}
	return bl, one
}

// scale returns the concept's Scale, 1 when unset.
func (c *Concept) scale() float64 {
	if c.Scale == 0 {
		return 1
	}
	return c.Scale
}

// weight returns the weight of the concept's form vi, 1 when unset.
func (c *Concept) weight(vi int) float64 {
	if vi < len(c.Weights) {
		return c.Weights[vi]
	}
	return 1
}

// keep records v as document d's score for the current concept when it
// is the best of the concept's variants so far.
func (s *Scores) keep(d int32, v float64, strong bool) {
	if s.best[d] == 0 {
		s.bestDocs = append(s.bestDocs, d)
	}
	if v > s.best[d] {
		s.best[d] = v
	}
	s.bestStrong[d] = s.bestStrong[d] || strong
}

// fold adds the best score of concept qi to each document that matched it
// and clears the per-concept state.
func (s *Scores) fold(qi int) {
	bit := uint64(1) << qi
	for _, d := range s.bestDocs {
		if s.Matched[d] == 0 {
			s.Touched = append(s.Touched, d)
		}
		s.Score[d] += s.best[d]
		s.Matched[d] |= bit
		if s.bestStrong[d] {
			s.Strong[d] |= bit
		}
		s.best[d], s.bestStrong[d] = 0, false
	}
	s.bestDocs = s.bestDocs[:0]
}

// IDF is the inverse document frequency of a term held by df of n
// documents: ln(1 + (n - df + 0.5)/(df + 0.5)).
func IDF(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

// A Concept is one word of a query with the forms it may take in a
// document: its main term and variants (other inflections, related words)
// of lower weight. A document scores for a concept by its best form.
type Concept struct {
	Terms   []string
	Weights []float64 // by term; the main term's is 1
	// Scale multiplies the concept's score, whichever form matched; 0
	// means 1. One word of a phrase split into n concepts (a name such as
	// ServeHTTP or auth.go) weighs 1/n each, so that it counts as one word.
	// Unlike a form's weight, it does not make a match weak (Scores.Strong).
	Scale float64
}

// Plain returns one concept per term, without variants.
func Plain(terms []string) []Concept {
	out := make([]Concept, len(terms))
	for i, t := range terms {
		out[i] = Concept{Terms: []string{t}, Weights: []float64{1}}
	}
	return out
}

// Score ranks the documents that allow accepts (all when allow is nil)
// against the query concepts q with BM25F: a document scores Σ_c
// s_c·max_v w_v·idf(v)·tf/(K1+tf) over the concepts c (of Scale s_c) and
// their forms v, where
// tf = Σ_f W_f·tf_f / (1 - B_f + B_f·len_f/avg_f) over its fields; with one
// form per concept this is plain BM25F. The document frequencies are
// counted over the accepted documents, and st must be their Stats, so that
// scores reveal nothing about the others. s is reset first.
func (ix *Index) Score(q []Concept, p *Params, st *Stats, allow func(doc int32) bool, s *Scores) {
	s.reset(ix.n)
	if st.N == 0 {
		return
	}
	bl, one := lengthNorms(ix.nf, p, st)
	for qi, c := range q[:min(len(q), MaxQueryTerms)] {
		scale := c.scale()
		for vi, t := range c.Terms {
			w := c.weight(vi)
			ti := ix.term(t)
			if ti < 0 || w <= 0 {
				continue
			}
			_, dfn, _ := ix.entry(ti)
			df := float64(dfn)
			if allow != nil {
				df = 0
				for it := ix.postings(ti); it.next(); {
					if allow(it.doc) {
						df++
					}
				}
			}
			if df == 0 {
				continue
			}
			idf := scale * w * IDF(st.N, df)
			for it := ix.postings(ti); it.next(); {
				d := it.doc
				if allow != nil && !allow(d) {
					continue
				}
				lens := ix.lens[int(d)*ix.nf:]
				var tf float64
				strong := false
				for f := 0; f < ix.nf; f++ {
					if n := it.tf[f]; n != 0 && bl[f] != 0 {
						tf += p.W[f] * float64(n) / (one[f] + bl[f]*float64(lens[f]))
						strong = strong || p.Strong&(1<<f) != 0
					}
				}
				if tf == 0 {
					continue
				}
				v := idf * tf / (p.K1 + tf)
				s.keep(d, v, strong && w >= 1)
			}
		}
		s.fold(qi)
	}
}

// Variants returns up to limit terms of the index that are other forms of
// t: terms that extend t by at most maxExt bytes ("recover" →
// "recoverer"), or that t extends by at most maxExt bytes ("validation" →
// "valid"), sharing at least minStem bytes; closest in length first, then
// in byte order. t itself is not included.
func (ix *Index) Variants(t string, minStem, maxExt, limit int) []string {
	if len(t) < minStem || limit <= 0 {
		return nil
	}
	type cand struct {
		term string
		d    int
	}
	var cands []cand
	n := ix.Terms()
	// Terms that extend t follow it in order.
	i := sort.Search(n, func(i int) bool { return ix.word(i) >= t })
	for ; i < n; i++ {
		w := ix.word(i)
		if !strings.HasPrefix(w, t) {
			break
		}
		if d := len(w) - len(t); d > 0 && d <= maxExt {
			cands = append(cands, cand{w, d})
		}
	}
	// Prefixes of t.
	for l := max(minStem, len(t)-maxExt); l < len(t); l++ {
		if j := ix.term(t[:l]); j >= 0 {
			cands = append(cands, cand{t[:l], len(t) - l})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.term, b.term)
	})
	out := make([]string, 0, min(limit, len(cands)))
	for _, c := range cands[:min(limit, len(cands))] {
		out = append(out, c.term)
	}
	return out
}
