package nav

import (
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
	"slices"
	"sort"
	"strings"
	"unsafe"
)

// RefTable holds the references of the snapshot (codeindex.Refs), loaded
// on first use and then immutable. Sites are indexed both by the symbol
// they refer to and by the declaration that holds them.
type RefTable struct {
	Syms  []Sym // sorted by id
	sites []Site
	// byTo lists site numbers by symbol referred to (toOff[s]..toOff[s+1]),
	// each list in answer order: main module first, then by file and line.
	byTo, toOff []int32
	// fromOff[s]..fromOff[s+1] are the sites declaration s holds, in file
	// and line order: sites are sorted by enclosing declaration.
	fromOff []int32
	// impls by type and by interface, sorted by it (found by binary
	// search: few symbols have any).
	implByType, implByIface []codeindex.Impl
	// promoted methods, sorted by type.
	promoted []codeindex.Promoted
}

// Sym is a symbol of the references: a declaration of the snapshot or a
// declaration outside it that its code refers to.
type Sym struct {
	ID     string
	pkgLen uint16 // id[:pkgLen] is the package path
	Kind   codeindex.SymKind
	// file is the snapshot file of an interface method or field, -1 for
	// other symbols (whose position is their catalog entry's).
	file, Line int32
}

// Pkg returns the package path of s.
func (s *Sym) Pkg() string { return s.ID[:s.pkgLen] }

// Site is a reference: where, from which declaration, to which symbol,
// and how.
type Site struct {
	// fileKind is the snapshot file (low 24 bits) and the kind of
	// reference (high 8 bits): a site then takes 12 bytes, not 20 (the
	// declaration that holds it is known from its place, siteFrom).
	fileKind uint32
	line     int32
	to       int32
}

// maxSiteFile bounds the snapshot file numbers a Site holds.
const maxSiteFile = 1<<24 - 1

func (st *Site) file() int32             { return int32(st.fileKind & maxSiteFile) }
func (st *Site) kind() codeindex.RefKind { return codeindex.RefKind(st.fileKind >> 24) }

// LoadRefs reads the references section of the index of snapshot s, whose
// main module is mainMod. known, if not nil, returns the catalog's own
// copy of an id (and whether it has one), which the table then shares
// instead of holding its own.
func LoadRefs(s *snapshot.Snapshot, mainMod string, known func(id string) (string, bool)) (t *RefTable, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("reading the snapshot's references: %v", r)
		}
	}()
	f, err := s.FS.Open(codesnap.IndexName)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := codeindex.ReadRefs(f)
	if errors.Is(err, codeindex.ErrNoRefs) {
		return nil, errors.New("the snapshot holds no references: it was written by an earlier mcpsnapshot; regenerate it (go generate)")
	}
	if err != nil {
		return nil, fmt.Errorf("reading the snapshot's references: %w", err)
	}
	t = &RefTable{Syms: make([]Sym, len(raw.Syms))}
	files := make([]int32, len(raw.Files))
	for i, p := range raw.Files {
		fi, ok := s.ByPath[p]
		if !ok {
			fi = -1 // a file of a package the catalog leaves out
		}
		files[i] = fi
	}
	in := snapshot.Interner{}
	for i := range raw.Syms {
		rs := &raw.Syms[i]
		pkg := in.Get(rs.Pkg)
		id := pkg + "." + rs.Name
		if known != nil {
			if k, ok := known(id); ok {
				id = k
			}
		}
		sym := Sym{ID: id, pkgLen: uint16(min(len(pkg), 1<<16-1)), Kind: rs.Kind, file: -1, Line: rs.Line}
		if rs.File >= 0 {
			sym.file = files[rs.File]
		}
		t.Syms[i] = sym
	}
	if len(s.Files) > maxSiteFile {
		return nil, fmt.Errorf("the snapshot has %d files, more than the references can number", len(s.Files))
	}
	n := len(t.Syms)
	kept := 0
	for _, st := range raw.Sites {
		if files[st.File] >= 0 {
			kept++
		}
	}
	// The sites sorted by enclosing declaration (a counting sort, which
	// keeps the file and line order of each one's).
	t.fromOff = make([]int32, n+1)
	for _, st := range raw.Sites {
		if files[st.File] >= 0 {
			t.fromOff[st.From+1]++
		}
	}
	for k := 0; k < n; k++ {
		t.fromOff[k+1] += t.fromOff[k]
	}
	next := slices.Clone(t.fromOff[:n])
	t.sites = make([]Site, kept)
	for _, st := range raw.Sites {
		if fi := files[st.File]; fi >= 0 {
			t.sites[next[st.From]] = Site{fileKind: uint32(fi) | uint32(st.Kind)<<24, line: st.Line, to: st.To}
			next[st.From]++
		}
	}
	next = nil
	t.byTo, t.toOff = csr(n, len(t.sites), func(i int) int32 { return t.sites[i].to })
	// Answer order of the sites of each symbol: main module first, then by
	// file and line.
	scopeOfFile := make([]index.Scope, len(s.Files))
	for i := range s.Files {
		scopeOfFile[i] = index.ScopeOf(s.Files[i].Pkg, mainMod, s.Mods)
	}
	for k := 0; k < n; k++ {
		list := t.byTo[t.toOff[k]:t.toOff[k+1]]
		sort.SliceStable(list, func(i, j int) bool {
			a, c := &t.sites[list[i]], &t.sites[list[j]]
			if sa, sc := scopeOfFile[a.file()], scopeOfFile[c.file()]; sa != sc {
				return sa < sc
			}
			if a.file() != c.file() {
				return s.Files[a.file()].Display < s.Files[c.file()].Display
			}
			return a.line < c.line
		})
	}
	t.implByType = append([]codeindex.Impl(nil), raw.Impls...)
	sort.SliceStable(t.implByType, func(i, j int) bool { return t.implByType[i].Type < t.implByType[j].Type })
	t.implByIface = append([]codeindex.Impl(nil), raw.Impls...)
	sort.SliceStable(t.implByIface, func(i, j int) bool { return t.implByIface[i].Iface < t.implByIface[j].Iface })
	t.promoted = raw.Promoted
	sort.SliceStable(t.promoted, func(i, j int) bool { return t.promoted[i].Type < t.promoted[j].Type })
	return t, nil
}

