package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/bm25f"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// The search file (codesnap.SearchName) holds what building a catalog
// would otherwise compute from the snapshot's source: the documentation
// prefix of every declaration of the index, and the term index of the
// snapshot's entries. Its layout:
//
//	searchMagic
//	8 bytes  DeclSum of the index it was made from (little-endian)
//	uvarint  D, the declarations of the index; then D times a uvarint
//	         length and that many bytes: the documentation prefix of the
//	         declaration of that ordinal (DocString), empty for none
//	uvarint  E, the snapshot's entries sorted by id (duplicates dropped)
//	8 bytes  idSum of their ids, in that order
//	E times a uvarint: the entries in the order of Search.ByName
//	the bm25f encoding of their term index (bm25f.Index.AppendBinary),
//	         document i being entry i
const searchMagic = "embedmcp-codetools-search/1\n"

// ErrStaleSearch reports a search file made from another index than the
// snapshot's.
var ErrStaleSearch = errors.New("codetools: stale search file")

// ErrBadSearch reports a search file that cannot be read.
var ErrBadSearch = errors.New("codetools: malformed search file")

// SnapTerms is the term index of a snapshot's entries, built when the
// snapshot was written.
type SnapTerms struct {
	Index *bm25f.Index
	// N and IDSum are the count and idSum of the entries it indexes.
	N     int
	IDSum uint64
	// ByName orders them as Search.ByName does.
	ByName []int32
}

// searchFile is a decoded search file.
type searchFile struct {
	declSum uint64
	docs    []string // by declaration ordinal
	terms   *SnapTerms
}

// readSearchFile reads the search file of s: nil and nil if there is
// none, nil and an error wrapping ErrBadSearch if it cannot be read.
func readSearchFile(s *snapshot.Snapshot) (*searchFile, error) {
	data, err := fs.ReadFile(s.FS, codesnap.SearchName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadSearch, err)
	}
	sf, err := decodeSearchFile(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadSearch, codesnap.SearchName, err)
	}
	return sf, nil
}

// decodeSearchFile decodes the layout of searchMagic.
func decodeSearchFile(data []byte) (*searchFile, error) {
	if !strings.HasPrefix(string(data), searchMagic) {
		return nil, errors.New("not a search file of this version")
	}
	p := data[len(searchMagic):]
	u64 := func() (uint64, bool) {
		if len(p) < 8 {
			return 0, false
		}
		v := binary.LittleEndian.Uint64(p)
		p = p[8:]
		return v, true
	}
	uv := func() (uint64, bool) {
		v, k := binary.Uvarint(p)
		if k <= 0 {
			return 0, false
		}
		p = p[k:]
		return v, true
	}
	sf := &searchFile{}
	var ok bool
	sf.declSum, ok = u64()
	nd, ok2 := uv()
	if !ok || !ok2 || nd > uint64(len(p)) {
		return nil, errors.New("truncated header")
	}
	// The documentation is one string; each declaration's is a part.
	start := p
	lens := make([]uint32, nd)
	total := 0
	for k := range lens {
		n, ok := uv()
		if !ok || n > uint64(len(p)) || n > MaxIndexedDoc {
			return nil, errors.New("documentation table")
		}
		lens[k] = uint32(n)
		p = p[n:]
		total += int(n)
	}
	blob := make([]byte, 0, total)
	q := start
	for _, n := range lens {
		_, k := binary.Uvarint(q)
		blob = append(blob, q[k:k+int(n)]...)
		q = q[k+int(n):]
	}
	all := string(blob)
	sf.docs = make([]string, nd)
	off := 0
	for k, n := range lens {
		sf.docs[k] = all[off : off+int(n)]
		off += int(n)
	}
	ne, ok := uv()
	ids, ok2 := u64()
	if !ok || !ok2 || ne > 1<<31-1 {
		return nil, errors.New("entry table")
	}
	if ne > uint64(len(p)) {
		return nil, errors.New("entry table")
	}
	byName := make([]int32, ne)
	seen := make([]bool, ne)
	for k := range byName {
		d, ok := uv()
		if !ok || d >= ne || seen[d] {
			return nil, errors.New("name order")
		}
		seen[d] = true
		byName[k] = int32(d)
	}
	ix, err := bm25f.Decode(p)
	if err != nil {
		return nil, err
	}
	if ix.Len() != int(ne) || ix.Fields() != NumTermFields {
		return nil, errors.New("term index of another size")
	}
	sf.terms = &SnapTerms{Index: ix, N: int(ne), IDSum: ids, ByName: byName}
	return sf, nil
}

// idSum hashes ids (FNV-1a, each followed by a 0 byte).
type idSum uint64

func newIDSum() idSum { return 14695981039346656037 }

func (h *idSum) add(id string) {
	v := uint64(*h)
	for i := 0; i < len(id); i++ {
		v = (v ^ uint64(id[i])) * 1099511628211
	}
	*h = idSum(v * 1099511628211)
}

