package search

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/bm25f"
	"github.com/embedmcp/mcp/internal/codeindex"
	"math"
	"math/bits"
	"strings"
	"sync"
)

// scoresPool recycles the score accumulators of term searches.
var scoresPool = sync.Pool{New: func() any { return new(bm25f.Scores) }}

// Morphological variants of query terms: other forms of a word in the
// catalog ("recover" and "recoverer", "valid" and "validat") count for it
// at variantWeight, the best form of each word only.
const (
	variantWeight  = 0.6
	variantMinStem = 4
	variantMaxExt  = 5
	maxVariants    = 6
	// synonymWeight is the weight of a word's synonyms (bm25f.Related).
	synonymWeight = 0.5
	// bigramWeight is the weight of a pair of adjacent query words met in
	// a string literal.
	bigramWeight = 1
	// phraseBoost multiplies the score of an entry whose id or
	// documentation holds the whole query as written.
	phraseBoost = 2
	// The coordination: an entry's score is multiplied by the share of
	// the query's words it holds, each word weighing idf² (its idf as the
	// catalog counts it, of its best form, squared), so that holding the
	// rare words of a question counts for more than holding its common
	// ones. A plain count at 0.7 (score·(0.3 + 0.7·matched/words)) let a
	// name that holds one word of a long phrase outrank a declaration
	// whose documentation and members hold them all; the full, weighted
	// share raised the ten tuning sets of searcheval (458 queries) from
	// 337 to 349 in the top 3 and kept gofakes3 at 34 of 37, which a full
	// plain count lowered to 33 (the search evaluation, 2026-12-02).
	coordIDFPower = 2
	// surfaceBonus raises the score of an entry for each query word that
	// its name holds as written (lower-cased), not only as a stem: of
	// listBucket and listBuckets, "list all buckets" prefers the second.
	surfaceBonus = 0.05
	// unlinkedPenalty lowers the score of functions and methods that are
	// not in the running binary.
	unlinkedPenalty = 0.05
	// minCandidates is the least number of entries that get the raises
	// of the second pass.
	minCandidates = 256
)

// kindPrior scales term scores by kind (of an entry's attr): a phrase asks about behaviour,
// which functions, methods and types carry; values (errors, defaults) and
// package overviews match its words more often than they answer it.
func kindPrior(attr uint8) float64 {
	if attr&(1<<6) != 0 {
		return settingPrior
	}
	if attr&(1<<5) != 0 {
		return memberPrior
	}
	switch index.Kind(attr & 15) {
	case index.KindConst, index.KindVar, index.KindPackage:
		return 0.8
	}
	return 1
}

// internalPrior scales the term score of a declaration outside its
// package's API (unexported) in a module that the host does not require
// directly: the host reaches such a module through the modules it uses,
// and a question about it asks about its API (xid.New, (*Upgrader).Upgrade,
// yaml's Decoder), not about its internals, which would otherwise crowd
// the answers about the code that uses it (gorilla/websocket's
// checkSameOrigin above the broker's NewWebsocket for "accept all
// websocket origins"). At 0.8 nothing moved on the tuning sets of
// searcheval; 0.7 raised them from 127 to 128 of 150 in the top 3.
const internalPrior = 0.7

// memberPrior scales the term score of a struct field or interface
// method: its name is short and says much, but a phrase asks more often
// about the code that uses it, and the struct holds its words too.
const memberPrior = 0.6

// settingPrior scales the term score of a setting: an exported field
// whose name says it holds a limit or a period (isSetting). A question
// about how large, how many or how long ("the largest packet a client may
// send") is answered by the field that sets it (MaximumPacketSize), which
// the code that enforces it names only in passing. At 1 this repository's
// set lost a query to a field that the set does not list; 0.85 kept it
// and raised the tuning sets of searcheval from 122 to 124 of 150 in the
// top 3.
const settingPrior = 0.85

// HowForms are the forms a word after "how" takes in the names of
// settings (as internal/bm25f normalises them): how long is a timeout or
// a duration, how many a maximum or a count, how much or how big a size.
// They raise the ten tuning sets of searcheval from 367 to 370 of 458 in
// the top 3.
var HowForms = map[string][]string{
	"long": {"timeout", "duration", "ttl", "lifetim", "deadlin", "period"},
	"mani": {"maximum", "count", "number", "limit"},
	"much": {"size", "maximum", "limit"},
	"big":  {"size", "maximum"},
	"larg": {"size", "maximum"},
}

