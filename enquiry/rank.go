package enquiry

import (
	"math"
	"slices"
)

// BM25F parameters: k1 saturates the term frequency; b is the length
// normalisation of each field (names and titles are short and uniform, so
// they are normalised less).
const (
	k1 = 1.2

	// maxQueryTerms bounds the distinct terms of one phrase.
	maxQueryTerms = 64

	// singleRatio is how far the top score must lead the runner-up for a
	// "single" match.
	singleRatio = 1.5

	// maxCandidates bounds an ambiguous answer.
	maxCandidates = 5
)

var fieldB = [numFields]float64{0.5, 0.5, 0.75, 0.75, 0.75, 0.75}

// scored is a ranked doc.
type scored struct {
	doc   int32
	score float64 // rounded to 3 decimals
}

// norms are the per-call BM25F length normalisation: n permitted docs, and
// per field bl = b/avgLen and one = 1-b (both 0 for a field not searched).
type norms struct {
	n       float64
	bl, one [numFields]float64
}

// norms computes the normalisation over the docs of the allowed groups.
func (ix *index) norms(allowed []bool) norms {
	var nm norms
	var avg [numFields]float64
	for g, ok := range allowed {
		if ok {
			nm.n += float64(ix.groupCount[g])
			for f := range avg {
				avg[f] += ix.groupLen[g][f]
			}
		}
	}
	if nm.n == 0 {
		return nm
	}
	for f := range avg {
		avg[f] /= nm.n
		if ix.w[f] > 0 && avg[f] > 0 {
			nm.bl[f] = fieldB[f] / avg[f]
			nm.one[f] = 1 - fieldB[f]
		}
	}
	return nm
}

// pseudoTF is BM25F's weighted, length-normalised term frequency of one
// posting: Σ_f w_f·tf_f/(1-b_f+b_f·len_f/avg_f).
func (ix *index) pseudoTF(p *posting, nm *norms) float64 {
	lens := &ix.lens[p.doc]
	var tf float64
	for f, c := range p.tf {
		if c != 0 && nm.bl[f] != 0 {
			tf += ix.w[f] * float64(c) / (nm.one[f] + nm.bl[f]*lens[f])
		}
	}
	return tf
}

// rank scores the permitted docs against the distinct terms of phrase
// (without the product prefix) with BM25F: a doc scores Σ_t idf_t·tf/(k1+tf)
// with tf its pseudoTF for t. The corpus statistics (document count,
// document frequencies, average field lengths) are those of the permitted
// docs only. It returns the best top docs that score above zero, best
// first, ties by name, and how many docs scored.
//
// When every doc is permitted the statistics are the whole index's, and
// each posting's pseudoTF, computed at build time by the same function from
// the same numbers, is used as it is.
func (ix *index) rank(phrase, prefix string, allowed []bool, top int) ([]scored, int) {
	q := distinct(terms(phrase))
	if i := slices.Index(q, prefix); prefix != "" && i >= 0 {
		q = slices.Delete(q, i, i+1) // the product's own name says nothing
	}
	if len(q) > maxQueryTerms {
		q = q[:maxQueryTerms]
	}
	nm := ix.norms(allowed)
	if nm.n == 0 {
		return nil, 0
	}
	all := !slices.Contains(allowed, false)
	var scores []float64
	var touched []int32 // docs with a score, in the order they got one
	for _, t := range q {
		ps := ix.terms[t]
		df := len(ps)
		if !all {
			df = 0
			for i := range ps {
				if allowed[ix.group[ps[i].doc]] {
					df++
				}
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (nm.n-float64(df)+0.5)/(float64(df)+0.5))
		if scores == nil {
			scores = make([]float64, len(ix.docs))
			touched = make([]int32, 0, min(len(ix.docs), 4*len(ps)))
		}
		for i := range ps {
			p := &ps[i]
			var tf float64
			switch {
			case all:
				tf = p.pre
			case allowed[ix.group[p.doc]]:
				tf = ix.pseudoTF(p, &nm)
			}
			if tf == 0 {
				continue
			}
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * tf / (k1 + tf)
		}
	}
	// Keep the best top, in order, by insertion: top is small.
	best := make([]scored, 0, top+1)
	for _, id := range touched {
		// Rounding moves a score by at most 0.0005: one that far below the
		// last kept cannot enter.
		if len(best) == top && scores[id]+0.0005 < best[top-1].score {
			continue
		}
		s := scored{doc: id, score: round3(scores[id])}
		if len(best) == top && !better(s, best[top-1]) {
			continue
		}
		i := len(best)
		for i > 0 && better(s, best[i-1]) {
			i--
		}
		best = slices.Insert(best, i, s)
		if len(best) > top {
			best = best[:top]
		}
	}
	return best, len(touched)
}

// better orders ranked docs: higher score first, then by name (docs are
// numbered in name order).
func better(a, b scored) bool {
	return a.score > b.score || a.score == b.score && a.doc < b.doc
}

// named returns the one permitted doc whose name words all appear in
// phrase; when several do, the one whose name words include every other's
// (edit_file over edit). It returns -1 when there is none or no such most
// specific one.
func (ix *index) named(phrase string, allowed []bool) int32 {
	ws := words(phrase)
	var hits []int32
	for _, w := range distinct(slices.Clone(ws)) {
		// A doc can only qualify through its first name word.
		for _, id := range ix.byFirstWord[w] {
			if allowed[ix.group[id]] && subset(ix.docs[id].nameWords, ws) {
				hits = append(hits, id)
			}
		}
	}
	for _, h := range hits {
		top := true
		for _, o := range hits {
			// h must name strictly more than o: two tools with the same
			// name words (edit_file, edit-file) are no winner.
			if o != h && (!subset(ix.docs[o].nameWords, ix.docs[h].nameWords) || subset(ix.docs[h].nameWords, ix.docs[o].nameWords)) {
				top = false
				break
			}
		}
		if top {
			return h
		}
	}
	return -1
}

// subset reports whether every word of a is in b.
func subset(a, b []string) bool {
	for _, w := range a {
		if !slices.Contains(b, w) {
			return false
		}
	}
	return true
}

// round3 rounds to 3 decimals, so that answers are stable across platforms
// and summation orders.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
