package bm25f

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sort"
)

// uvarint decodes an unsigned varint at the start of s, as
// binary.Uvarint does, and returns it and its length.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x80 {
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, len(s)
}

// MaxFields is the largest number of fields of an Index.
const MaxFields = 8

// maxTF bounds a term frequency and a field length as stored.
const maxTF = 255

// A posting is a varint: the gap from the previous posting's document,
// shifted left by 4, and in the low 4 bits the one field that holds the
// term once (0..7), or general or generalOnes: then a field mask follows,
// and, for general (not every field of the mask holds the term once), a
// frequency byte per field of the mask.
const (
	generalOnes = 8
	general     = 9
	codeBits    = 4
)

// Builder builds an Index, one document at a time. Documents are numbered
// from 0 in the order they are added.
type Builder struct {
	nf    int
	dict  map[string]int32
	terms []string
	posts [][]byte
	last  []int32 // per term, the last document with a posting
	lens  []uint8
	n     int32

	tok Tokenizer

	// Scratch space for one document's terms.
	slot   map[int32]int
	order  []int32
	counts [][MaxFields]uint8
	buf    []string
}

// NewBuilder returns a Builder of documents with the given number of
// fields, 1..MaxFields.
func NewBuilder(fields int) *Builder {
	if fields < 1 || fields > MaxFields {
		panic("bm25f: field count out of range")
	}
	return &Builder{nf: fields, dict: map[string]int32{}, slot: map[int32]int{}}
}

// Add adds a document whose fields hold the terms of texts (see
// AppendTerms), in field order; missing fields are empty. It returns the
// document's number.
func (b *Builder) Add(texts ...string) int32 {
	b.begin()
	for f, text := range texts[:min(len(texts), b.nf)] {
		b.buf = b.tok.AppendTerms(b.buf[:0], text)
		b.field(f, b.buf)
	}
	return b.end()
}

// AddTerms adds a document whose fields hold the given terms as they are,
// in field order; missing fields are empty. The terms should come from
// AppendTerms or Normalize so that queries meet them.
func (b *Builder) AddTerms(fields ...[]string) int32 {
	b.begin()
	for f, ts := range fields[:min(len(fields), b.nf)] {
		b.field(f, ts)
	}
	return b.end()
}

func (b *Builder) begin() {
	clear(b.slot)
	b.order = b.order[:0]
	b.counts = b.counts[:0]
	b.lens = append(b.lens, make([]uint8, b.nf)...)
}

func (b *Builder) field(f int, ts []string) {
	lens := b.lens[len(b.lens)-b.nf:]
	lens[f] = uint8(min(int(lens[f])+len(ts), maxTF))
	for _, t := range ts {
		id, ok := b.dict[t]
		if !ok {
			id = int32(len(b.terms))
			b.dict[t] = id
			b.terms = append(b.terms, t)
			b.posts = append(b.posts, nil)
			b.last = append(b.last, -1)
		}
		k, ok := b.slot[id]
		if !ok {
			k = len(b.counts)
			b.slot[id] = k
			b.counts = append(b.counts, [MaxFields]uint8{})
			b.order = append(b.order, id)
		}
		if b.counts[k][f] < maxTF {
			b.counts[k][f]++
		}
	}
}

func (b *Builder) end() int32 {
	doc := b.n
	b.n++
	for k, id := range b.order {
		c := &b.counts[k]
		var mask byte
		ones := true
		for f := 0; f < b.nf; f++ {
			if c[f] != 0 {
				mask |= 1 << f
				ones = ones && c[f] == 1
			}
		}
		gap := uint64(doc - b.last[id])
		var p []byte
		if ones && mask&(mask-1) == 0 {
			// One field, once: the field rides in the gap's low bits.
			p = binary.AppendUvarint(b.posts[id], gap<<codeBits|uint64(bits.TrailingZeros8(mask)))
		} else if ones {
			p = binary.AppendUvarint(b.posts[id], gap<<codeBits|generalOnes)
			p = append(p, mask)
		} else {
			p = binary.AppendUvarint(b.posts[id], gap<<codeBits|general)
			p = append(p, mask)
			for f := 0; f < b.nf; f++ {
				if c[f] != 0 {
					p = append(p, c[f])
				}
			}
		}
		b.posts[id] = p
		b.last[id] = doc
	}
	return doc
}

