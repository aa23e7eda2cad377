package index

import (
	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// Base holds the entries of the runtime and snapshot sources and
// what the index reads of the sources.
type Base struct {
	Entries []Entry // sorted by id
	// Words are the search words of each entry, from the snapshot's
	// index; nil when the search file's term index serves (Pre), or the
	// snapshot has none.
	Words []string
	// RtFiles are the display paths Entry.RtFile numbers.
	RtFiles     []string
	Snap        *snapshot.Snapshot
	RuntimeErr  error
	SnapshotErr error
	NoSource    []string // packages with runtime entries but no snapshot source
	// aliases maps function symbols of closures, wrappers and method
	// values, as linked and as the runtime prints them, to the id of their
	// declaration ("" for a printed name two declarations share).
	Aliases map[string]string
	// inlInto maps the id of a declaration inlined somewhere to one
	// function it was inlined into.
	InlInto map[string]string
	// dirs maps a source directory of the build, as the function table
	// names it, to its package (for absolute file paths).
	Dirs map[string]string
	// lines caches the line offsets of snapshot files (files.go).
	lines lineCache
	// Pre is the snapshot's term index, from its search file; nil if it
	// has none or it does not serve. SearchErr says why a search file
	// the snapshot holds is not used.
	Pre       *SnapTerms
	SearchErr error
	// words are the search words of the snapshot's entries by id, read
	// back from the index when an index is built without Pre (WordsOf).
	wordsOnce sync.Once
	words     map[string]string
	// lazy builds the search words of a snapshot written without them
	// (lazywords.go); nil otherwise.
	Lazy *LazyWords
	// docs is the documentation of the entries (docs.go).
	docs baseDocs
}

// Index is the entries of a catalog and their search structures.
type Index struct {
	Base    *Base
	Entries []Entry // sorted by id
	// Hay is the lower-cased id, less its package prefix (HayCut), and
	// documentation of each entry, each followed by a zero byte.
	Hay  string
	Offs []uint32    // entry i occupies hay[offs[i]:offs[i+1]]
	Freq [256]uint32 // byte frequencies of hay
	// HayPkgs holds the lower-cased package prefix ("pkg.") that Hay
	// leaves out of the ids of each package (HayCut).
	HayPkgs map[string]string
	Search  Search // ranking, names, files and terms (postings.go)
	// RegDocs are the documentation prefixes of the registered documents,
	// by Entry.Reg ("" for none: a declaration keeps its own).
	RegDocs []string
	// RegFiles are the files of the registered documents, by Entry.Reg:
	// those of a document that is no declaration.
	RegFiles []string
}

// FileOf returns the display path of the definition of e, an entry of x,
// "" if unknown.
func (x *Index) FileOf(e *Entry) string {
	if e.Sources&(SrcSnapshot|SrcRuntime) == 0 {
		if e.Reg >= 0 && int(e.Reg) < len(x.RegFiles) {
			return x.RegFiles[e.Reg]
		}
		return ""
	}
	if x.Base == nil {
		return ""
	}
	return x.Base.FileOf(e)
}

// FileOf returns the display path of the definition of e, an entry of b:
// its snapshot file's, or, for an entry the function table alone knows,
// its runtime evidence's; "" if none.
func (b *Base) FileOf(e *Entry) string {
	if e.Sources&SrcSnapshot != 0 {
		if s := b.Snap; s != nil && e.Snap >= 0 && int(e.Snap) < len(s.Files) {
			return s.Files[e.Snap].Display
		}
		return ""
	}
	return b.RtFileOf(e)
}

// SharesBase reports whether the entries of x are those of its base (no
// registered document merged in, no entry left out): the haystack of the
// base is then x's.
func (x *Index) SharesBase() bool {
	b := x.Base
	return b != nil && len(x.Entries) == len(b.Entries) && (len(b.Entries) == 0 || &x.Entries[0] == &b.Entries[0])
}

// DocOf returns the documentation of entry i.
func (x *Index) DocOf(i int) string {
	e := &x.Entries[i]
	if e.Reg >= 0 && int(e.Reg) < len(x.RegDocs) && x.RegDocs[e.Reg] != "" {
		return x.RegDocs[e.Reg]
	}
	b := x.Base
	switch {
	case b == nil || e.Sources&(SrcSnapshot|SrcRuntime) == 0:
		return ""
	case x.SharesBase():
		return b.BaseDoc(i)
	}
	if j, ok := slices.BinarySearchFunc(b.Entries, e.ID, func(a Entry, id string) int { return strings.Compare(a.ID, id) }); ok {
		return b.BaseDoc(j)
	}
	return ""
}

// BuildHaystack builds the lower-cased search text: the base's, built
// once, when x shares its entries.
func (x *Index) BuildHaystack() {
	var h haystack
	if x.SharesBase() {
		h = *x.Base.baseHaystack()
	} else {
		docs := make([]string, len(x.Entries))
		for i := range docs {
			docs[i] = x.DocOf(i)
		}
		h, _ = buildHaystack(x.Entries, func(i int) string { return docs[i] }, false)
	}
	x.Hay, x.Offs, x.Freq, x.HayPkgs = h.hay, h.offs, h.freq, h.pkgs
}

// appendLower appends the lower-case form of s to b, as WriteLower
// writes it.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return append(b, strings.ToLower(s)...)
		}
	}
	start := len(b)
	b = append(b, s...)
	for j := start; j < len(b); j++ {
		if c := b[j]; 'A' <= c && c <= 'Z' {
			b[j] = c + 'a' - 'A'
		}
	}
	return b
}

