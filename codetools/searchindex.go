package codetools

import (
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/bm25f"
)

// Scopes of catalog entries: the host's main module, the other modules of
// the build, and the standard library.
const (
	ScopeMain = "main"
	ScopeDeps = "deps"
	ScopeStd  = "std"
	ScopeAll  = "all"
)

type scope uint8

const (
	scMain scope = iota
	scDeps
	scStd
	numScopes
)

var scopeNames = [numScopes]string{ScopeMain, ScopeDeps, ScopeStd}

// scopeSet is a set of scopes, a bit per scope.
type scopeSet uint8

const (
	defaultScopes = scopeSet(1<<scMain | 1<<scDeps)
	allScopes     = scopeSet(1<<scMain | 1<<scDeps | 1<<scStd)
)

func (s scopeSet) has(sc scope) bool { return s&(1<<sc) != 0 }

func (s scopeSet) String() string {
	if s == allScopes {
		return ScopeAll
	}
	var names []string
	for sc := range numScopes {
		if s.has(sc) {
			names = append(names, scopeNames[sc])
		}
	}
	return strings.Join(names, "+")
}

// parseScope parses the scope argument: "" (main and deps), main, deps,
// std or all.
func parseScope(s string) (scopeSet, bool) {
	switch s {
	case "":
		return defaultScopes, true
	case ScopeAll:
		return allScopes, true
	}
	for sc, n := range scopeNames {
		if n == s {
			return 1 << sc, true
		}
	}
	return 0, false
}

// Fields of the term index of code entries.
const (
	tfName      = iota // the words of the entry's name, and the name as one word (joinedMark)
	tfQualifier        // the words of a method's receiver type; of a type's fields and interface methods
	tfDoc              // the documentation
	tfPackage          // the import path, without its domain
	tfFile             // the file name, without .go
	tfBody             // the words of the declaration's source (main and deps)
	tfText             // its strings, body comments, fields and interface methods (codeindex.Words)
	tfContext          // weak: the first words of its package's and its type's documentation
	numTermFields
)

// termParams weigh the fields of the term search: a word of the name
// counts most, then the documentation and the receiver (or, for a type,
// its members), the package and the file name. Names are short, so their
// length is normalised little.
//
// The source words (tfBody) weigh 0.7 with little length normalisation
// (0.4): a phrase often describes what a function does in its body
// ("reject a request whose address range runs past 0xffff"), and a long
// function is no less likely to do it. Against 0.4 and 0.75 (with K1 1.2)
// these raised the ten tuning sets of searcheval from 349 to 355 of 458 in
// the top 3, with the coordination of coordIDFPower. K1 0.6 (was 0.8) and
// the receiver at 1 (was 1.5), so that a word met again counts for less
// and a method is not found for its type's name alone, raised the
// fourteen tuning sets (701 queries) from 531 to 536 in the top 3 and
// from 400 to 403 in the top 1, gofakes3 and this repository's set
// unchanged (the search evaluation, 2026-12-02).
var termParams = bm25f.Params{
	K1:     0.6,
	W:      [bm25f.MaxFields]float64{3, 1, 1, 0.75, 0.75, 0.7, 0.8, contextWeight},
	B:      [bm25f.MaxFields]float64{0.3, 0.3, 0.75, 0.3, 0.3, 0.4, 0.4, 0.5},
	Strong: 1<<tfName | 1<<tfQualifier,
}

// The context field: the first maxContextTerms terms of the
// documentation of an entry's package and, for a method, field or
// interface method, of its type, at contextWeight. A question names what
// a declaration belongs to ("the S3 bucket's versioning") more often than
// its code does.
const (
	contextWeight   = 0.15
	maxContextTerms = 10
)

// joinedMark marks the term of a whole multi-word name ("=etag" for ETag,
// "=gofakes3" for GoFakeS3): a query word meets it as written, and it is
// no variant of the name's first word.
const joinedMark = "="

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

// searchIndex holds what the ranked search needs beyond the entries and
// the literal haystack. It is built with the index and immutable.
type searchIndex struct {
	scope   []scope  // by entry
	tier    []uint8  // by entry: its prior (priors.go)
	nameOff []uint16 // by entry: the offset of its name in its id (nameStart)
	// attr packs, by entry, its kind (bits 0-3), whether it is unlinked
	// (bit 4, see unlinked), whether it is a member (bit 5, a field or
	// interface method), whether that member is a setting (bit 6, see
	// isSetting) and whether the entry is outside its package's API (bit
	// 7, see unexported): ranking reads them for many entries, and the entries
	// themselves are large.
	attr []uint8
	// fileNo numbers the file of each entry in fileNames (0: none), so
	// that a file query reads 2 bytes per entry; fileNo is nil when the
	// catalog has more files than it can number.
	fileNo    []uint16
	fileNames []string
	byName    []int32      // entries sorted by lower-case name, then id
	terms     *bm25f.Index // by entry
	// termStats are the statistics of the whole term index.
	termStats bm25f.Stats
	// mainPkgs are the import paths "main." stands for.
	mainPkgs []string
	// pkgNames are the names of the packages whose name is not the last
	// element of their import path (mqtt for .../server/v2), which Go
	// code qualifies their declarations with.
	pkgNames map[string]string
	counts   [numScopes]int
	packages int
	// unused are the entries of types the running binary does not use
	// (unusedTypes), nil for none.
	unused []uint64
}

