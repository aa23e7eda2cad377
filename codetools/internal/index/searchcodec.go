package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"strings"
	"unsafe"

	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/bm25f"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// The search file (codesnap.SearchName) holds what building a catalog
// would otherwise read from the index and compute from the snapshot's
// source: the declarations of the index with their documentation
// prefixes, and the term index and name order of the snapshot's entries.
// Its layout (uvarints unless said otherwise):
//
//	searchMagic
//	8 bytes  the manifest's hash (Snapshot.ManifestSum), little-endian
//	         the size of the index it was made from (index.txt, plain)
//	1 byte   1 if that index has search words
//	         the number of files, then each file's location and number
//	         of declarations (a length, then the bytes, for a string)
//	         the length of the declaration section, then, for each
//	         declaration in the index's order: its kind, 1 if bodyless,
//	         its name, line, end line, start, end, doc start, doc end and
//	         documentation prefix length (DocString)
//	         the length of the documentation section, then the
//	         documentation prefixes one after the other
//	         E, the snapshot's entries sorted by id (duplicates dropped)
//	8 bytes  idSum of their ids, in that order
//	         E numbers: the entries in the order of Search.ByName
//	the bm25f encoding of their term index (bm25f.Index.AppendBinary),
//	         document i being entry i
//	4 bytes  the CRC-32 (Castagnoli) of all the bytes before, little-endian
const searchMagic = "embedmcp-codetools-search/2\n"

// ErrStaleSearch reports a search file made from another snapshot than
// the one it is in.
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

// searchFile is a search file whose header is decoded.
type searchFile struct {
	manifestSum uint64
	indexSize   uint64
	words       bool
	files       []searchFileRef
	decls       []byte // the declaration section
	docs        string // the documentation section
	terms       []byte // from E on
}

type searchFileRef struct {
	path  string
	decls int
}

// reader decodes a byte section, recording the first error.
type reader struct {
	p   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = errors.New(what)
	}
	r.p = nil
}

func (r *reader) uv(what string) uint64 {
	v, k := binary.Uvarint(r.p)
	if k <= 0 {
		r.fail(what)
		return 0
	}
	r.p = r.p[k:]
	return v
}

func (r *reader) i32(what string) int32 {
	v := r.uv(what)
	if v > 1<<31-1 {
		r.fail(what)
		return 0
	}
	return int32(v)
}

func (r *reader) u64(what string) uint64 {
	if len(r.p) < 8 {
		r.fail(what)
		return 0
	}
	v := binary.LittleEndian.Uint64(r.p)
	r.p = r.p[8:]
	return v
}

func (r *reader) bytes(n uint64, what string) []byte {
	if n > uint64(len(r.p)) {
		r.fail(what)
		return nil
	}
	b := r.p[:n]
	r.p = r.p[n:]
	return b
}

// searchData is the content of a search file as read, or why it could
// not be.
type searchData struct {
	data []byte
	err  error
}

// readSearchFile decodes the header of the search file of s, read as in:
// nil and nil if there is none, an error wrapping ErrBadSearch if it
// cannot be read or ErrStaleSearch if it was made from another manifest
// or index.
func readSearchFile(s *snapshot.Snapshot, in searchData) (*searchFile, error) {
	data, err := in.data, in.err
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
	fi, err := fs.Stat(s.FS, codesnap.IndexName)
	if sf.manifestSum != s.ManifestSum || err != nil || uint64(fi.Size()) != sf.indexSize {
		return nil, fmt.Errorf("%w: %s was not made from this snapshot's %s and %s", ErrStaleSearch,
			codesnap.SearchName, codesnap.ManifestName, codesnap.IndexName)
	}
	return sf, nil
}

// decodeSearchFile decodes the header and locates the sections.
func decodeSearchFile(data []byte) (*searchFile, error) {
	if !strings.HasPrefix(string(data), searchMagic) || len(data) < len(searchMagic)+4 {
		return nil, errors.New("not a search file of this version")
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, errors.New("checksum mismatch: the file is damaged")
	}
	r := &reader{p: body[len(searchMagic):]}
	sf := &searchFile{manifestSum: r.u64("header"), indexSize: r.uv("header")}
	if w := r.bytes(1, "header"); len(w) == 1 {
		sf.words = w[0] == 1
	}
	nf := r.uv("file table")
	if nf > uint64(len(r.p)) {
		return nil, errors.New("file table")
	}
	sf.files = make([]searchFileRef, nf)
	for i := range sf.files {
		sf.files[i].path = string(r.bytes(r.uv("file table"), "file table"))
		sf.files[i].decls = int(r.i32("file table"))
	}
	sf.decls = r.bytes(r.uv("declarations"), "declarations")
	sf.docs = string(r.bytes(r.uv("documentation"), "documentation"))
	sf.terms = r.p
	return sf, r.err
}