// QueryTerms returns the concepts of a query: its distinct terms, each with
// its variants in the catalog.
func (x Searcher) QueryTerms(query string) []bm25f.Concept {
	var out []bm25f.Concept
	for _, t := range bm25f.Terms(query) {
		dup := false
		for _, o := range out {
			dup = dup || o.Terms[0] == t
		}
		if dup {
			continue
		}
		c := bm25f.Concept{Terms: []string{t, index.JoinedMark + t}, Weights: []float64{1, 1}}
		for _, v := range x.Search.Terms.Variants(t, variantMinStem, variantMaxExt, maxVariants) {
			c.Terms = append(c.Terms, v)
			c.Weights = append(c.Weights, variantWeight)
		}
		for _, r := range bm25f.Related(t) {
			c.Terms = append(c.Terms, r)
			c.Weights = append(c.Weights, synonymWeight)
			for _, v := range x.Search.Terms.Variants(r, variantMinStem, variantMaxExt, maxVariants) {
				c.Terms = append(c.Terms, v)
				c.Weights = append(c.Weights, synonymWeight*variantWeight)
			}
		}
		out = append(out, c)
	}
	// "how long", "how many", "how much", "how big": a question about a
	// setting, which code names by what it bounds (ReadTimeout,
	// MaxFilelist, SftpServerWorkerCount).
	all := bm25f.Words(query)
	for i := 1; i < len(all); i++ {
		if all[i-1] != "how" {
			continue
		}
		forms := HowForms[all[i]]
		for k := range out {
			if out[k].Terms[0] != all[i] {
				continue
			}
			for _, f := range forms {
				out[k].Terms = append(out[k].Terms, f)
				out[k].Weights = append(out[k].Weights, synonymWeight)
			}
		}
	}
	// Pairs of adjacent words meet the same pairs of a string literal: a
	// pasted message finds the code that prints it (codeindex.Bigram).
	// They follow the words, which the coordination counts alone.
	ws := bm25f.Terms(query)
	for i := 1; i < len(ws) && len(out) < bm25f.MaxQueryTerms; i++ {
		b := codeindex.Bigram(ws[i-1], ws[i])
		if x.Search.Terms.DocFreq(b) > 0 {
			out = append(out, bm25f.Concept{Terms: []string{b}, Weights: []float64{bigramWeight}})
		}
	}
	return out
}

// termSearch ranks the entries that f accepts against the query concepts
// with BM25F over their names, receivers, documentation, package paths,
// file names and source words (see termParams), and calls add with the
// rank key of the best k entries; it returns the number of entries that
// scored. The statistics are those of the whole catalog.
//
// An entry's score is its BM25F score, scaled by the share of the query's
// words it holds (coordIDFPower), its kind (kindPrior) and whether it is
// linked (unlinkedPenalty); the entries that rank best by that score are
// then raised for holding the query as written (phraseBoost) and for the
// query words their names hold as written (surfaceBonus). Those raises
// never lower a score, so only the best max(k, minCandidates) entries
// need them.
func (x Searcher) termSearch(terms []bm25f.Concept, phrase string, words []string, f *Filter, k int, add func(uint64)) int {
	if len(terms) == 0 {
		return 0
	}
	ix := x.Search.Terms
	st := x.Search.TermStats
	// The words come first, then the pairs of adjacent words (queryTerms).
	nw := 0
	for nw < len(terms) && !strings.Contains(terms[nw].Terms[0], "+") {
		nw++
	}
	nw = max(min(nw, bm25f.MaxQueryTerms), 1)
	words1 := uint64(1)<<nw - 1
	s := scoresPool.Get().(*bm25f.Scores)
	defer scoresPool.Put(s)
	ix.Score(terms, &termParams, &st, s)
	buf := KeyPool.Get().(*[]uint64)
	defer KeyPool.Put(buf)
	cands := topK{k: max(k, minCandidates), heap: (*buf)[:0]}
	cw, cwSum := coordWeights(ix, &st, terms[:nw])
	n := 0
	for _, d := range s.Touched {
		i := int(d)
		if !f.match(x.Index, i) {
			continue
		}
		n++
		a := x.Search.Attr[i]
		tier := x.Search.Tier[i]
		if f.Library && tier == index.TierLibrary && x.Search.Scope[i] != index.ScopeStd {
			tier = index.TierDirect
		}
		share := 0.0
		for m := s.Matched[d] & words1; m != 0; m &= m - 1 {
			share += cw[bits.TrailingZeros64(m)]
		}
		base := s.Score[d] * share / cwSum *
			kindPrior(a) * (1 - unlinkedPenalty*float64(a>>4&1)) * index.TierWeight[tier]
		if a&(1<<7) != 0 && tier == index.TierIndirect {
			base *= internalPrior
		}
		if index.IsUnused(x.Search.Unused, i) {
			base *= unusedPrior
		}
		if tier == index.TierLibrary && x.Search.Scope[i] != index.ScopeStd {
			base *= index.LibraryPrior
		}
		s.Score[d] = base
		// Ties among candidates go by scope and entry; the id length
		// orders the final ranking.
		cands.push(termKey(base, x.Search.Tier[i], 0, i))
	}
	all := words1
	for _, key := range cands.heap {
		i := KeyEntry(key)
		score := s.Score[i]
		if phrase != "" && s.Matched[i]&all == all && x.holds(i, phrase) {
			score *= phraseBoost
		}
		score *= 1 + surfaceBonus*float64(x.surfaceWords(i, words))
		add(termKey(score, x.Search.Tier[i], len(x.Entries[i].ID), i))
	}
	*buf = cands.heap[:0]
	return n
}

