package bm25f

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// encodingMagic begins the encoding of an Index (AppendBinary).
const encodingMagic = "bm25f/1\n"

// ErrEncoding reports an encoded index that Decode cannot read: another
// version, or damaged.
var ErrEncoding = errors.New("bm25f: malformed index encoding")

// AppendBinary appends the encoding of ix to b: its field count, document
// count, field lengths and terms with their postings, as Decode reads
// them back. An index built once (at generate time) is then loaded
// without tokenizing anything.
func (ix *Index) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, encodingMagic...)
	b = binary.AppendUvarint(b, uint64(ix.nf))
	b = binary.AppendUvarint(b, uint64(ix.n))
	b = binary.AppendUvarint(b, uint64(ix.Terms()))
	for i := 1; i < len(ix.off); i++ {
		b = binary.AppendUvarint(b, uint64(ix.off[i]-ix.off[i-1]))
	}
	b = append(b, ix.lens...)
	b = append(b, ix.data...)
	return b, nil
}

// Decode returns the index that AppendBinary encoded in data. It checks
// the whole encoding (every term and posting), so that a damaged one is
// an error wrapping ErrEncoding, never a panic at search time.
func Decode(data []byte) (*Index, error) {
	bad := func(what string) error { return fmt.Errorf("%w: %s", ErrEncoding, what) }
	if !strings.HasPrefix(string(data), encodingMagic) {
		return nil, bad("not a bm25f index of this version")
	}
	p := data[len(encodingMagic):]
	next := func() (uint64, bool) {
		v, k := binary.Uvarint(p)
		if k <= 0 {
			return 0, false
		}
		p = p[k:]
		return v, true
	}
	nf, ok1 := next()
	n, ok2 := next()
	terms, ok3 := next()
	if !ok1 || !ok2 || !ok3 || nf < 1 || nf > MaxFields || n > 1<<31-1 || terms > uint64(len(p)) {
		return nil, bad("header")
	}
	ix := &Index{nf: int(nf), n: int(n), off: make([]uint32, terms+1)}
	for i := uint64(1); i <= terms; i++ {
		d, ok := next()
		if !ok || uint64(ix.off[i-1])+d > 1<<32-1 {
			return nil, bad("term offsets")
		}
		ix.off[i] = ix.off[i-1] + uint32(d)
	}
	if uint64(len(p)) < n*nf || uint64(len(p))-n*nf != uint64(ix.off[terms]) {
		return nil, bad("sizes")
	}
	ix.lens = append([]uint8(nil), p[:n*nf]...)
	ix.data = string(p[n*nf:])
	for d := 0; d < ix.n; d++ {
		for f := 0; f < ix.nf; f++ {
			ix.sumLen[f] += float64(ix.lens[d*ix.nf+f])
		}
	}
	prev := ""
	for i := 0; i < ix.Terms(); i++ {
		if err := ix.checkTerm(i, prev); err != nil {
			return nil, bad(err.Error())
		}
		prev = ix.word(i)
	}
	return ix, nil
}

// checkTerm checks that term i decodes within its bounds, follows prev in
// order, and that its postings name increasing documents of the index
// with the count it announces.
func (ix *Index) checkTerm(i int, prev string) error {
	p := ix.data[ix.off[i]:ix.off[i+1]]
	wl, k := binary.Uvarint([]byte(p[:min(len(p), binary.MaxVarintLen64)]))
	if k <= 0 || wl > uint64(len(p)-k) {
		return fmt.Errorf("term %d", i)
	}
	w := p[k : k+int(wl)]
	if i > 0 && w <= prev {
		return fmt.Errorf("term %d out of order", i)
	}
	p = p[k+int(wl):]
	df, k := binary.Uvarint([]byte(p[:min(len(p), binary.MaxVarintLen64)]))
	if k <= 0 {
		return fmt.Errorf("term %d", i)
	}
	p = p[k:]
	doc, count := int64(-1), uint64(0)
	for len(p) > 0 {
		v, k := binary.Uvarint([]byte(p[:min(len(p), binary.MaxVarintLen64)]))
		if k <= 0 || v>>codeBits == 0 {
			return fmt.Errorf("term %d: posting", i)
		}
		p = p[k:]
		doc += int64(v >> codeBits)
		if doc >= int64(ix.n) {
			return fmt.Errorf("term %d: document out of range", i)
		}
		code := v & (1<<codeBits - 1)
		switch {
		case code < generalOnes:
			if int(code) >= ix.nf {
				return fmt.Errorf("term %d: field out of range", i)
			}
		case code == generalOnes || code == general:
			if len(p) == 0 || p[0] == 0 || int(p[0])>>ix.nf != 0 {
				return fmt.Errorf("term %d: field mask", i)
			}
			mask := p[0]
			p = p[1:]
			if code == general {
				m := 0
				for ; mask != 0; mask &= mask - 1 {
					m++
				}
				if len(p) < m {
					return fmt.Errorf("term %d: frequencies", i)
				}
				p = p[m:]
			}
		default:
			return fmt.Errorf("term %d: posting code", i)
		}
		count++
	}
	if count != df {
		return fmt.Errorf("term %d: document frequency", i)
	}
	return nil
}