// WriteLower writes the lower-case form of s.
func WriteLower(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			b.WriteString(strings.ToLower(s))
			return
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
}

// Lookup returns the entry with the given id.
func (x *Index) Lookup(id string) (*Entry, bool) {
	return LookupEntry(x.Entries, id)
}

// LookupSymbol returns the declaration a function symbol of the running
// binary (a closure, method value or wrapper, as a stack trace prints it)
// was attributed to.
func (x *Index) LookupSymbol(name string) (*Entry, bool) {
	id, ok := x.Base.Aliases[TrimCallArgs(strings.TrimSpace(name))]
	if !ok || id == "" {
		return nil, false
	}
	return x.Lookup(id)
}

// IDRange returns the entries whose id starts with prefix.
func (x *Index) IDRange(prefix string) (lo, hi int) {
	lo, _ = slices.BinarySearchFunc(x.Entries, prefix, func(e Entry, p string) int { return strings.Compare(e.ID, p) })
	hi = lo
	for hi < len(x.Entries) && strings.HasPrefix(x.Entries[hi].ID, prefix) {
		hi++
	}
	return lo, hi
}

// ResolveSymbolName resolves a function symbol or id to its entry.
func (x *Index) ResolveSymbolName(sym string) (*Entry, bool) {
	if sym == "" {
		return nil, false
	}
	if e, ok := x.Lookup(sym); ok {
		return e, true
	}
	if e, ok := x.LookupSymbol(sym); ok {
		return e, true
	}
	if s, ok := ParseSymbol(sym, "", nil); ok {
		for _, pkg := range append([]string{s.Pkg}, x.Search.MainPkgs...) {
			if s.Pkg != "main" && pkg != s.Pkg {
				continue
			}
			s.Pkg = pkg
			if e, ok := x.Lookup(s.ID()); ok {
				return e, true
			}
			if alt := s.AltID(); alt != "" {
				if e, ok := x.Lookup(alt); ok {
					return e, true
				}
			}
		}
	}
	return nil, false
}

// EntryIndex returns the index of e in x.entries.
func (x *Index) EntryIndex(e *Entry) int {
	i, _ := slices.BinarySearchFunc(x.Entries, e.ID, func(a Entry, id string) int { return strings.Compare(a.ID, id) })
	return i
}

// ResolveLocal resolves a name as written in a file of package pkg: a
// function of the package (orders), a method value (s.orders: a method
// of one of the package's types), or a qualified name (store.Get, where
// the qualifier is an import's last element).
func (x *Index) ResolveLocal(pkg, name string) (*Entry, bool) {
	qual, sel, qualified := strings.Cut(name, ".")
	if !qualified {
		return x.ResolveSymbolName(pkg + "." + name)
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		qual, sel = name[:i], name[i+1:]
	}
	var found *Entry
	for i := range x.Entries {
		e := &x.Entries[i]
		switch {
		case e.Pkg == pkg && (strings.HasSuffix(e.ID, ")."+sel) || strings.HasSuffix(e.ID, "."+sel) && strings.Count(e.ID[len(pkg):], ".") == 2):
			// A method of a type of the package.
			return e, true
		case found == nil && e.ID == e.Pkg+"."+sel && (e.Pkg == qual || strings.HasSuffix(e.Pkg, "/"+qual)):
			found = e
		}
	}
	return found, found != nil
}

// Name returns the name of entry i (see entryName).
func (x *Index) Name(i int) string { return EntryNameAt(x.Entries, x.Search.NameOff, i) }

// Symbol is a parsed Go symbol name.
type Symbol struct {
	Pkg  string // import path
	Recv string // receiver type name without type arguments, "" for functions
	Ptr  bool   // pointer receiver
	name string // function, method, or init.N name
	// closure reports that a closure, wrapper or numbered suffix was
	// folded into the enclosing declaration.
	Closure bool
}

// ID returns the canonical id of s.
func (s Symbol) ID() string {
	switch {
	case s.Recv == "":
		return s.Pkg + "." + s.name
	case s.Ptr:
		return s.Pkg + ".(*" + s.Recv + ")." + s.name
	default:
		return s.Pkg + "." + s.Recv + "." + s.name
	}
}

// AltID returns the id with the other receiver spelling, or "".
func (s Symbol) AltID() string {
	if s.Recv == "" {
		return ""
	}
	s.Ptr = !s.Ptr
	return s.ID()
}

