package index

import (
	"cmp"
	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/bm25f"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scope is the scope of an entry: main module, dependencies or standard
// library.
type Scope uint8

// The scopes, in answer order; NumScopes counts them.
const (
	ScopeMain Scope = iota
	ScopeDeps
	ScopeStd
	NumScopes
)

// Fields of the term index of code entries.
const (
	FieldName      = iota // the words of the entry's name, and the name as one word (joinedMark)
	FieldQualifier        // the words of a method's receiver type; of a type's fields and interface methods
	tfDoc                 // the documentation
	tfPackage             // the import path, without its domain
	tfFile                // the file name, without .go
	tfBody                // the words of the declaration's source (main and deps)
	tfText                // its strings, body comments, fields and interface methods (codeindex.Words)
	tfContext             // weak: the first words of its package's and its type's documentation
	NumTermFields
)

// The context field: the first maxContextTerms terms of the
// documentation of an entry's package and, for a method, field or
// interface method, of its type, at contextWeight. A question names what
// a declaration belongs to ("the S3 bucket's versioning") more often than
// its code does.
const (
	ContextWeight   = 0.15
	maxContextTerms = 10
)

// JoinedMark marks the term of a whole multi-word name ("=etag" for ETag,
// "=gofakes3" for GoFakeS3): a query word meets it as written, and it is
// no variant of the name's first word.
const JoinedMark = "="

// joinable reports whether a name of these words is also indexed as one
// word: when it has several and one is an initial or a short acronym
// (ETag, OAuth, GoFakeS3, IPAddress), as people write such names whole.
func joinable(words []string) bool {
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		if len(w) <= 2 {
			return true
		}
	}
	return false
}

// maxDocTerms bounds the documentation terms indexed per entry: the first
// sentences say what a declaration is for.
const maxDocTerms = 24

// Search holds what the ranked search needs beyond the entries and
// the literal haystack. It is built with the index and immutable.
type Search struct {
	Scope   []Scope  // by entry
	Tier    []uint8  // by entry: its prior (priors.go)
	NameOff []uint16 // by entry: the offset of its name in its id (nameStart)
	// attr packs, by entry, its kind (bits 0-3), whether it is unlinked
	// (bit 4, see unlinked), whether it is a member (bit 5, a field or
	// interface method), whether that member is a setting (bit 6, see
	// isSetting) and whether the entry is outside its package's API (bit
	// 7, see unexported): ranking reads them for many entries, and the entries
	// themselves are large.
	Attr []uint8
	// fileNo numbers the file of each entry in fileNames (0: none), so
	// that a file query reads 2 bytes per entry; fileNo is nil when the
	// catalog has more files than it can number.
	FileNo    []uint16
	FileNames []string
	ByName    []int32       // entries sorted by lower-case name, then id
	Terms     *bm25f.Joined // by entry
	// termStats are the statistics of the whole term index.
	TermStats bm25f.Stats
	// mainPkgs are the import paths "main." stands for.
	MainPkgs []string
	// pkgNames are the names of the packages whose name is not the last
	// element of their import path (mqtt for .../server/v2), which Go
	// code qualifies their declarations with.
	PkgNames map[string]string
	Counts   [NumScopes]int
	Packages int
	// unused are the entries of types the running binary does not use
	// (unusedTypes), nil for none.
	Unused []uint64
}

// SearchInput is what the search engine is built from (buildSearch,
// buildTerms): the catalog's entries and what the build and the snapshot
// say about modules and words. The engine reads nothing else of the
// index, which keeps the lookups and relations.
type SearchInput struct {
	Entries []Entry            // sorted by id
	Snap    *snapshot.Snapshot // nil for none: its modules, package names and go.mod
	MainMod string             // path of the main module of the build, "" if unknown
	Mods    []snapshot.Module  // modules of the build
	MainPkg string             // import path of the running main package, "" if unknown
	// words returns, for the scope of each entry, the function that gives
	// the search words of an entry ("" and false for none; see wordsOf).
	Words func(scopes []Scope) func(i int, e *Entry) (string, bool)
	// Doc returns the documentation of entry i (Index.DocOf); nil for
	// none.
	Doc func(i int) string
	// File returns the display path of the definition of an entry
	// (Index.FileOf); nil for none.
	File func(e *Entry) string
	// Pre is the snapshot's term index from its search file, nil for
	// none: the entries it indexes are not indexed again.
	Pre *SnapTerms
}