// csr groups the numbers 0..count-1 by key (0..n-1): the numbers with key
// k are list[off[k]:off[k+1]], in increasing order.
func csr(n, count int, key func(int) int32) (list, off []int32) {
	off = make([]int32, n+1)
	for i := range count {
		off[key(i)+1]++
	}
	for k := 0; k < n; k++ {
		off[k+1] += off[k]
	}
	list = make([]int32, count)
	next := slices.Clone(off[:n])
	for i := range count {
		k := key(i)
		list[next[k]] = int32(i)
		next[k]++
	}
	return list, off
}

// keyed returns the items of list, sorted by key, whose key is k.
func keyed[T any](list []T, k int32, key func(T) int32) []T {
	lo := sort.Search(len(list), func(i int) bool { return key(list[i]) >= k })
	hi := lo + sort.Search(len(list)-lo, func(i int) bool { return key(list[lo+i]) > k })
	return list[lo:hi]
}

// Sym returns the number of the symbol with the given id, or -1.
func (t *RefTable) Sym(id string) int32 {
	i := sort.Search(len(t.Syms), func(i int) bool { return t.Syms[i].ID >= id })
	if i < len(t.Syms) && t.Syms[i].ID == id {
		return int32(i)
	}
	return -1
}

// symsWithPrefix returns the numbers of the symbols whose id starts with
// prefix.
func (t *RefTable) symsWithPrefix(prefix string) (lo, hi int) {
	lo = sort.Search(len(t.Syms), func(i int) bool { return t.Syms[i].ID >= prefix })
	hi = lo
	for hi < len(t.Syms) && strings.HasPrefix(t.Syms[hi].ID, prefix) {
		hi++
	}
	return lo, hi
}

// sitesTo returns the sites that refer to symbol s, in answer order.
func (t *RefTable) sitesTo(s int32) []int32 { return t.byTo[t.toOff[s]:t.toOff[s+1]] }

// siteFrom returns the declaration that holds site si.
func (t *RefTable) siteFrom(si int32) int32 {
	// The last declaration whose sites start at or before si.
	return int32(sort.Search(len(t.fromOff), func(k int) bool { return t.fromOff[k] > si })) - 1
}

