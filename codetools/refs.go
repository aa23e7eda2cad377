package codetools

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// refTable holds the references of the snapshot (codeindex.Refs), loaded
// on first use and then immutable. Sites are indexed both by the symbol
// they refer to and by the declaration that holds them.
type refTable struct {
	syms  []refSym // sorted by id
	sites []refSite
	// byTo lists site numbers by symbol referred to (toOff[s]..toOff[s+1]),
	// each list in answer order: main module first, then by file and line.
	byTo, toOff []int32
	// byFrom lists site numbers by enclosing declaration, in file and line
	// order.
	byFrom, fromOff []int32
	// impls by type and by interface.
	implByType, implByIface []codeindex.Impl
	typeOff, ifaceOff       []int32
	// promoted methods by type.
	promoted []codeindex.Promoted
	promoOff []int32
}

type refSym struct {
	id     string
	pkgLen uint16 // id[:pkgLen] is the package path
	kind   codeindex.SymKind
	// file is the snapshot file of an interface method or field, -1 for
	// other symbols (whose position is their catalog entry's).
	file, line int32
}

func (s *refSym) pkg() string { return s.id[:s.pkgLen] }

type refSite struct {
	file, line int32 // snapshot file and line
	from, to   int32
	kind       codeindex.RefKind
}

// refs returns the snapshot's references, reading them on first use.
func (b *baseIndex) refTable() (*refTable, error) {
	b.refsOnce.Do(func() {
		switch {
		case b.Snap == nil:
			b.refsErr = errNoSnapshotRefs
		default:
			b.refs, b.refsErr = loadRefs(b.Snap, b.MainModule())
		}
	})
	return b.refs, b.refsErr
}

var errNoSnapshotRefs = errors.New("no source snapshot is embedded, and references are computed when the snapshot is generated")

// loadRefs reads the references section of the index of snapshot s, whose
// main module is mainMod.
func loadRefs(s *snapshot.Snapshot, mainMod string) (t *refTable, err error) {
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
	t = &refTable{syms: make([]refSym, len(raw.Syms))}
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
		sym := refSym{id: pkg + "." + rs.Name, pkgLen: uint16(min(len(pkg), 1<<16-1)), kind: rs.Kind, file: -1, line: rs.Line}
		if rs.File >= 0 {
			sym.file = files[rs.File]
		}
		t.syms[i] = sym
	}
	t.sites = make([]refSite, 0, len(raw.Sites))
	for _, st := range raw.Sites {
		if fi := files[st.File]; fi >= 0 {
			t.sites = append(t.sites, refSite{file: fi, line: st.Line, from: st.From, to: st.To, kind: st.Kind})
		}
	}
	t.sites = slices.Clip(t.sites)
	n := len(t.syms)
	t.byTo, t.toOff = csr(n, len(t.sites), func(i int) int32 { return t.sites[i].to })
	t.byFrom, t.fromOff = csr(n, len(t.sites), func(i int) int32 { return t.sites[i].from })
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
			if sa, sc := scopeOfFile[a.file], scopeOfFile[c.file]; sa != sc {
				return sa < sc
			}
			if a.file != c.file {
				return s.Files[a.file].Display < s.Files[c.file].Display
			}
			return a.line < c.line
		})
	}
	t.implByType = append([]codeindex.Impl(nil), raw.Impls...)
	sort.SliceStable(t.implByType, func(i, j int) bool { return t.implByType[i].Type < t.implByType[j].Type })
	t.implByIface = append([]codeindex.Impl(nil), raw.Impls...)
	sort.SliceStable(t.implByIface, func(i, j int) bool { return t.implByIface[i].Iface < t.implByIface[j].Iface })
	t.typeOff = offsets(n, len(t.implByType), func(i int) int32 { return t.implByType[i].Type })
	t.ifaceOff = offsets(n, len(t.implByIface), func(i int) int32 { return t.implByIface[i].Iface })
	t.promoted = raw.Promoted
	sort.SliceStable(t.promoted, func(i, j int) bool { return t.promoted[i].Type < t.promoted[j].Type })
	t.promoOff = offsets(n, len(t.promoted), func(i int) int32 { return t.promoted[i].Type })
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

// offsets returns, for items sorted by key (0..n-1), where the items of
// each key start: the items of key k are [off[k], off[k+1]).
func offsets(n, count int, key func(int) int32) []int32 {
	off := make([]int32, n+1)
	for i := range count {
		off[key(i)+1]++
	}
	for k := 0; k < n; k++ {
		off[k+1] += off[k]
	}
	return off
}

// sym returns the number of the symbol with the given id, or -1.
func (t *refTable) sym(id string) int32 {
	i := sort.Search(len(t.syms), func(i int) bool { return t.syms[i].id >= id })
	if i < len(t.syms) && t.syms[i].id == id {
		return int32(i)
	}
	return -1
}

// symsWithPrefix returns the numbers of the symbols whose id starts with
// prefix.
func (t *refTable) symsWithPrefix(prefix string) (lo, hi int) {
	lo = sort.Search(len(t.syms), func(i int) bool { return t.syms[i].id >= prefix })
	hi = lo
	for hi < len(t.syms) && strings.HasPrefix(t.syms[hi].id, prefix) {
		hi++
	}
	return lo, hi
}

// sitesTo returns the sites that refer to symbol s, in answer order.
func (t *refTable) sitesTo(s int32) []int32 { return t.byTo[t.toOff[s]:t.toOff[s+1]] }

// sitesFrom returns the sites declaration s holds, in file and line order.
func (t *refTable) sitesFrom(s int32) []int32 { return t.byFrom[t.fromOff[s]:t.fromOff[s+1]] }

// implsOfType returns the interfaces type s implements.
func (t *refTable) implsOfType(s int32) []codeindex.Impl {
	return t.implByType[t.typeOff[s]:t.typeOff[s+1]]
}

// implsOfIface returns the types that implement interface s.
func (t *refTable) implsOfIface(s int32) []codeindex.Impl {
	return t.implByIface[t.ifaceOff[s]:t.ifaceOff[s+1]]
}

// promotedOf returns the methods promoted into type s.
func (t *refTable) promotedOf(s int32) []codeindex.Promoted {
	return t.promoted[t.promoOff[s]:t.promoOff[s+1]]
}

// matchSyms returns the symbols whose id is name, or ends with "/"+name
// or "."+name (mcp.Authorizer.Authorize, Authorizer.Authorize), at most
// max+1 of them.
func (t *refTable) matchSyms(name string, max int) []int32 {
	if s := t.sym(name); s >= 0 {
		return []int32{s}
	}
	var out []int32
	for i := range t.syms {
		id := t.syms[i].id
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