// searchInput is what the search engine is built from (buildSearch,
// buildTerms): the catalog's entries and what the build and the snapshot
// say about modules and words. The engine reads nothing else of the
// index, which keeps the lookups and relations.
type searchInput struct {
	entries []entry            // sorted by id
	snap    *snapshot.Snapshot // nil for none: its modules, package names and go.mod
	mainMod string             // path of the main module of the build, "" if unknown
	mods    []snapshot.Module  // modules of the build
	mainPkg string             // import path of the running main package, "" if unknown
	// words returns, for the scope of each entry, the function that gives
	// the search words of an entry ("" and false for none; see wordsOf).
	words func(scopes []scope) func(e *entry) (string, bool)
}

// searchInput returns the input of the search engine of x, built with st.
func (x *catalogIndex) searchInput(st *buildState) *searchInput {
	return &searchInput{entries: x.entries, snap: x.base.snap, mainMod: st.info.MainModule.Path,
		mods: st.mods, mainPkg: st.mainPkg, words: x.wordsOf}
}

// entryNameAt returns the name of entries[i], nameOff[i] being the offset
// of the name in its id (see index.name).
func entryNameAt(entries []entry, nameOff []uint16, i int) string {
	return entries[i].id[min(int(nameOff[i]), len(entries[i].id)):]
}

// buildSearch builds the search structures over the entries of in.
func buildSearch(in *searchInput) searchIndex {
	entries := in.entries
	si := searchIndex{scope: make([]scope, len(entries)), nameOff: make([]uint16, len(entries)),
		attr: make([]uint8, len(entries))}
	fileNums := map[string]uint16{"": 0}
	si.fileNames = []string{""}
	si.fileNo = make([]uint16, len(entries))
	for i := range entries {
		e := &entries[i]
		si.nameOff[i] = uint16(min(nameStart(e), 1<<16-1))
		si.attr[i] = uint8(e.kind) | uint8(unlinked(e))<<4 | b2u8(e.member)<<5 | b2u8(e.member && isSetting(entryName(e)))<<6 |
			uint8(unexported(e))<<7
		if si.fileNo == nil {
			continue
		}
		n, ok := fileNums[e.file]
		if !ok {
			if len(si.fileNames) == 1<<16 {
				si.fileNo, si.fileNames = nil, nil
				continue
			}
			n = uint16(len(si.fileNames))
			fileNums[e.file] = n
			si.fileNames = append(si.fileNames, e.file)
		}
		si.fileNo[i] = n
	}
	si.fileNames = slices.Clip(si.fileNames)
	mainMod := in.mainMod
	mods := in.mods
	if s := in.snap; s != nil {
		if mainMod == "" {
			mainMod = s.MainMod
		}
		mods = append(slices.Clip(mods), s.Mods...)
	}
	if in.mainPkg != "" {
		si.mainPkgs = append(si.mainPkgs, in.mainPkg)
	}
	if s := in.snap; s != nil && s.Manifest.MainPackage != "" && s.Manifest.MainPackage != in.mainPkg {
		si.mainPkgs = append(si.mainPkgs, s.Manifest.MainPackage)
	}
	pkgScope := map[string]scope{}
	for i := range entries {
		e := &entries[i]
		sc, ok := pkgScope[e.pkg]
		if !ok {
			sc = scopeOf(e.pkg, mainMod, mods)
			pkgScope[e.pkg] = sc
		}
		if e.rt&rtForeign != 0 {
			sc = scStd // C and assembly of the toolchain, not the host's code
		}
		si.scope[i] = sc
		si.counts[sc]++
	}
	si.pkgNames = packageNames(in.snap, pkgScope)
	direct := directRequires(in.snap)
	si.tier = make([]uint8, len(entries))
	pkgTier := map[string]uint8{}
	for i := range entries {
		e := &entries[i]
		t, ok := pkgTier[e.pkg]
		if !ok || si.scope[i] == scStd {
			t = tierOf(e.pkg, si.scope[i], mainMod, mods, direct)
			if si.scope[i] != scStd {
				pkgTier[e.pkg] = t
			}
		}
		si.tier[i] = t
	}
	si.unused = unusedTypes(entries, si.scope)
	si.packages = len(pkgScope)
	if _, ok := pkgScope[""]; ok {
		si.packages--
	}

	si.byName = make([]int32, len(entries))
	for i := range si.byName {
		si.byName[i] = int32(i)
	}
	name := func(i int32) string { return entryNameAt(entries, si.nameOff, int(i)) }
	sort.Slice(si.byName, func(i, j int) bool {
		if c := compareFold(name(si.byName[i]), name(si.byName[j])); c != 0 {
			return c < 0
		}
		return si.byName[i] < si.byName[j]
	})

	si.terms = buildTerms(in, si.nameOff, si.scope)
	si.termStats = si.terms.Stats(nil)
	return si
}