// file returns the display path of the definition of e.
func (in *SearchInput) file(e *Entry) string {
	if in.File == nil {
		return ""
	}
	return in.File(e)
}

// EntryNameAt returns the name of entries[i], nameOff[i] being the offset
// of the name in its id (see index.name).
func EntryNameAt(entries []Entry, nameOff []uint16, i int) string {
	return entries[i].ID[min(int(nameOff[i]), len(entries[i].ID)):]
}

// BuildSearch builds the search structures over the entries of in.
func BuildSearch(in *SearchInput) Search {
	entries := in.Entries
	si := Search{Scope: make([]Scope, len(entries)), NameOff: make([]uint16, len(entries)),
		Attr: make([]uint8, len(entries))}
	fileNums := map[string]uint16{"": 0}
	si.FileNames = []string{""}
	si.FileNo = make([]uint16, len(entries))
	for i := range entries {
		e := &entries[i]
		ns := NameStart(e) // once, not for each attribute that reads the name
		si.NameOff[i] = uint16(min(ns, 1<<16-1))
		name := e.ID[ns:]
		si.Attr[i] = uint8(e.Kind) | uint8(Unlinked(e))<<4 | b2u8(e.Member)<<5 | b2u8(e.Member && isSetting(name))<<6 |
			uint8(unexportedName(e, name))<<7
		if si.FileNo == nil {
			continue
		}
		file := in.file(e)
		n, ok := fileNums[file]
		if !ok {
			if len(si.FileNames) == 1<<16 {
				si.FileNo, si.FileNames = nil, nil
				continue
			}
			n = uint16(len(si.FileNames))
			fileNums[file] = n
			si.FileNames = append(si.FileNames, file)
		}
		si.FileNo[i] = n
	}
	si.FileNames = slices.Clip(si.FileNames)
	mainMod := in.MainMod
	mods := in.Mods
	if s := in.Snap; s != nil {
		if mainMod == "" {
			mainMod = s.MainMod
		}
		mods = append(slices.Clip(mods), s.Mods...)
	}
	if in.MainPkg != "" {
		si.MainPkgs = append(si.MainPkgs, in.MainPkg)
	}
	if s := in.Snap; s != nil && s.Manifest.MainPackage != "" && s.Manifest.MainPackage != in.MainPkg {
		si.MainPkgs = append(si.MainPkgs, s.Manifest.MainPackage)
	}
	pkgScope := map[string]Scope{}
	for i := range entries {
		e := &entries[i]
		sc, ok := pkgScope[e.Pkg]
		if !ok {
			sc = ScopeOf(e.Pkg, mainMod, mods)
			pkgScope[e.Pkg] = sc
		}
		if e.Linkage&RtForeign != 0 {
			sc = ScopeStd // C and assembly of the toolchain, not the host's code
		}
		si.Scope[i] = sc
		si.Counts[sc]++
	}
	si.PkgNames = packageNames(in.Snap, pkgScope)
	direct := directRequires(in.Snap)
	si.Tier = make([]uint8, len(entries))
	pkgTier := map[string]uint8{}
	for i := range entries {
		e := &entries[i]
		t, ok := pkgTier[e.Pkg]
		if !ok || si.Scope[i] == ScopeStd {
			t = tierOf(e.Pkg, si.Scope[i], mainMod, mods, direct)
			if si.Scope[i] != ScopeStd {
				pkgTier[e.Pkg] = t
			}
		}
		si.Tier[i] = t
	}
	si.Unused = UnusedTypes(entries, si.Scope)
	si.Packages = len(pkgScope)
	if _, ok := pkgScope[""]; ok {
		si.Packages--
	}

	split, ok := splitPrebuilt(in)
	if ok {
		si.ByName = mergeByName(entries, si.NameOff, split)
	} else {
		si.ByName = sortByName(entries, si.NameOff, nil)
	}
	si.Terms = buildTerms(in, si.NameOff, si.Scope, split, ok)
	si.TermStats = si.Terms.Stats()
	return si
}