// WriteSearchFile returns the search file of the snapshot fsys (stored
// plain or compressed): the documentation of its declarations and the term
// index of its entries, as a catalog of every package of the snapshot
// would build them. mcpsnapshot writes it so that the catalog builds
// without reading source or tokenizing.
func WriteSearchFile(fsys fs.FS) ([]byte, error) {
	s, err := snapshot.Open(fsys, snapshot.Interner{}, nil)
	if err != nil {
		return nil, err
	}
	var docs []string
	var scratch []byte
	declSum, err := s.ReadIndex(func(n int) { docs = make([]string, 0, n) }, func(fi int32, k int, d codeindex.Decl, src []byte) {
		for len(docs) <= k {
			docs = append(docs, "")
		}
		if d.DocEnd > d.DocStart {
			docs[k], scratch = DocString(src[d.DocStart:d.DocEnd], MaxIndexedDoc, scratch)
		}
	}, true)
	if err != nil {
		return nil, err
	}
	if s.Warning != nil {
		return nil, s.Warning
	}
	sf := &searchFile{declSum: declSum, docs: docs}
	if s, err = snapshot.Open(fsys, snapshot.Interner{}, nil); err != nil {
		return nil, err
	}
	entries, _, err := loadDecls(s, 1<<31-1, 0, func() (*searchFile, error) { return sf, nil }, true)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	entries = slices.CompactFunc(entries, func(a, b Entry) bool { return a.ID == b.ID })
	nameOff := make([]uint16, len(entries))
	scopes := make([]Scope, len(entries))
	sum := newIDSum()
	for i := range entries {
		e := &entries[i]
		nameOff[i] = uint16(min(NameStart(e), 1<<16-1))
		scopes[i] = ScopeDeps
		if snapshot.IsStdPkg(e.Pkg) {
			scopes[i] = ScopeStd
		}
		sum.add(e.ID)
	}
	tb := newTermBuilder(entries, nameOff, scopes, snapWords(s))
	for i := range entries {
		tb.add(i)
	}
	ix := tb.b.Build()
	b := []byte(searchMagic)
	b = binary.LittleEndian.AppendUint64(b, declSum)
	b = binary.AppendUvarint(b, uint64(len(docs)))
	for _, d := range docs {
		b = binary.AppendUvarint(b, uint64(len(d)))
		b = append(b, d...)
	}
	b = binary.AppendUvarint(b, uint64(len(entries)))
	b = binary.LittleEndian.AppendUint64(b, uint64(sum))
	for _, d := range sortByName(entries, nameOff, nil) {
		b = binary.AppendUvarint(b, uint64(d))
	}
	return ix.AppendBinary(b)
}

// snapWords returns the words of an entry of a snapshot written with
// them (see Index.WordsOf).
func snapWords(s *snapshot.Snapshot) func(e *Entry) (string, bool) {
	return func(e *Entry) (string, bool) {
		return e.Words, e.Words != "" || e.Snap >= 0 && s != nil && s.Words
	}
}

// prebuiltSplit divides the entries of a catalog into those of the
// snapshot's search file, in its order, and the others.
type prebuiltSplit struct {
	pre  *SnapTerms
	snap []int32 // entry of each document of pre
	rest []int32 // the other entries, in order
}

// splitPrebuilt divides the entries of in, or reports false when they
// are not those the search file indexed (a package selection, the entry
// bound, a registered document on a declaration), or there is none.
func splitPrebuilt(in *SearchInput) (prebuiltSplit, bool) {
	pre := in.Pre
	if pre == nil {
		return prebuiltSplit{}, false
	}
	entries := in.Entries
	sp := prebuiltSplit{pre: pre, snap: make([]int32, 0, pre.N)}
	sum := newIDSum()
	for i := range entries {
		e := &entries[i]
		if e.Sources&SrcSnapshot == 0 {
			sp.rest = append(sp.rest, int32(i))
			continue
		}
		if e.Sources&SrcRegistered != 0 || e.Linkage&RtForeign != 0 || len(sp.snap) == pre.N {
			return prebuiltSplit{}, false
		}
		sp.snap = append(sp.snap, int32(i))
		sum.add(e.ID)
	}
	if len(sp.snap) != pre.N || uint64(sum) != pre.IDSum {
		return prebuiltSplit{}, false
	}
	return sp, true
}

// joinPrebuilt returns the term index of the entries of in from the
// snapshot's prebuilt one and one built now for the other entries.
func joinPrebuilt(in *SearchInput, nameOff []uint16, scopes []Scope, sp prebuiltSplit) (*bm25f.Joined, bool) {
	tb := newTermBuilder(in.Entries, nameOff, scopes, in.Words(scopes))
	for _, i := range sp.rest {
		tb.add(int(i))
	}
	j, err := bm25f.Join(len(in.Entries), bm25f.Part{Index: sp.pre.Index, Docs: sp.snap}, bm25f.Part{Index: tb.b.Build(), Docs: sp.rest})
	if err != nil {
		return nil, false
	}
	return j, true
}

// readSnapWords reads back the search words of the entries of s, by id,
// which LoadSnapshot leaves out when the search file serves; nil if they
// cannot be read (the index then goes without them).
func readSnapWords(s *snapshot.Snapshot) map[string]string {
	sf, err := readSearchFile(s)
	if sf == nil || err != nil {
		return nil
	}
	warning := s.Warning
	defer func() { s.Warning = warning }()
	entries, _, err := loadDecls(s, 1<<31-1, 0, func() (*searchFile, error) { return sf, nil }, true)
	if err != nil {
		return nil
	}
	m := make(map[string]string, len(entries))
	for i := range entries {
		e := &entries[i]
		if _, seen := m[e.ID]; !seen {
			m[e.ID] = e.Words // the first of equal ids, as the catalog keeps
		}
	}
	return m
}
