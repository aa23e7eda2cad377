package bm25f

import "math"

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
	// Matched has bit i set when query term i matched the document.
	Matched []uint64
	// Strong has bit i set when query term i matched one of the
	// Params.Strong fields of the document.
	Strong []uint64
	// Touched lists the documents with a score, in the order they got one.
	Touched []int32
}

// reset prepares s for an index of n documents.
func (s *Scores) reset(n int) {
	if len(s.Score) < n {
		s.Score = make([]float64, n)
		s.Matched = make([]uint64, n)
		s.Strong = make([]uint64, n)
		s.Touched = s.Touched[:0]
		return
	}
	for _, d := range s.Touched {
		s.Score[d], s.Matched[d], s.Strong[d] = 0, 0, 0
	}
	s.Touched = s.Touched[:0]
}

// MaxQueryTerms bounds the terms of one query; later terms are ignored.
const MaxQueryTerms = 64

// IDF is the inverse document frequency of a term held by df of n
// documents: ln(1 + (n - df + 0.5)/(df + 0.5)).
func IDF(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

// Score ranks the documents that allow accepts (all when allow is nil)
// against the query terms q, which should be distinct, with BM25F: a
// document scores Σ_t idf(t)·tf/(K1+tf), where tf = Σ_f W_f·tf_f /
// (1 - B_f + B_f·len_f/avg_f) over its fields. The document frequencies
// are counted over the accepted documents, and st must be their Stats, so
// that scores reveal nothing about the others. s is reset first.
func (ix *Index) Score(q []string, p *Params, st *Stats, allow func(doc int32) bool, s *Scores) {
	s.reset(ix.n)
	if st.N == 0 {
		return
	}
	var bl, one [MaxFields]float64
	for f := 0; f < ix.nf; f++ {
		if p.W[f] > 0 && st.Avg[f] > 0 {
			bl[f] = p.B[f] / st.Avg[f]
			one[f] = 1 - p.B[f]
		}
	}
	for qi, t := range q[:min(len(q), MaxQueryTerms)] {
		ti := ix.term(t)
		if ti < 0 {
			continue
		}
		df := float64(ix.df[ti])
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
		idf := IDF(st.N, df)
		bit := uint64(1) << qi
		for it := ix.postings(ti); it.next(); {
			d := it.doc
			if allow != nil && !allow(d) {
				continue
			}
			lens := ix.lens[int(d)*ix.nf:]
			var tf float64
			strong := false
			for f := 0; f < ix.nf; f++ {
				if c := it.tf[f]; c != 0 && bl[f] != 0 {
					tf += p.W[f] * float64(c) / (one[f] + bl[f]*float64(lens[f]))
					strong = strong || p.Strong&(1<<f) != 0
				}
			}
			if tf == 0 {
				continue
			}
			if s.Matched[d] == 0 {
				s.Touched = append(s.Touched, d)
			}
			s.Score[d] += idf * tf / (p.K1 + tf)
			s.Matched[d] |= bit
			if strong {
				s.Strong[d] |= bit
			}
		}
	}
}