// sortByName returns the entries of list (all when nil) sorted by
// lower-case name, then index.
func sortByName(entries []Entry, nameOff []uint16, list []int32) []int32 {
	if list == nil {
		list = make([]int32, len(entries))
		for i := range list {
			list[i] = int32(i)
		}
	}
	slices.SortFunc(list, func(i, j int32) int { return compareByName(entries, nameOff, i, j) })
	return list
}

// compareByName orders entries i and j by lower-case name, then index.
func compareByName(entries []Entry, nameOff []uint16, i, j int32) int {
	if c := compareFold(EntryNameAt(entries, nameOff, int(i)), EntryNameAt(entries, nameOff, int(j))); c != 0 {
		return c
	}
	return cmp.Compare(i, j)
}

// mergeByName returns the order of sortByName from the snapshot's
// entries in the search file's order and the others sorted now.
func mergeByName(entries []Entry, nameOff []uint16, split prebuiltSplit) []int32 {
	rest := sortByName(entries, nameOff, slices.Clone(split.rest))
	out := make([]int32, 0, len(entries))
	k := 0
	for _, d := range split.pre.ByName {
		i := split.snap[d]
		for k < len(rest) && compareByName(entries, nameOff, rest[k], i) < 0 {
			out = append(out, rest[k])
			k++
		}
		out = append(out, i)
	}
	return append(out, rest[k:]...)
}

// ScopeOf returns the scope of package pkg: the main module's packages
// (and registered entries without a package) are main, the standard
// library's std, the rest deps.
func ScopeOf(pkg, mainMod string, mods []snapshot.Module) Scope {
	switch {
	case pkg == "":
		return ScopeMain
	case snapshot.IsStdPkg(pkg):
		return ScopeStd
	}
	if m, ok := snapshot.ModuleFor(mods, pkg); ok {
		if m.Path == mainMod {
			return ScopeMain
		}
		return ScopeDeps
	}
	if mainMod != "" && (pkg == mainMod || strings.HasPrefix(pkg, mainMod+"/")) {
		return ScopeMain
	}
	return ScopeDeps
}

// buildTerms indexes the entries of in for the term search, nameOff and
// scopes giving the offset of each entry's name in its id and its scope;
// the words of declarations outside the standard library come from the
// snapshot's index (in.words). The snapshot's entries come indexed
// already when its search file serves (joinPrebuilt).
func buildTerms(in *SearchInput, nameOff []uint16, scopes []Scope, split prebuiltSplit, pre bool) *bm25f.Joined {
	if pre {
		if j, ok := joinPrebuilt(in, nameOff, scopes, split); ok {
			return j
		}
	}
	tb := newTermBuilder(in.Entries, nameOff, scopes, in.Words(scopes), in.Doc, in.File)
	for i := range in.Entries {
		tb.add(i)
	}
	j, _ := bm25f.Join(len(in.Entries), bm25f.Part{Index: tb.b.Build()}) // one part numbering every entry
	return j
}

// termBuilder adds entries to a term index, with what they share (the
// terms of packages, files and context) computed once.
type termBuilder struct {
	b       *bm25f.Builder
	entries []Entry
	nameOff []uint16
	scopes  []Scope
	words   func(i int, e *Entry) (string, bool)
	docs    func(i int) string // nil for none
	files   func(e *Entry) string

	pkgTerms, fileTerms, docTerms  map[string][]string
	name, qual, docBuf, body, text []string
	ctxt                           []string
	tok                            bm25f.Tokenizer
}

func newTermBuilder(entries []Entry, nameOff []uint16, scopes []Scope, words func(i int, e *Entry) (string, bool), docs func(i int) string, files func(e *Entry) string) *termBuilder {
	return &termBuilder{b: bm25f.NewBuilder(NumTermFields), entries: entries, nameOff: nameOff, scopes: scopes, words: words, docs: docs, files: files,
		pkgTerms: map[string][]string{}, fileTerms: map[string][]string{}, docTerms: map[string][]string{}}
}

