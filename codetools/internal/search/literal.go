package search

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Tiers of a literal match, best first. Within a tier, entries of the main
// module come first, then of other modules, then of the standard library;
// then shorter ids, then ids in byte order.
const (
	tierExact     = iota // the name, or a qualified name, in the same case
	tierExactFold        // the name in another case
	tierPrefix           // the name begins with the query
	tierPart             // a word of the name (camelCase, _, digits) begins with it
	tierSubstring        // elsewhere in the name
	tierID               // in the id outside the name: package path, receiver
	tierDoc              // in the documentation only
)

// Filter selects entries by kind, scope and package.
type Filter struct {
	Kinds  uint16 // bit per kind; 0 means every kind
	Scopes ScopeSet
	Pkg    string // import path prefix or path elements; "" means any
	// widen allows searching every scope when the default scopes have no
	// match (the scope was not given).
	Widen bool
	// library keeps this library's packages at the rank of the other
	// dependencies: the query names them, or a package filter scopes it.
	Library bool
}

func (f *Filter) match(x *index.Index, i int) bool {
	e := &x.Entries[i]
	if f.Kinds != 0 && f.Kinds&(1<<e.Kind) == 0 {
		return false
	}
	if !f.Scopes.Has(x.Search.Scope[i]) {
		return false
	}
	return f.Pkg == "" || PackageMatches(e.Pkg, f.Pkg)
}