// eachDecl returns the iterator over the declarations of sf that
// Snapshot.ReadDeclList reads, and the documentation of the last one
// returned.
func (sf *searchFile) eachDecl() (next func() (string, codeindex.Decl, error), doc func() string) {
	r := &reader{p: sf.decls}
	// The names are parts of the declaration section, read in place
	// (never written): a name is copied into its id, not kept.
	names := unsafe.String(unsafe.SliceData(sf.decls), len(sf.decls))
	fi, left := -1, 0
	docOff := 0
	var cur string
	next = func() (string, codeindex.Decl, error) {
		for left == 0 {
			fi++
			if fi >= len(sf.files) {
				if len(r.p) != 0 || docOff != len(sf.docs) {
					return "", codeindex.Decl{}, errors.New("declarations left over")
				}
				return "", codeindex.Decl{}, io.EOF
			}
			left = sf.files[fi].decls
		}
		left--
		var d codeindex.Decl
		if b := r.bytes(2, "declaration"); len(b) == 2 {
			d.Kind, d.Bodyless = codeindex.Kind(b[0]), b[1] == 1
		}
		nl := r.uv("declaration")
		off := len(sf.decls) - len(r.p)
		if r.bytes(nl, "declaration") != nil {
			d.Name = names[off : off+int(nl)]
		}
		d.Line, d.EndLine = r.i32("declaration"), r.i32("declaration")
		d.Start, d.End = r.i32("declaration"), r.i32("declaration")
		d.DocStart, d.DocEnd = r.i32("declaration"), r.i32("declaration")
		n := int(r.i32("declaration"))
		if r.err != nil || n > MaxIndexedDoc || n > len(sf.docs)-docOff {
			return "", codeindex.Decl{}, fmt.Errorf("declaration %d of %s", sf.files[fi].decls-left, sf.files[fi].path)
		}
		cur = sf.docs[docOff : docOff+n]
		docOff += n
		return sf.files[fi].path, d, nil
	}
	return next, func() string { return cur }
}

// decodeTerms decodes the term section of sf.
func (sf *searchFile) decodeTerms() (*SnapTerms, error) {
	r := &reader{p: sf.terms}
	ne := r.uv("entry table")
	ids := r.u64("entry table")
	if r.err != nil || ne > uint64(len(r.p)) {
		return nil, fmt.Errorf("%w: entry table", ErrBadSearch)
	}
	byName := make([]int32, ne)
	seen := make([]bool, ne)
	for k := range byName {
		d := r.uv("name order")
		if r.err != nil || d >= ne || seen[d] {
			return nil, fmt.Errorf("%w: name order", ErrBadSearch)
		}
		seen[d] = true
		byName[k] = int32(d)
	}
	ix, err := bm25f.Decode(r.p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadSearch, err)
	}
	if ix.Len() != int(ne) || ix.Fields() != NumTermFields {
		return nil, fmt.Errorf("%w: term index of another size", ErrBadSearch)
	}
	return &SnapTerms{Index: ix, N: int(ne), IDSum: ids, ByName: byName}, nil
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
// plain or compressed): its declarations with their documentation, and
// the term index of its entries, as a catalog of every package of the
// snapshot would build them. mcpsnapshot writes it so that the catalog
// builds without reading the index or the source, or tokenizing.
func WriteSearchFile(fsys fs.FS) ([]byte, error) {
	s, err := snapshot.Open(fsys, snapshot.Interner{}, nil)
	if err != nil {
		return nil, err
	}
	idx, err := fs.Stat(s.FS, codesnap.IndexName)
	if err != nil {
		return nil, err
	}
	var files []searchFileRef
	var decls, docs []byte
	// One pass over the index and the source makes both the declaration
	// table and the entries a catalog loads from it.
	entries, words, entryDocs, _, err := loadDecls(s, 1<<31-1, 0, nil, true, true, func(fi int32, d *codeindex.Decl, doc string) {
		path := s.Files[fi].Path
		if len(files) == 0 || files[len(files)-1].path != path {
			files = append(files, searchFileRef{path: path})
		}
		files[len(files)-1].decls++
		decls = append(decls, byte(d.Kind), b2u8(d.Bodyless))
		decls = binary.AppendUvarint(decls, uint64(len(d.Name)))
		decls = append(decls, d.Name...)
		for _, v := range [...]int32{d.Line, d.EndLine, d.Start, d.End, d.DocStart, d.DocEnd, int32(len(doc))} {
			decls = binary.AppendUvarint(decls, uint64(uint32(v)))
		}
		docs = append(docs, doc...)
	})
	if err != nil {
		return nil, err
	}
	if s.Warning != nil {
		return nil, s.Warning
	}
	b := []byte(searchMagic)
	b = binary.LittleEndian.AppendUint64(b, s.ManifestSum)
	b = binary.AppendUvarint(b, uint64(idx.Size()))
	b = append(b, b2u8(s.Words))
	b = binary.AppendUvarint(b, uint64(len(files)))
	for _, f := range files {
		b = binary.AppendUvarint(b, uint64(len(f.path)))
		b = append(b, f.path...)
		b = binary.AppendUvarint(b, uint64(f.decls))
	}
	b = binary.AppendUvarint(b, uint64(len(decls)))
	b = append(b, decls...)
	b = binary.AppendUvarint(b, uint64(len(docs)))
	b = append(b, docs...)
	decls, docs = nil, nil
	entries, words, entryDocs = SortByID(entries, words, entryDocs)
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
	tb := newTermBuilder(entries, nameOff, scopes, func(i int, e *Entry) (string, bool) {
		return words[i], words[i] != "" || s.Words
	}, func(i int) string { return entryDocs[i] }, func(e *Entry) string { return s.Files[e.Snap].Display })
	for i := range entries {
		tb.add(i)
	}
	ix := tb.b.Build()
	b = binary.AppendUvarint(b, uint64(len(entries)))
	b = binary.LittleEndian.AppendUint64(b, uint64(sum))
	for _, d := range sortByName(entries, nameOff, nil) {
		b = binary.AppendUvarint(b, uint64(d))
	}
	if b, err = ix.AppendBinary(b); err != nil {
		return nil, err
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// castagnoli is the CRC-32 table of the search file's checksum.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)