// contextOf returns the context terms of the documentation of entry id
// (a package path or type id).
func (tb *termBuilder) contextOf(id string) []string {
	if t, ok := tb.docTerms[id]; ok {
		return t
	}
	var t []string
	if j, ok := slices.BinarySearchFunc(tb.entries, id, func(a Entry, id string) int { return strings.Compare(a.ID, id) }); ok {
		t = tb.tok.AppendTerms(nil, tb.doc(j))
		t = t[:min(len(t), maxContextTerms)]
	}
	tb.docTerms[id] = t
	return t
}

// doc returns the documentation of entry i.
func (tb *termBuilder) doc(i int) string {
	if tb.docs == nil {
		return ""
	}
	return tb.docs(i)
}

// file returns the display path of the definition of e.
func (tb *termBuilder) file(e *Entry) string {
	if tb.files == nil {
		return ""
	}
	return tb.files(e)
}

// add adds entry i as the next document.
func (tb *termBuilder) add(i int) {
	e := &tb.entries[i]
	scope := tb.scopes[i]
	docText := tb.doc(i)
	if scope == ScopeStd && e.Snap < 0 && docText == "" {
		// A function of the standard library known from the function
		// table alone has nothing for a phrase to find but its name,
		// which the literal search finds.
		tb.b.AddTerms()
		return
	}
	tok := &tb.tok
	n := EntryNameAt(tb.entries, tb.nameOff, i)
	name := tok.AppendTerms(tb.name[:0], n)
	if joinable(name) {
		name = append(name, JoinedMark+bm25f.Normalize(strings.ToLower(n)))
	}
	qual := tok.AppendTerms(tb.qual[:0], ReceiverOf(e))
	doc := tok.AppendTerms(tb.docBuf[:0], docText)
	if len(doc) > maxDocTerms {
		doc = doc[:maxDocTerms]
	}
	pt, ok := tb.pkgTerms[e.Pkg]
	if !ok {
		pt = bm25f.Terms(trimDomain(e.Pkg))
		tb.pkgTerms[e.Pkg] = pt
	}
	file := tb.file(e)
	ft, ok := tb.fileTerms[file]
	if !ok {
		ft = bm25f.Terms(strings.TrimSuffix(path.Base(file), ".go"))
		if file == "" {
			ft = nil
		}
		tb.fileTerms[file] = ft
	}
	body, text := tb.body[:0], tb.text[:0]
	if w, ok := tb.words(i, e); ok {
		// Computed by mcpsnapshot, or from an older snapshot's source
		// per package (lazywords.go): no source is read here.
		if scope != ScopeStd {
			code, rest, _ := strings.Cut(w, " | ")
			txt, members, _ := strings.Cut(rest, " | ")
			body = appendFields(body, code)
			text = appendFields(text, txt)
			qual = appendFields(qual, members)
		}
	}
	ctxt := tb.ctxt[:0]
	if e.Pkg != "" && e.Kind != KindPackage && scope != ScopeStd {
		ctxt = append(ctxt, tb.contextOf(e.Pkg)...)
		if r := ReceiverOf(e); r != "" {
			ctxt = append(ctxt, tb.contextOf(e.Pkg+"."+r)...)
		}
	}
	tb.b.AddTerms(name, qual, doc, pt, ft, body, text, ctxt)
	tb.name, tb.qual, tb.docBuf, tb.body, tb.text, tb.ctxt = name, qual, doc, body, text, ctxt
}

// appendFields appends the space-separated words of s.
func appendFields(dst []string, s string) []string {
	for w := range strings.FieldsSeq(s) {
		dst = append(dst, w)
	}
	return dst
}

// trimDomain drops the first element of an import path when it is a
// domain ("github.com/x/y" → "x/y"): it says nothing about the code.
func trimDomain(pkg string) string {
	first, rest, ok := strings.Cut(pkg, "/")
	if ok && strings.Contains(first, ".") {
		return rest
	}
	return pkg
}

