package index

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The documentation of the entries is not kept as it was read: once the
// lower-cased search text (the haystack) holds it, each entry's
// documentation is that text with its ASCII capitals restored (docCase),
// so the catalog keeps it once, not twice.

// docCase restores the documentation of the entries of a haystack: the
// offsets of its ASCII capitals, and the documentation that lower-casing
// does not map back byte for byte (any byte ≥ 0x80) as it was.
type docCase struct {
	// The haystack offsets of the documentation bytes that were 'A'..'Z',
	// increasing, in two parts: the offsets in block k of 64 KiB of the
	// haystack are k<<16 | low[m] for m in at[k]..at[k+1].
	low []uint16
	at  []uint32
	blk int              // the block of the last offset recorded
	raw map[int32]string // by entry
}

// record records a capital at offset off, past those recorded.
func (dc *docCase) record(off int) {
	for dc.blk < off>>16 {
		dc.blk++
		dc.at[dc.blk] = uint32(len(dc.low))
	}
	dc.low = append(dc.low, uint16(off))
}

// finish closes the blocks after the last capital recorded.
func (dc *docCase) finish() {
	for dc.blk < len(dc.at)-1 {
		dc.blk++
		dc.at[dc.blk] = uint32(len(dc.low))
	}
}

// doc returns the documentation of entry i of the haystack hay (offsets
// offs).
func (dc *docCase) doc(hay string, offs []uint32, i int) string {
	if s, ok := dc.raw[int32(i)]; ok {
		return s
	}
	seg := hay[offs[i]:offs[i+1]]
	k := strings.IndexByte(seg, 0) // an id holds no zero byte
	if k < 0 || k+2 > len(seg) {
		return ""
	}
	d := seg[k+1 : len(seg)-1]
	start := int(offs[i]) + k + 1
	end := start + len(d)
	blk := start >> 16
	if blk+1 >= len(dc.at) {
		return d
	}
	first, last := int(dc.at[blk]), int(dc.at[blk+1])
	m := first + sort.Search(last-first, func(m int) bool { return int(dc.low[first+m]) >= start&0xffff })
	var b []byte
	for ; m < len(dc.low); m++ {
		for m >= int(dc.at[blk+1]) {
			blk++ // the next block's capitals
		}
		off := blk<<16 | int(dc.low[m])
		if off >= end {
			break
		}
		if b == nil {
			b = []byte(d)
		}
		b[off-start] -= 'a' - 'A'
	}
	if b == nil {
		return d // a part of the haystack: no copy
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// size is the heap dc keeps.
func (dc *docCase) size() uint64 {
	n := 2*uint64(cap(dc.low)) + 4*uint64(cap(dc.at))
	for _, s := range dc.raw {
		n += 2*16 + uint64(len(s))
	}
	return n
}

// haystack is the lower-cased search text of a list of entries.
type haystack struct {
	hay  string
	offs []uint32
	freq [256]uint32
	pkgs map[string]string // Index.HayPkgs
}

// HayCut returns the length of the package prefix (the package path and a
// dot) that the haystack leaves out of the id of e: 0 if the id does not
// begin with its package and a dot. The package paths are most of the
// ids' bytes, and shared by every entry of a package: the search looks
// them up once a query (Index.HayPkgs).
func HayCut(e *Entry) int {
	if n := len(e.Pkg); n > 0 && len(e.ID) > n && e.ID[n] == '.' && e.ID[:n] == e.Pkg {
		return n + 1
	}
	return 0
}

// buildHaystack builds the haystack of entries, doc giving the
// documentation of each; with keep, it also returns what restores the
// documentation from it.
func buildHaystack(entries []Entry, doc func(int) string, keep bool) (h haystack, dc docCase) {
	n := len(entries)
	size, upper := 0, 0
	h.pkgs = map[string]string{}
	last := ""
	for i := range entries {
		e := &entries[i]
		cut := HayCut(e)
		if cut > 0 && e.Pkg != last {
			last = e.Pkg
			if _, ok := h.pkgs[last]; !ok {
				h.pkgs[last] = string(appendLower(nil, last)) + "."
			}
		}
		d := doc(i)
		size += len(e.ID) - cut + len(d) + 2
		if keep {
			upper += countUpper(d)
		}
	}
	if keep {
		dc.low = make([]uint16, 0, upper)
		dc.at = make([]uint32, size>>16+2)
	}
	// One buffer, written byte by byte without a builder's checks, that
	// becomes the string: no copy of it.
	b := make([]byte, 0, size)
	h.offs = make([]uint32, n+1)
	for i := range entries {
		e := &entries[i]
		h.offs[i] = uint32(len(b))
		b = appendLower(b, e.ID[HayCut(e):])
		b = append(b, 0)
		d := doc(i)
		if keep && d != "" {
			if !isASCII(d) {
				if dc.raw == nil {
					dc.raw = map[int32]string{}
				}
				dc.raw[int32(i)] = strings.Clone(d) // not the text it was read from
			} else {
				for j := 0; j < len(d); j++ {
					if c := d[j]; 'A' <= c && c <= 'Z' {
						dc.record(len(b) + j)
					}
				}
			}
		}
		b = appendLower(b, d)
		b = append(b, 0)
	}
	h.offs[n] = uint32(len(b))
	if keep {
		dc.finish()
	}
	if len(b) > 0 {
		h.hay = unsafe.String(&b[0], len(b))
	}
	var freq [4][256]uint32 // four counters a byte value: no wait on the previous count
	i := 0
	for ; i+4 <= len(b); i += 4 {
		freq[0][b[i]]++
		freq[1][b[i+1]]++
		freq[2][b[i+2]]++
		freq[3][b[i+3]]++
	}
	for ; i < len(b); i++ {
		freq[0][b[i]]++
	}
	for c := range h.freq {
		h.freq[c] = freq[0][c] + freq[1][c] + freq[2][c] + freq[3][c]
	}
	return h, dc
}

// size is the heap h keeps.
func (h *haystack) size() uint64 {
	n := uint64(len(h.hay)) + 4*uint64(cap(h.offs))
	for _, v := range h.pkgs {
		n += 2*2*16 + uint64(len(v)) // the key is an entry's package
	}
	return n
}

// countUpper returns the number of ASCII capitals of s, if it is ASCII
// (buildHaystack keeps other documentation as it is).
func countUpper(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			return 0
		case 'A' <= c && c <= 'Z':
			n++
		}
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// baseDocs holds the documentation of the base entries: as read
// (loaded), until the haystack of the base entries holds it (ReleaseDocs).
type baseDocs struct {
	loaded atomic.Pointer[[]string] // by entry; nil once the haystack holds them
	once   sync.Once
	built  atomic.Bool // h and dc are set
	h      haystack
	dc     docCase
}

// SetDocs sets the documentation of the entries of b, by entry (shorter
// than the entries if the last have none). The haystack of b, once built,
// holds it in their stead.
func (b *Base) SetDocs(docs []string) {
	if docs != nil {
		b.docs.loaded.Store(&docs)
	}
}

// BaseDoc returns the documentation of entry i of b.
func (b *Base) BaseDoc(i int) string {
	if p := b.docs.loaded.Load(); p != nil {
		if i < len(*p) {
			return (*p)[i]
		}
		return ""
	}
	if !b.docs.built.Load() {
		return "" // there is none
	}
	return b.docs.dc.doc(b.docs.h.hay, b.docs.h.offs, i)
}

// baseHaystack returns the haystack of the entries of b, built once; it
// holds their documentation (ReleaseDocs).
func (b *Base) baseHaystack() *haystack {
	b.docs.once.Do(func() {
		var docs []string
		if p := b.docs.loaded.Load(); p != nil {
			docs = *p
		}
		b.docs.h, b.docs.dc = buildHaystack(b.Entries,
			func(i int) string {
				if i < len(docs) {
					return docs[i]
				}
				return ""
			}, true)
		b.docs.built.Store(true)
	})
	return &b.docs.h
}

// ReleaseDocs lets the documentation as read go, once the haystack of b
// holds it; until then (while the first index over the entries of b is
// built) it is read without copies.
func (b *Base) ReleaseDocs() {
	if b.docs.built.Load() {
		b.docs.loaded.Store(nil)
	}
}

// DocsSize is the heap the documentation of b keeps: as read, or the
// haystack that holds it and what restores its case.
func (b *Base) DocsSize() uint64 {
	var n uint64
	if p := b.docs.loaded.Load(); p != nil {
		n += 16 * uint64(cap(*p))
		for _, d := range *p {
			n += uint64(len(d))
		}
	}
	if b.docs.built.Load() {
		n += b.docs.h.size() + b.docs.dc.size()
	}
	return n
}