// A Part is an index whose documents are numbered anew in a Joined index:
// document d of Index is document Docs[d] there (d itself when Docs is
// nil).
type Part struct {
	Index *Index
	Docs  []int32
}

// Joined is an index over the documents of several parts, each document
// in exactly one: an index built ahead of time for most documents and one
// built at run time for the rest rank together as one index of all of
// them would (the same statistics, frequencies and scores). It is
// immutable and safe for concurrent use.
type Joined struct {
	parts  []Part
	nf, n  int
	sumLen [MaxFields]float64
}

// Join returns the index of n documents made of parts, which must have
// the same field count and number every document of 0..n-1 once.
func Join(n int, parts ...Part) (*Joined, error) {
	j := &Joined{parts: parts, n: n}
	seen := make([]bool, n)
	count := 0
	for pi, p := range parts {
		if pi == 0 {
			j.nf = p.Index.nf
		} else if p.Index.nf != j.nf {
			return nil, fmt.Errorf("bm25f: joined parts of %d and %d fields", j.nf, p.Index.nf)
		}
		if p.Docs != nil && len(p.Docs) != p.Index.n {
			return nil, fmt.Errorf("bm25f: part %d numbers %d of its %d documents", pi, len(p.Docs), p.Index.n)
		}
		for d := 0; d < p.Index.n; d++ {
			g := int32(d)
			if p.Docs != nil {
				g = p.Docs[d]
			}
			if g < 0 || int(g) >= n || seen[g] {
				return nil, fmt.Errorf("bm25f: part %d numbers document %d twice or out of range", pi, g)
			}
			seen[g] = true
			count++
		}
		for f := range j.sumLen {
			j.sumLen[f] += p.Index.sumLen[f]
		}
	}
	if count != n {
		return nil, fmt.Errorf("bm25f: joined parts hold %d of %d documents", count, n)
	}
	return j, nil
}

// Len returns the number of documents.
func (j *Joined) Len() int { return j.n }

// Size returns the approximate number of bytes the index holds.
func (j *Joined) Size() int {
	n := 0
	for _, p := range j.parts {
		n += p.Index.Size() + 4*len(p.Docs)
	}
	return n
}

// DocFreq returns the number of documents that hold t.
func (j *Joined) DocFreq(t string) int {
	n := 0
	for _, p := range j.parts {
		n += p.Index.DocFreq(t)
	}
	return n
}

// Stats returns the statistics of every document.
func (j *Joined) Stats() Stats {
	st := Stats{N: float64(j.n)}
	if j.n > 0 {
		for f := 0; f < j.nf; f++ {
			st.Avg[f] = j.sumLen[f] / st.N
		}
	}
	return st
}

// Variants returns the forms of t the parts hold, as Index.Variants does
// for one index.
func (j *Joined) Variants(t string, minStem, maxExt, limit int) []string {
	if len(j.parts) == 1 {
		return j.parts[0].Index.Variants(t, minStem, maxExt, limit)
	}
	var all []string
	for _, p := range j.parts {
		all = append(all, p.Index.Variants(t, minStem, maxExt, 1<<30)...)
	}
	slices.SortFunc(all, func(a, b string) int {
		if da, db := absDiff(len(a), len(t)), absDiff(len(b), len(t)); da != db {
			return da - db
		}
		return strings.Compare(a, b)
	})
	all = slices.Compact(all)
	return all[:min(limit, len(all))]
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// Score ranks every document against the query concepts q, as Index.Score
// does with no filter; documents are numbered as in the joined index.
func (j *Joined) Score(q []Concept, p *Params, st *Stats, s *Scores) {
	if len(j.parts) == 1 && j.parts[0].Docs == nil {
		j.parts[0].Index.Score(q, p, st, nil, s)
		return
	}
	s.reset(j.n)
	if st.N == 0 {
		return
	}
	bl, one := lengthNorms(j.nf, p, st)
	for qi, c := range q[:min(len(q), MaxQueryTerms)] {
		scale := c.scale()
		for vi, t := range c.Terms {
			w := c.weight(vi)
			df := j.DocFreq(t)
			if df == 0 || w <= 0 {
				continue
			}
			idf := scale * w * IDF(st.N, float64(df))
			for _, part := range j.parts {
				ix := part.Index
				ti := ix.term(t)
				if ti < 0 {
					continue
				}
				for it := ix.postings(ti); it.next(); {
					lens := ix.lens[int(it.doc)*ix.nf:]
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
					d := it.doc
					if part.Docs != nil {
						d = part.Docs[d]
					}
					v := idf * tf / (p.K1 + tf)
					s.keep(d, v, strong && w >= 1)
				}
			}
		}
		s.fold(qi)
	}
}

// Parts returns the number of parts of j.
func (j *Joined) Parts() int { return len(j.parts) }