// EntryName returns the name of an entry: the last element of its id (the
// function, method, type, var or const name), a package's last path
// element, a tool's name.
func EntryName(e *Entry) string { return e.ID[NameStart(e):] }

// NameStart returns the offset of the name in e.id.
func NameStart(e *Entry) int {
	id := e.ID
	switch {
	case e.Kind == KindPackage:
		return strings.LastIndexByte(id, '/') + 1
	case strings.HasPrefix(id, toolIDPrefix):
		return len(toolIDPrefix)
	}
	tail := strings.LastIndexByte(id, '/') + 1
	dot := strings.LastIndexByte(id[tail:], '.')
	if dot < 0 {
		return tail
	}
	start := tail + dot + 1
	// init.N: the name is init.N, not N.
	if gofunc.IsDigits(id[start:]) && strings.HasSuffix(id[:start-1], ".init") {
		return start - len("init.")
	}
	return start
}

// ReceiverOf returns the receiver type name of a method entry, the type
// of a field or interface method, or "".
func ReceiverOf(e *Entry) string {
	if e.Kind != KindMethod && !e.Member {
		return ""
	}
	start := NameStart(e)
	rest := e.ID[:max(start-1, 0)] // up to the dot before the name
	rest = strings.TrimSuffix(rest, ")")
	i := strings.LastIndexAny(rest, ".*(")
	return rest[i+1:]
}

// compareFold compares a and b case-insensitively (simple Unicode folding
// to lower case), without allocating.
func compareFold(a, b string) int {
	for a != "" && b != "" {
		ra, na := rune(a[0]), 1
		if ra >= utf8.RuneSelf {
			ra, na = utf8.DecodeRuneInString(a)
		}
		rb, nb := rune(b[0]), 1
		if rb >= utf8.RuneSelf {
			rb, nb = utf8.DecodeRuneInString(b)
		}
		ra, rb = LowerRune(ra), LowerRune(rb)
		if ra != rb {
			if ra < rb {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// LowerRune returns the lower case of r.
func LowerRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

// hasPrefixFold reports whether s begins with prefix, case-insensitively.
func hasPrefixFold(s, prefix string) bool {
	for prefix != "" {
		if s == "" {
			return false
		}
		rs, ns := utf8.DecodeRuneInString(s)
		rp, np := utf8.DecodeRuneInString(prefix)
		if LowerRune(rs) != LowerRune(rp) {
			return false
		}
		s, prefix = s[ns:], prefix[np:]
	}
	return true
}

// NamedRange returns the span of si.byName whose names equal name
// case-insensitively, or, with prefix set, begin with it.
func (si *Search) NamedRange(entries []Entry, name string, prefix bool) (lo, hi int) {
	n := len(si.ByName)
	nameAt := func(i int) string { return EntryNameAt(entries, si.NameOff, int(si.ByName[i])) }
	lo = sort.Search(n, func(i int) bool { return compareFold(nameAt(i), name) >= 0 })
	if prefix {
		hi = lo + sort.Search(n-lo, func(i int) bool { return !hasPrefixFold(nameAt(lo+i), name) })
	} else {
		hi = lo + sort.Search(n-lo, func(i int) bool { return compareFold(nameAt(lo+i), name) > 0 })
	}
	return lo, hi
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// toolIDPrefix begins the ids of registered tools (ToolIDPrefix).
const toolIDPrefix = "tool:"

// settingWords are the terms a setting's name holds (as
// internal/bm25f normalises them): bounds, sizes, counts of attempts,
// periods and durations.
var settingWords = map[string]bool{
	"maximum": true, "minimum": true, "limit": true, "size": true, "timeout": true, "interval": true,
	"period": true, "duration": true, "ttl": true, "lifetim": true, "deadlin": true, "retri": true,
	"quota": true, "threshold": true, "capaciti": true, "delai": true,
}

// isSetting reports whether a member of this name is a setting: exported,
// with a word of settingWords in its name (MaxRecipients, ReadTimeout,
// ClientsMaximum, SysTopicResendInterval).
func isSetting(name string) bool {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	for _, t := range bm25f.Terms(name) {
		if settingWords[t] {
			return true
		}
	}
	return false
}