// ParseSymbol parses a symbol name from the function table, a stack trace
// or a pprof profile. mainPath, if not empty, replaces the package "main".
// isPkg, if not nil, reports known import paths; it disambiguates paths
// whose last element contains a dot when the name is not escaped.
func ParseSymbol(raw, mainPath string, isPkg func(string) bool) (Symbol, bool) {
	s := strings.TrimSpace(raw)
	s = TrimCallArgs(s)
	s = gofunc.StripTypeArgs(s)
	if s == "" || strings.HasPrefix(s, "type:") || strings.HasPrefix(s, "go:") ||
		strings.HasPrefix(s, "go.") || strings.ContainsAny(s, " \t\n") {
		return Symbol{}, false
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot <= 0 {
		return Symbol{}, false
	}
	cut := slash + 1 + dot
	if isPkg != nil {
		for j := cut + 1; j < len(s); j++ {
			if s[j] == '.' && isPkg(gofunc.Unescape(s[:j])) {
				cut = j
			}
		}
	}
	sym := Symbol{Pkg: gofunc.Unescape(s[:cut])}
	if sym.Pkg == "main" && mainPath != "" {
		sym.Pkg = mainPath
	}
	rest := s[cut+1:]
	if strings.HasPrefix(rest, "(*") {
		end := strings.IndexByte(rest, ')')
		if end < 3 || !strings.HasPrefix(rest[end:], ").") {
			return Symbol{}, false
		}
		sym.Recv, sym.Ptr = rest[2:end], true
		rest = rest[end+2:]
		parts := strings.Split(rest, ".")
		sym.name = gofunc.TrimWrapper(parts[0])
		sym.Closure = len(parts) > 1 || sym.name != parts[0]
		return sym, sym.name != "" && gofunc.ValidIdent(sym.Recv)
	}
	parts := strings.Split(rest, ".")
	if parts[0] == "glob" && len(parts) > 1 && parts[1] == "" {
		// Closure in a package-level variable initializer.
		sym.name, sym.Closure = "init", true
		return sym, true
	}
	first := gofunc.TrimWrapper(parts[0])
	folded := first != parts[0]
	switch {
	case first == "init" && !folded && len(parts) > 1 && gofunc.IsDigits(parts[1]):
		sym.name = "init." + parts[1]
		folded = len(parts) > 2
	case len(parts) > 1 && !folded && !gofunc.IsClosureSegment(parts[1]):
		sym.Recv = first
		sym.name = gofunc.TrimWrapper(parts[1])
		folded = len(parts) > 2 || sym.name != parts[1]
	default:
		sym.name = first
		folded = folded || len(parts) > 1
	}
	sym.Closure = folded
	if sym.name == "" || (sym.Recv != "" && !gofunc.ValidIdent(sym.Recv)) {
		return Symbol{}, false
	}
	return sym, true
}

// TrimCallArgs removes the argument list of a stack-trace frame, as in
// "main.(*T).M(0xc000010000, 0x1)" or "main.F(...)".
func TrimCallArgs(s string) string {
	if !strings.HasSuffix(s, ")") {
		return s
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if i > 0 && s[i-1] != '.' {
					return s[:i]
				}
				return s
			}
		}
	}
	return s
}

// DeclID returns the id of declaration name (as in gofunc.Reading's Outer
// or Inner) of package pkg.
func DeclID(pkg, name string) string {
	return pkg + "." + name
}

// MaxCandidates bounds the candidate ids of an ambiguous or unknown name.
const MaxCandidates = 10

// Size estimates the bytes the search structures of x hold beyond its
// base (Base.retained counts the entries): the haystack, its offsets and
// the ranking, name, file and term tables.
func (x *Index) Size() uint64 {
	s := &x.Search
	var n uint64
	if !x.SharesBase() {
		// The base's haystack is the base's (Base.DocsSize).
		h := haystack{hay: x.Hay, offs: x.Offs, pkgs: x.HayPkgs}
		n += h.size()
		if len(x.Entries) > 0 {
			n += uint64(cap(x.Entries)) * uint64(unsafe.Sizeof(Entry{})) // registered entries merged into a copy
		}
	}
	for _, d := range x.RegDocs {
		n += 16 + uint64(len(d))
	}
	n += uint64(cap(s.Scope)) + uint64(cap(s.Tier)) + 2*uint64(cap(s.NameOff)) + uint64(cap(s.Attr)) +
		2*uint64(cap(s.FileNo)) + 4*uint64(cap(s.ByName)) + 8*uint64(cap(s.Unused))
	for _, f := range s.FileNames {
		n += 16 + uint64(len(f))
	}
	for k, v := range s.PkgNames {
		n += 64 + uint64(len(k)+len(v))
	}
	if s.Terms != nil {
		n += uint64(s.Terms.Size())
	}
	return n
}

// RtFileOf returns the display path of the runtime evidence of e, "" if
// none.
func (b *Base) RtFileOf(e *Entry) string {
	if int(e.RtFile) < len(b.RtFiles) {
		return b.RtFiles[e.RtFile]
	}
	return ""
}