// coordWeights returns the weight of each word concept in the
// coordination (coordIDFPower) and their sum; a word that no entry holds
// in any form weighs nothing, and the sum is never 0.
func coordWeights(ix *bm25f.Joined, st *bm25f.Stats, words []bm25f.Concept) (w [bm25f.MaxQueryTerms]float64, sum float64) {
	for qi, c := range words {
		best := 0.0
		for vi, t := range c.Terms {
			if df := ix.DocFreq(t); df > 0 {
				best = max(best, c.Weights[vi]*bm25f.IDF(st.N, float64(df)))
			}
		}
		w[qi] = math.Pow(best, coordIDFPower)
		sum += w[qi]
	}
	return w, max(sum, math.SmallestNonzeroFloat64)
}

// phraseOf returns the lower-cased query with its white space collapsed,
// when it has several words: the phrase an entry may hold as written.
func phraseOf(query string) string {
	ws := strings.Fields(query)
	if len(ws) < 2 {
		return ""
	}
	return lowerString(strings.Join(ws, " "))
}

// holds reports whether the id or documentation of entry i holds the
// lower-cased phrase. A phrase holds a space, which neither an id nor its
// package prefix (left out of the haystack) does: the haystack's segment
// answers.
func (x Searcher) holds(i int, phrase string) bool {
	return strings.Contains(x.Hay[x.Offs[i]:x.Offs[i+1]], phrase)
}

// surfaceWords returns the lower-cased words of a query that can carry a
// surface form (three letters or more).
func surfaceWords(query string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(lowerString(query), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r >= 0x80)
	}) {
		if len(f) >= 3 {
			out = append(out, f)
		}
	}
	return out
}

// surfaceWords counts the words that the lower-cased name of entry i
// holds.
func (x Searcher) surfaceWords(i int, words []string) int {
	if len(words) == 0 {
		return 0
	}
	e := &x.Entries[i]
	// The lower-cased id is its package prefix and the start of the
	// haystack's segment.
	lp := x.lowerPrefix(e)
	seg := x.Hay[x.Offs[i]:x.Offs[i+1]]
	if len(lp)+len(seg) < len(e.ID) {
		return 0
	}
	ns := int(x.Search.NameOff[i])
	var name string
	if ns >= len(lp) {
		name = seg[ns-len(lp) : len(e.ID)-len(lp)]
	} else {
		name = (lp + seg)[ns:len(e.ID)]
	}
	n := 0
	for _, w := range words {
		if strings.Contains(name, w) {
			n++
		}
	}
	return n
}

// unusedPrior scales the term score of a type that the running binary
// does not use, and of its methods and fields (unusedTypes): a library
// that is both client and server (x/crypto/ssh, pkg/sftp, a Modbus or
// SMTP package) links only the side its host uses, and a question about
// a running server ("the client's path against the start directory",
// "the largest number of coils one read may ask for") is about that side,
// though the other holds the same words. Functions are not lowered: an
// option function the host does not call (WithMaxTxPacket) answers a
// question about how to change the service. Against 1, 0.5 raises the ten
// tuning sets of searcheval from 364 to 370 of 458 in the top 3 (0.3:
// 371, 0.7: 370); gofakes3 and this repository's set do not move.
const unusedPrior = 0.5