// scopeOf returns the scope of package pkg: the main module's packages
// (and registered entries without a package) are main, the standard
// library's std, the rest deps.
func scopeOf(pkg, mainMod string, mods []snapshot.Module) scope {
	switch {
	case pkg == "":
		return scMain
	case snapshot.IsStdPkg(pkg):
		return scStd
	}
	if m, ok := snapshot.ModuleFor(mods, pkg); ok {
		if m.Path == mainMod {
			return scMain
		}
		return scDeps
	}
	if mainMod != "" && (pkg == mainMod || strings.HasPrefix(pkg, mainMod+"/")) {
		return scMain
	}
	return scDeps
}

// buildTerms indexes the entries of in for the term search, nameOff and
// scopes giving the offset of each entry's name in its id and its scope;
// the words of declarations outside the standard library come from the
// snapshot's index (in.words).
func buildTerms(in *searchInput, nameOff []uint16, scopes []scope) *bm25f.Index {
	entries := in.entries
	b := bm25f.NewBuilder(numTermFields)
	pkgTerms := map[string][]string{}
	fileTerms := map[string][]string{}
	words := in.words(scopes)
	var name, qual, doc, body, text, ctxt []string
	var tok bm25f.Tokenizer
	docTerms := map[string][]string{} // by package path or type id
	contextOf := func(id string) []string {
		if t, ok := docTerms[id]; ok {
			return t
		}
		var t []string
		if e, ok := lookupEntry(entries, id); ok && e.doc != "" {
			t = tok.AppendTerms(nil, e.doc)
			t = t[:min(len(t), maxContextTerms)]
		}
		docTerms[id] = t
		return t
	}
	for i := range entries {
		e := &entries[i]
		if scopes[i] == scStd && e.snap < 0 && e.doc == "" {
			// A function of the standard library known from the function
			// table alone has nothing for a phrase to find but its name,
			// which the literal search finds.
			b.AddTerms()
			continue
		}
		n := entryNameAt(entries, nameOff, i)
		name = tok.AppendTerms(name[:0], n)
		if joinable(name) {
			name = append(name, joinedMark+bm25f.Normalize(strings.ToLower(n)))
		}
		qual = tok.AppendTerms(qual[:0], receiverOf(e))
		doc = tok.AppendTerms(doc[:0], e.doc)
		if len(doc) > maxDocTerms {
			doc = doc[:maxDocTerms]
		}
		pt, ok := pkgTerms[e.pkg]
		if !ok {
			pt = bm25f.Terms(trimDomain(e.pkg))
			pkgTerms[e.pkg] = pt
		}
		ft, ok := fileTerms[e.file]
		if !ok {
			ft = bm25f.Terms(strings.TrimSuffix(path.Base(e.file), ".go"))
			if e.file == "" {
				ft = nil
			}
			fileTerms[e.file] = ft
		}
		body, text = body[:0], text[:0]
		if w, ok := words(e); ok {
			// Computed by mcpsnapshot, or from an older snapshot's source
			// per package (lazywords.go): no source is read here.
			if scopes[i] != scStd {
				code, rest, _ := strings.Cut(w, " | ")
				txt, members, _ := strings.Cut(rest, " | ")
				body = appendFields(body, code)
				text = appendFields(text, txt)
				qual = appendFields(qual, members)
			}
		}
		ctxt = ctxt[:0]
		if e.pkg != "" && e.kind != kPackage && scopes[i] != scStd {
			ctxt = append(ctxt, contextOf(e.pkg)...)
			if r := receiverOf(e); r != "" {
				ctxt = append(ctxt, contextOf(e.pkg+"."+r)...)
			}
		}
		b.AddTerms(name, qual, doc, pt, ft, body, text, ctxt)
	}
	return b.Build()
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

// name returns the name of entry i (see entryName).
func (x *catalogIndex) name(i int) string { return entryNameAt(x.entries, x.search.nameOff, i) }

// entryName returns the name of an entry: the last element of its id (the
// function, method, type, var or const name), a package's last path
// element, a tool's name.
func entryName(e *entry) string { return e.id[nameStart(e):] }

// nameStart returns the offset of the name in e.id.
func nameStart(e *entry) int {
	id := e.id
	switch {
	case e.kind == kPackage:
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

// receiverOf returns the receiver type name of a method entry, the type
// of a field or interface method, or "".
func receiverOf(e *entry) string {
	if e.kind != kMethod && !e.member {
		return ""
	}
	start := nameStart(e)
	rest := e.id[:max(start-1, 0)] // up to the dot before the name
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
		ra, rb = lowerRune(ra), lowerRune(rb)
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

func lowerRune(r rune) rune {
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
		if lowerRune(rs) != lowerRune(rp) {
			return false
		}
		s, prefix = s[ns:], prefix[np:]
	}
	return true
}

// namedRange returns the span of si.byName whose names equal name
// case-insensitively, or, with prefix set, begin with it.
func (si *searchIndex) namedRange(entries []entry, name string, prefix bool) (lo, hi int) {
	n := len(si.byName)
	nameAt := func(i int) string { return entryNameAt(entries, si.nameOff, int(si.byName[i])) }
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