// Build returns the index of the documents added so far. The Builder must
// not be used afterwards.
func (b *Builder) Build() *Index {
	order := make([]int32, len(b.terms))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(i, j int) bool { return b.terms[order[i]] < b.terms[order[j]] })
	ix := &Index{nf: b.nf, n: int(b.n), lens: slices.Clip(b.lens), off: make([]uint32, len(order)+1)}
	size := 0
	for _, id := range order {
		size += 2*binary.MaxVarintLen32 + len(b.terms[id]) + len(b.posts[id])
	}
	data := make([]byte, 0, size)
	for i, id := range order {
		// Each term is its length, its bytes, its document frequency and
		// its postings.
		data = binary.AppendUvarint(data, uint64(len(b.terms[id])))
		data = append(data, b.terms[id]...)
		data = binary.AppendUvarint(data, uint64(countPostings(b.posts[id])))
		data = append(data, b.posts[id]...)
		ix.off[i+1] = uint32(len(data))
	}
	ix.data = string(data)
	for d := 0; d < ix.n; d++ {
		for f := 0; f < b.nf; f++ {
			ix.sumLen[f] += float64(ix.lens[d*b.nf+f])
		}
	}
	*b = Builder{}
	return ix
}

// countPostings returns the number of postings in p.
func countPostings(p []byte) int {
	n := 0
	for it := (iterator{p: string(p), doc: -1}); it.next(); {
		n++
	}
	return n
}

// Index is an immutable BM25F index: for each term, the documents that
// hold it with their frequency in each field, and each document's field
// lengths. It is compact (postings are delta- and varint-encoded) and safe
// for concurrent use.
type Index struct {
	nf     int
	n      int
	data   string   // the sorted terms, each with its frequency and postings
	off    []uint32 // term i is data[off[i]:off[i+1]]
	lens   []uint8  // lens[d*nf+f]: length of field f of document d, at most 255
	sumLen [MaxFields]float64
}

// Len returns the number of documents.
func (ix *Index) Len() int { return ix.n }

// Fields returns the number of fields.
func (ix *Index) Fields() int { return ix.nf }

// Terms returns the number of distinct terms.
func (ix *Index) Terms() int { return len(ix.off) - 1 }

// Size returns the approximate number of bytes the index holds.
func (ix *Index) Size() int { return len(ix.data) + 4*len(ix.off) + len(ix.lens) }

// entry decodes term number i: its word, document frequency and postings.
func (ix *Index) entry(i int) (word string, df int, post string) {
	p := ix.data[ix.off[i]:ix.off[i+1]]
	n, k := uvarint(p)
	word = p[k : k+int(n)]
	p = p[k+int(n):]
	f, k := uvarint(p)
	return word, int(f), p[k:]
}

// word returns term number i.
func (ix *Index) word(i int) string { w, _, _ := ix.entry(i); return w }

// term returns the number of term t, or -1.
func (ix *Index) term(t string) int {
	n := ix.Terms()
	i := sort.Search(n, func(i int) bool { return ix.word(i) >= t })
	if i < n && ix.word(i) == t {
		return i
	}
	return -1
}

// DocFreq returns the number of documents that hold t.
func (ix *Index) DocFreq(t string) int {
	if i := ix.term(t); i >= 0 {
		_, df, _ := ix.entry(i)
		return df
	}
	return 0
}

// postings returns an iterator over the postings of term number i.
func (ix *Index) postings(i int) iterator {
	_, _, p := ix.entry(i)
	return iterator{p: p, doc: -1}
}

// iterator decodes a posting list. Start it with doc -1: the first gap
// is from -1.
type iterator struct {
	p    string
	doc  int32
	mask byte
	tf   [MaxFields]uint8
}

// next advances to the next posting; it reports false at the end.
func (it *iterator) next() bool {
	if len(it.p) == 0 {
		return false
	}
	v, n := uvarint(it.p)
	it.p = it.p[n:]
	it.doc += int32(v >> codeBits)
	code := v & (1<<codeBits - 1)
	if code < generalOnes {
		it.mask = 1 << code
		it.tf = [MaxFields]uint8{}
		it.tf[code] = 1
		return true
	}
	it.mask = it.p[0]
	it.p = it.p[1:]
	for f := 0; f < MaxFields; f++ {
		switch {
		case it.mask&(1<<f) == 0:
			it.tf[f] = 0
		case code == generalOnes:
			it.tf[f] = 1
		default:
			it.tf[f] = it.p[0]
			it.p = it.p[1:]
		}
	}
	return true
}