// PackageMatches reports whether import path pkg is p, under p, or holds
// p as a sequence of whole path elements ("codetools", "embedmcp/mcp").
func PackageMatches(pkg, p string) bool {
	p = strings.TrimSuffix(p, "/")
	if pkg == p || strings.HasPrefix(pkg, p+"/") {
		return true
	}
	i := strings.Index(pkg, "/"+p)
	for i >= 0 {
		end := i + 1 + len(p)
		if end == len(pkg) || pkg[end] == '/' {
			return true
		}
		j := strings.Index(pkg[i+1:], "/"+p)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// Rank keys order matches by sorting as numbers. The entry index is in
// the low indexBits bits (the catalog holds at most DefaultMaxEntries,
// 1<<indexBits); the id length takes the 10 bits above it (longer ids
// rank as 1023 bytes);
// above it, a literal key holds the tier, the scope and the id length, and
// a term key the negated score, the scope and the id length, so that ties
// go to the main module, then shorter ids, then ids in byte order.
const indexBits = 20

// rankKey is the key of a literal match of entry i.
func (x Searcher) rankKey(tier int, i int) uint64 {
	e := &x.Entries[i]
	return uint64(tier)<<60 | uint64(x.Search.Tier[i])<<58 | uint64(index.Unlinked(e))<<57 |
		uint64(index.Unexported(e))<<56 | uint64(min(len(e.ID), 1<<10-1))<<indexBits | uint64(i)
}

// termKey is the key of a term match of score s (≥ 0).
func termKey(s float64, sc uint8, idLen, i int) uint64 {
	q := uint64(min(s*1e6, float64(1<<32-1)))
	return (1<<32-1-q)<<32 | uint64(sc)<<30 | uint64(min(idLen, 1<<10-1))<<indexBits | uint64(i)
}

// KeyEntry returns the entry index of a rank key.
func KeyEntry(k uint64) int { return int(k & (1<<indexBits - 1)) }

// topK keeps the k smallest keys pushed, in a max-heap.
type topK struct {
	k    int
	heap []uint64
}

func (t *topK) push(key uint64) {
	h := t.heap
	if len(h) == t.k {
		if t.k == 0 || key >= h[0] {
			return
		}
		h[0] = key
		t.down(0)
		return
	}
	h = append(h, key)
	t.heap = h
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p] >= h[i] {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	h := t.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r] > h[l] {
			c = r
		}
		if h[i] >= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// sorted returns the kept keys in increasing order; it empties the heap.
func (t *topK) sorted() []uint64 {
	h := t.heap
	for n := len(h) - 1; n > 0; n-- {
		h[0], h[n] = h[n], h[0]
		t.heap = h[:n]
		t.down(0)
	}
	t.heap = h
	return h
}

// KeyPool recycles the top-k buffers of searches.
var KeyPool = sync.Pool{New: func() any { s := make([]uint64, 0, 64); return &s }}

// LiteralQuery is a prepared literal query.
type LiteralQuery struct {
	q      string // as given, trimmed
	needle string // lower case
	// qualified is set when q names a declaration with a qualifier:
	// pkg.Name, Type.Method, (*Type).Method, main.Name.
	Qualified bool
	Name      string // the last element of a qualified query
}

// NewLiteralQuery returns the literal query of q.
func NewLiteralQuery(q string) LiteralQuery {
	lq := LiteralQuery{q: q, needle: lowerString(q)}
	if strings.ContainsAny(q, ".(") && !strings.ContainsAny(q, " \t") {
		if i := strings.LastIndexByte(q, '.'); i > 0 && i < len(q)-1 {
			lq.Qualified, lq.Name = true, q[i+1:]
		}
	}
	return lq
}

// lowerString returns s in lower case as writeLower writes it.
func lowerString(s string) string {
	var b strings.Builder
	index.WriteLower(&b, s)
	return b.String()
}

// literal runs a literal query: it calls add with the rank key of every
// match that f accepts and returns their number.
func (x Searcher) literal(lq *LiteralQuery, f *Filter, add func(uint64)) int {
	si := &x.Search
	total := 0
	// Qualified names that are no substring of the id (T.M for (*T).M,
	// main.F) are found by name first; they rank as exact.
	var quals []int32
	if lq.Qualified {
		lo, hi := si.NamedRange(x.Entries, lq.Name, false)
		for _, i := range si.ByName[lo:hi] {
			if x.Qualifies(int(i), lq.q) {
				quals = append(quals, i)
				if f.match(x.Index, int(i)) {
					add(x.rankKey(tierExact, int(i)))
					total++
				}
			}
		}
	}
	if len(lq.needle) == 0 || len(x.Entries) == 0 {
		return total
	}
	// The haystack leaves the package prefix out of the ids: the entries
	// whose id holds the needle from there are found apart (pre), and
	// visited once, in entry order, with those the haystack finds.
	pm := x.prefixMatches(lq.needle)
	pre := x.prefixEntries(pm, lq.needle)
	visit := func(i int) {
		if f.match(x.Index, i) && !containsIndex(quals, i) {
			add(x.rankKey(x.tier(i, lq, pm), i))
			total++
		}
	}
	find := x.finder(lq.needle)
	pos, i := 0, 0
	for {
		j := find(pos)
		if j < 0 {
			break
		}
		m := uint32(j)
		// Advance to the entry holding m; offs is increasing.
		for m >= x.Offs[i+1] {
			i++
		}
		for len(pre) > 0 && int(pre[0]) < i {
			visit(int(pre[0]))
			pre = pre[1:]
		}
		if len(pre) > 0 && int(pre[0]) == i {
			pre = pre[1:]
		}
		visit(i)
		pos = int(x.Offs[i+1])
		i++
		if i >= len(x.Entries) {
			break
		}
	}
	for _, i := range pre {
		visit(int(i))
	}
	return total
}

// pkgMatch is how the needle of a literal query meets the lower-cased
// package prefix of an id (Index.HayPkgs): whole within it, or
// beginning in it, its first k bytes ending it, for each k of ks.
type pkgMatch struct {
	whole bool
	ks    []int
}

// prefixMatches returns how needle meets each package prefix that it
// meets; nil if none.
func (x Searcher) prefixMatches(needle string) map[string]pkgMatch {
	if needle == "" {
		return nil
	}
	var pm map[string]pkgMatch
	dots := strings.Contains(needle[:len(needle)-1], ".")
	for pkg, lp := range x.HayPkgs {
		m := pkgMatch{whole: strings.Contains(lp, needle)}
		if !m.whole && dots {
			// A prefix ends with its dot: so does the part of the needle
			// in it.
			for k := 1; k < len(needle) && k <= len(lp); k++ {
				if needle[k-1] == '.' && strings.HasSuffix(lp, needle[:k]) {
					m.ks = append(m.ks, k)
				}
			}
		}
		if m.whole || len(m.ks) > 0 {
			if pm == nil {
				pm = map[string]pkgMatch{}
			}
			pm[pkg] = m
		}
	}
	return pm
}

// inPrefix reports whether the lower-cased id of entry i, whose part in
// the haystack is rest, holds needle from its package prefix on.
func (x Searcher) inPrefix(pm map[string]pkgMatch, i int, rest, needle string) bool {
	if len(pm) == 0 {
		return false
	}
	e := &x.Entries[i]
	if index.HayCut(e) == 0 {
		return false
	}
	m, ok := pm[e.Pkg]
	if !ok {
		return false
	}
	if m.whole {
		return true
	}
	for _, k := range m.ks {
		if strings.HasPrefix(rest, needle[k:]) {
			return true
		}
	}
	return false
}

// prefixEntries returns the entries, in order, whose lower-cased id holds
// needle from its package prefix on (pm: prefixMatches).
func (x Searcher) prefixEntries(pm map[string]pkgMatch, needle string) []int32 {
	if len(pm) == 0 {
		return nil
	}
	var out []int32
	last, in := "", false
	for i := range x.Entries {
		e := &x.Entries[i]
		if e.Pkg != last {
			last = e.Pkg
			_, in = pm[last]
		}
		if in && x.inPrefix(pm, i, x.Hay[x.Offs[i]:x.Offs[i+1]], needle) {
			out = append(out, int32(i))
		}
	}
	return out
}

func containsIndex(s []int32, i int) bool {
	for _, v := range s {
		if int(v) == i {
			return true
		}
	}
	return false
}

// tier classifies a literal match of entry i (pm: prefixMatches of the
// needle).
func (x Searcher) tier(i int, lq *LiteralQuery, pm map[string]pkgMatch) int {
	e := &x.Entries[i]
	seg := x.Hay[x.Offs[i]:x.Offs[i+1]]
	// The lower-cased id is its package prefix (lp) and rest.
	rest := seg[:strings.IndexByte(seg, 0)]
	lp := x.lowerPrefix(e)
	ns := int(x.Search.NameOff[i])
	name := e.ID[ns:]
	var lname string
	switch {
	case len(lp)+len(rest) != len(e.ID):
		lname = strings.ToLower(name) // non-ASCII id: offsets differ
	case ns >= len(lp):
		lname = rest[ns-len(lp):]
	default:
		lname = (lp + rest)[ns:]
	}
	needle := lq.needle
	switch {
	case lname == needle:
		if name == lq.q {
			return tierExact
		}
		return tierExactFold
	case lq.Qualified && x.Qualifies(i, lq.q):
		return tierExact
	case strings.HasPrefix(lname, needle):
		return tierPrefix
	}
	if k := strings.Index(lname, needle); k >= 0 {
		if len(lname) != len(name) {
			return tierSubstring
		}
		for k >= 0 {
			if wordStart(name, k) {
				return tierPart
			}
			n := strings.Index(lname[k+1:], needle)
			if n < 0 {
				break
			}
			k += 1 + n
		}
		return tierSubstring
	}
	if strings.Contains(rest, needle) || x.inPrefix(pm, i, rest, needle) {
		return tierID
	}
	return tierDoc
}

// lowerPrefix returns the lower-cased package prefix that the haystack
// leaves out of the id of e, "" if none (a haystack without HayPkgs holds
// whole ids).
func (x Searcher) lowerPrefix(e *index.Entry) string {
	cut := index.HayCut(e)
	if cut == 0 || x.HayPkgs == nil {
		return ""
	}
	if isASCIILower(e.Pkg) {
		return e.ID[:cut] // lower case already
	}
	return x.HayPkgs[e.Pkg]
}

// isASCIILower reports whether s is ASCII without capitals.
func isASCIILower(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// wordStart reports whether a word of identifier s begins at byte k:
// after _, ., / or -, at a lower-to-upper or letter-digit change, or at
// the last capital of a run followed by a lower-case letter (the B of
// HTTPBin).
func wordStart(s string, k int) bool {
	if k <= 0 {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:k])
	cur, n := utf8.DecodeRuneInString(s[k:])
	switch {
	case prev == '_' || prev == '.' || prev == '/' || prev == '-':
		return true
	case unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
		return true
	case unicode.IsDigit(cur) != unicode.IsDigit(prev):
		return true
	case unicode.IsUpper(cur) && unicode.IsUpper(prev):
		next, _ := utf8.DecodeRuneInString(s[k+n:])
		return unicode.IsLower(next)
	}
	return false
}

// Qualifies reports whether q names entry i with a qualifier: the id ends
// with q at a '.' or '/' boundary, receiver parentheses and stars aside
// (T.M and (*T).M name the same method), or q is main.<rest> and the entry
// is in a main package. Letters are compared case-insensitively.
func (x Searcher) Qualifies(i int, q string) bool {
	e := &x.Entries[i]
	if len(q) > 5 && strings.EqualFold(q[:5], "main.") {
		for _, mp := range x.Search.MainPkgs {
			if e.Pkg == mp && len(e.ID) > len(mp) && matchTail(e.ID[len(mp)+1:], q[5:], true) {
				return true
			}
		}
	}
	if name, ok := x.Search.PkgNames[e.Pkg]; ok && len(q) > len(name)+1 && q[len(name)] == '.' &&
		strings.EqualFold(q[:len(name)], name) && len(e.ID) > len(e.Pkg)+1 {
		return matchTail(e.ID[len(e.Pkg)+1:], q[len(name)+1:], true)
	}
	return matchTail(e.ID, q, false)
}

// matchTail compares id and q from their ends, ignoring '(', ')' and '*'
// and case. q must be used up at a '.' or '/' boundary of id, or, with
// whole set, together with id.
func matchTail(id, q string, whole bool) bool {
	i, j := len(id), len(q)
	for {
		for i > 0 && isReceiverPunct(id[i-1]) {
			i--
		}
		for j > 0 && isReceiverPunct(q[j-1]) {
			j--
		}
		if j == 0 {
			return i == 0 || !whole && (id[i-1] == '.' || id[i-1] == '/')
		}
		if i == 0 {
			return false
		}
		a, na := utf8.DecodeLastRuneInString(id[:i])
		b, nb := utf8.DecodeLastRuneInString(q[:j])
		if index.LowerRune(a) != index.LowerRune(b) {
			return false
		}
		i, j = i-na, j-nb
	}
}

func isReceiverPunct(c byte) bool { return c == '(' || c == ')' || c == '*' }

// finder returns a function that finds the first occurrence of needle in
// x.hay at or after pos, or -1. When the needle holds a byte that is rare
// in the haystack, it scans for that byte and verifies candidates;
// otherwise it uses strings.Index.
func (x Searcher) finder(needle string) func(pos int) int {
	hay := x.Hay
	rare := 0
	for j := 1; j < len(needle); j++ {
		if x.Freq[needle[j]] < x.Freq[needle[rare]] {
			rare = j
		}
	}
	if len(needle) == 1 || int(x.Freq[needle[rare]]) > len(hay)/64 {
		return func(pos int) int {
			if j := strings.Index(hay[pos:], needle); j >= 0 {
				return pos + j
			}
			return -1
		}
	}
	c := needle[rare]
	return func(pos int) int {
		for {
			if pos+rare >= len(hay) {
				return -1
			}
			k := strings.IndexByte(hay[pos+rare:], c)
			if k < 0 {
				return -1
			}
			cand := pos + k
			if cand+len(needle) > len(hay) {
				return -1
			}
			if hay[cand:cand+len(needle)] == needle {
				return cand
			}
			pos = cand + 1
		}
	}
}