// sitesFrom returns the sites declaration s holds, lo..hi-1, in file and
// line order.
func (t *RefTable) sitesFrom(s int32) (lo, hi int32) { return t.fromOff[s], t.fromOff[s+1] }

// ImplsOfType returns the interfaces type s implements.
func (t *RefTable) ImplsOfType(s int32) []codeindex.Impl {
	return keyed(t.implByType, s, func(im codeindex.Impl) int32 { return im.Type })
}

// implsOfIface returns the types that implement interface s.
func (t *RefTable) implsOfIface(s int32) []codeindex.Impl {
	return keyed(t.implByIface, s, func(im codeindex.Impl) int32 { return im.Iface })
}

// promotedOf returns the methods promoted into type s.
func (t *RefTable) promotedOf(s int32) []codeindex.Promoted {
	return keyed(t.promoted, s, func(p codeindex.Promoted) int32 { return p.Type })
}

// MatchSyms returns the symbols whose id is name, or ends with "/"+name
// or "."+name (mcp.Authorizer.Authorize, Authorizer.Authorize), at most
// max+1 of them.
func (t *RefTable) MatchSyms(name string, max int) []int32 {
	if s := t.Sym(name); s >= 0 {
		return []int32{s}
	}
	var out []int32
	for i := range t.Syms {
		id := t.Syms[i].ID
		if len(id) > len(name) && strings.HasSuffix(id, name) {
			if c := id[len(id)-len(name)-1]; c == '/' || c == '.' {
				out = append(out, int32(i))
				if len(out) > max {
					break
				}
			}
		}
	}
	return out
}

// typeOfMethod returns the id of the receiver type of a method id
// (pkg.(*T).M or pkg.T.M) and the method name.
func typeOfMethod(id string, pkgLen int) (typeID, method string, ok bool) {
	pkg, rest := id[:pkgLen], id[pkgLen+1:]
	dot := strings.LastIndexByte(rest, '.')
	if dot <= 0 {
		return "", "", false
	}
	recv, method := rest[:dot], rest[dot+1:]
	if strings.HasPrefix(recv, "(*") && strings.HasSuffix(recv, ")") {
		recv = recv[2 : len(recv)-1]
	}
	return pkg + "." + recv, method, true
}

// Target is the symbol a code_references query is about: a symbol of
// the references, an entry of the catalog, or both.
type Target struct {
	ID   string
	Sym  int32        // in the reference table, -1 if it takes part in none
	E    *index.Entry // nil for interface methods, fields and symbols outside the catalog
	Kind codeindex.SymKind
}

// KindName returns the name of the kind of r.
func (r *Target) KindName() string { return symKindName(r.Kind) }

func symKindName(k codeindex.SymKind) string {
	switch k {
	case codeindex.SymFunc:
		return index.KindFunc.String()
	case codeindex.SymMethod:
		return index.KindMethod.String()
	case codeindex.SymType:
		return index.KindType.String()
	case codeindex.SymInterface:
		return "interface"
	case codeindex.SymVar:
		return index.KindVar.String()
	case codeindex.SymConst:
		return index.KindConst.String()
	case codeindex.SymAbstract:
		return "interface method"
	case codeindex.SymField:
		return "field"
	}
	return "symbol"
}

// Size estimates the bytes t holds: its tables at their capacity and the
// ids of its symbols.
func (t *RefTable) Size() uint64 {
	n := uint64(cap(t.Syms))*uint64(unsafe.Sizeof(Sym{})) + uint64(cap(t.sites))*uint64(unsafe.Sizeof(Site{}))
	for i := range t.Syms {
		n += uint64(len(t.Syms[i].ID))
	}
	for _, s := range [][]int32{t.byTo, t.toOff, t.fromOff} {
		n += 4 * uint64(cap(s))
	}
	n += uint64(cap(t.implByType)+cap(t.implByIface)) * uint64(unsafe.Sizeof(codeindex.Impl{}))
	n += uint64(cap(t.promoted)) * uint64(unsafe.Sizeof(codeindex.Promoted{}))
	return n
}
