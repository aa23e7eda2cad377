package enquiry

import (
	"math"
	"slices"
	"strings"

	"github.com/embedmcp/mcp/internal/bm25f"
)

// BM25F parameters: k1 saturates the term frequency; b is the length
// normalisation of each field (names and titles are short and uniform, so
// they are normalised less).
const (
	k1 = 1.2

	// singleRatio is how far the top score must lead the runner-up for a
	// "single" match.
	singleRatio = 1.5

	// maxCandidates bounds an ambiguous answer.
	maxCandidates = 5
)

var fieldB = [numFields]float64{0.5, 0.5, 0.75, 0.75, 0.75, 0.75, 0.75}

// strongFields are the fields written to say what a tool is for; a term
// found only in the others (details, examples, parameters) is weak
// evidence.
const strongFields = 1<<fieldName | 1<<fieldTitle | 1<<fieldDescription | 1<<fieldWhenToUse

// bm25Params returns the ranking parameters for the field weights w.
func bm25Params(w [numFields]float64) bm25f.Params {
	p := bm25f.Params{K1: k1, Strong: strongFields}
	copy(p.W[:], w[:])
	copy(p.B[:], fieldB[:])
	return p
}

// scored is a ranked doc.
type scored struct {
	doc   int32
	score float64 // rounded to 3 decimals
	// matched and strong count the query words the doc holds whole (every
	// term of the word), and those it holds in a strong field.
	matched, strong int
}

// phraseQuery is a phrase as ranked: one concept per distinct term, and
// the words of the phrase that hold terms, each as the mask of its
// concepts. A word split into several terms (a name: ServeHTTP, auth.go,
// checkToken) counts as one word: each of its n terms weighs 1/n, and it
// is one piece of evidence, held by a doc that holds all its terms.
type phraseQuery struct {
	concepts []bm25f.Concept
	words    []uint64
}

// query returns the terms of phrase, grouped by word, without the product
// prefix (every tool belongs to the product: its name says nothing) and
// without repeats.
func query(phrase, prefix string) phraseQuery {
	var q phraseQuery
	var seen []string
	for _, w := range strings.Fields(phrase) {
		parts := bm25f.Terms(w)
		n := 0
		for _, t := range parts {
			if t != prefix && !slices.Contains(seen, t) && len(seen) < bm25f.MaxQueryTerms {
				seen = append(seen, t)
				parts[n] = t
				n++
			}
		}
		if n == 0 {
			continue
		}
		var mask uint64
		for _, t := range parts[:n] {
			mask |= 1 << len(q.concepts)
			q.concepts = append(q.concepts, bm25f.Concept{Terms: []string{t}, Weights: []float64{1}, Scale: 1 / float64(n)})
		}
		q.words = append(q.words, mask)
	}
	return q
}

// held returns how many words of q a doc holds whole (every term of the
// word, matched is the doc's concept bits), and how many of those it holds
// in a strong field (one of the word's terms in strong).
func (q *phraseQuery) held(matched, strong uint64) (words, strongWords int) {
	for _, w := range q.words {
		if matched&w == w {
			words++
			if strong&w != 0 {
				strongWords++
			}
		}
	}
	return words, strongWords
}

// rank scores the permitted docs against the query q with BM25F (see
// bm25f.Index.Score). The corpus statistics (document count, document
// frequencies, average field lengths) are those of the permitted docs only.
// It returns the best top docs that score above zero, best first, ties by
// name, and how many docs scored.
func (ix *index) rank(q phraseQuery, allowed []bool, top int) ([]scored, int) {
	var allow func(int32) bool
	st := &ix.all
	if slices.Contains(allowed, false) {
		allow = func(d int32) bool { return allowed[ix.group[d]] }
		sub := ix.bm.Stats(allow)
		st = &sub
	}
	var s bm25f.Scores
	ix.bm.Score(q.concepts, &ix.params, st, allow, &s)
	// Keep the best top, in order, by insertion: top is small.
	best := make([]scored, 0, top+1)
	for _, id := range s.Touched {
		// Rounding moves a score by at most 0.0005: one that far below the
		// last kept cannot enter.
		if len(best) == top && s.Score[id]+0.0005 < best[top-1].score {
			continue
		}
		c := scored{doc: id, score: round3(s.Score[id])}
		c.matched, c.strong = q.held(s.Matched[id], s.Strong[id])
		if len(best) == top && !better(c, best[top-1]) {
			continue
		}
		i := len(best)
		for i > 0 && better(c, best[i-1]) {
			i--
		}
		best = slices.Insert(best, i, c)
		if len(best) > top {
			best = best[:top]
		}
	}
	return best, len(s.Touched)
}

// better orders ranked docs: higher score first, then by name (docs are
// numbered in name order).
func better(a, b scored) bool {
	return a.score > b.score || a.score == b.score && a.doc < b.doc
}

// confident reports whether the top of a ranking of a query of nterms
// words is a clear winner: it leads the runner-up (if any) by
// singleRatio, more than one weak word stands behind it (a word in a
// strong field, or two words), and it holds two of the query's words at
// least (the one word of a one-word query) and half of them.
func confident(ranked []scored, nterms int) bool {
	if len(ranked) == 0 {
		return false
	}
	top := ranked[0]
	switch {
	case len(ranked) > 1 && top.score < singleRatio*ranked[1].score:
		return false
	case top.strong == 0 && top.matched < 2:
		return false
	case top.matched < min(2, nterms):
		return false
	default:
		return 2*top.matched >= nterms
	}
}

// named returns the one permitted doc whose name has two words or more and
// whose name words all appear in phrase; when several do, the one whose
// name words include every other's (edit_file over edit_file_info is no
// winner, run_tests over run is). A one-word name in a phrase is no
// evidence of intent ("goroutine count" is not a call for a tool named
// count). It returns -1 when there is none or no most specific one.
func (ix *index) named(phrase string, allowed []bool) int32 {
	ws := bm25f.Words(phrase)
	var hits []int32
	for _, w := range distinct(slices.Clone(ws)) {
		// A doc can only qualify through its first name word.
		for _, id := range ix.byFirstWord[w] {
			if allowed[ix.group[id]] && len(ix.docs[id].nameWords) >= 2 && subset(ix.docs[id].nameWords, ws) {
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
