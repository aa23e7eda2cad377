package nav

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"unsafe"
)

// RefTable holds the references of the snapshot (codeindex.Refs), loaded
// on first use and then immutable. It keeps them as columns of packed
// numbers, with no structure or string per site:
//
//   - symbols are numbers into the catalog's sorted ids (Names), which
//     the table shares instead of holding its own, or into a short list
//     of the ids the catalog lacks;
//   - sites are one 32-bit word each (the symbol referred to, the kind
//     of reference and the line, from the line its run starts at),
//     ordered as callers and references list them: main module first,
//     then by file and line;
//   - a run is a stretch of sites of one declaration in one file, which
//     gives the declaration that holds them, their file and first line;
//   - the sites of each symbol (byTo) and the runs of each declaration
//     (runsByFrom) are lists of numbers, both found by binary search.
//
// The zero RefTable is an empty table.
type RefTable struct {
	names Names
	// symID is a symbol's number in names, or otherFlag|i for other[i].
	symID   []uint32
	other   []string
	symKind []codeindex.SymKind
	symPkg  packed // index into pkgs
	pkgs    []string
	// The positions of interface methods and fields: posSym is sorted;
	// posFile holds the snapshot file plus 1 (0: a file the catalog
	// leaves out).
	posSym, posFile, posLine packed
	// sites are to<<(refKindBits+lineBits) | kind<<lineBits | line-runLine.
	sites    []uint32
	lineBits uint
	// runs, in site order: first site, declaration, snapshot file, line
	// of the first site.
	runStart, runFrom, runFile, runLine packed
	// runsByFrom lists the runs by declaration, each declaration's in the
	// order of its sites in the snapshot's index (file and line).
	runsByFrom packed
	// byTo lists the sites of each symbol (toOff[s]..toOff[s+1]) in
	// increasing order, which is answer order.
	byTo, toOff packed
	// impls by type, and their numbers by interface (both in the order
	// of the index within a key).
	implByType  []codeindex.Impl
	implByIface []int32
	// promoted methods, sorted by type; via indexes vias.
	promoted []promotion
	vias     []string
}

// Names are the catalog's ids, sorted: the reference table refers to the
// ids it shares with the catalog by number.
type Names interface {
	Len() int
	ID(i int) string
}

// otherFlag marks a symbol id that is not one of Names.
const otherFlag = 1 << 31

// refKindBits is the width of the reference kind of a site.
const refKindBits = 3

// refKinds numbers the reference kinds in a site word.
var refKinds = [...]codeindex.RefKind{codeindex.RefCall, codeindex.RefDynamic, codeindex.RefValue, codeindex.RefRead, codeindex.RefWrite}

// promotion is a method promoted into a type through the embedded field
// vias[via].
type promotion struct{ typ, method, via int32 }

// Sym is a symbol of the references: a declaration of the snapshot or a
// declaration outside it that its code refers to.
type Sym struct {
	ID     string
	pkgLen int // id[:pkgLen] is the package path
	Kind   codeindex.SymKind
	// file is the snapshot file of an interface method or field, -1 for
	// other symbols (whose position is their catalog entry's).
	file, Line int32
}

// Pkg returns the package path of s.
func (s *Sym) Pkg() string { return s.ID[:s.pkgLen] }

// site is a site decoded: where, from which declaration, to which
// symbol, and how.
type site struct {
	file, line, from, to int32
	kind                 codeindex.RefKind
}

// LoadRefs reads the references section of the index of snapshot s, whose
// main module is mainMod. names, if not nil, are the catalog's ids, which
// the table then shares instead of holding its own.
func LoadRefs(s *snapshot.Snapshot, mainMod string, names Names) (t *RefTable, err error) {
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
	return newRefTable(s, mainMod, names, raw, 32)
}

// newRefTable builds the table of the references raw of snapshot s, with
// at most lineBits bits for a site's line within its run (fewer make more
// runs: tests use them).
func newRefTable(s *snapshot.Snapshot, mainMod string, names Names, raw *codeindex.Refs, lineBits uint) (*RefTable, error) {
	n := len(raw.Syms)
	symBits := uint(bits.Len(uint(n)))
	if symBits > 32-refKindBits-2 {
		return nil, fmt.Errorf("the snapshot's references have %d symbols, more than the table can number", n)
	}
	if len(raw.Sites) >= 1<<31 {
		return nil, fmt.Errorf("the snapshot's references have %d sites, more than the table can number", len(raw.Sites))
	}
	files := make([]int32, len(raw.Files))
	for i, p := range raw.Files {
		fi, ok := s.ByPath[p]
		if !ok {
			fi = -1 // a file of a package the catalog leaves out
		}
		files[i] = fi
	}
	t := &RefTable{names: names}
	if err := t.loadSyms(raw, files); err != nil {
		return nil, err
	}
	t.lineBits = min(32-refKindBits-symBits, lineBits)
	t.loadSites(s, mainMod, raw, files)
	t.loadImpls(raw)
	return t, nil
}

// loadSyms fills the symbol columns.
func (t *RefTable) loadSyms(raw *codeindex.Refs, files []int32) error {
	n := len(raw.Syms)
	t.symID = make([]uint32, n)
	t.symKind = make([]codeindex.SymKind, n)
	pkgOf := make([]uint32, n)
	pkgNum := map[string]uint32{}
	var posSym, posFile, posLine []uint32
	k, nn := 0, 0
	if t.names != nil {
		nn = t.names.Len()
	}
	for i := range raw.Syms {
		rs := &raw.Syms[i]
		p, ok := pkgNum[rs.Pkg]
		if !ok {
			p = uint32(len(t.pkgs))
			pkgNum[rs.Pkg] = p
			t.pkgs = append(t.pkgs, rs.Pkg)
		}
		pkgOf[i] = p
		t.symKind[i] = rs.Kind
		// Symbols and names are both sorted by id: a merge.
		for k < nn && compareID(rs.Pkg, rs.Name, t.names.ID(k)) > 0 {
			k++
		}
		if k < nn && compareID(rs.Pkg, rs.Name, t.names.ID(k)) == 0 {
			t.symID[i] = uint32(k)
		} else {
			if len(t.other) >= otherFlag {
				return fmt.Errorf("the snapshot's references have too many symbols")
			}
			t.symID[i] = otherFlag | uint32(len(t.other))
			t.other = append(t.other, rs.Pkg+"."+rs.Name)
		}
		if rs.File >= 0 {
			if rs.Line < 0 {
				return fmt.Errorf("the snapshot's references place %s.%s at line %d", rs.Pkg, rs.Name, rs.Line)
			}
			posSym = append(posSym, uint32(i))
			posFile = append(posFile, uint32(files[rs.File]+1))
			posLine = append(posLine, uint32(rs.Line))
		}
	}
	t.other = slices.Clip(t.other)
	t.pkgs = slices.Clip(t.pkgs)
	t.symPkg = packValues(pkgOf)
	t.posSym, t.posFile, t.posLine = packValues(posSym), packValues(posFile), packValues(posLine)
	return nil
}

// compareID compares the id pkg.name with id, as strings.Compare would
// pkg+"."+name.
func compareID(pkg, name, id string) int {
	if len(id) >= len(pkg) && id[:len(pkg)] == pkg {
		rest := id[len(pkg):]
		switch {
		case rest == "":
			return 1
		case rest[0] != '.':
			return cmp.Compare('.', rest[0])
		}
		return strings.Compare(name, rest[1:])
	}
	m := min(len(pkg), len(id))
	if c := strings.Compare(pkg[:m], id[:m]); c != 0 {
		return c
	}
	// id is a proper prefix of pkg.
	return 1
}

// loadSites fills the site columns, the runs and both indexes.
func (t *RefTable) loadSites(s *snapshot.Snapshot, mainMod string, raw *codeindex.Refs, files []int32) {
	// Files in answer order: main module first, then by display path.
	scope := make([]index.Scope, len(raw.Files))
	var ranked []int32
	for i, fi := range files {
		if fi >= 0 {
			scope[i] = index.ScopeOf(s.Files[fi].Pkg, mainMod, s.Mods)
			ranked = append(ranked, int32(i))
		}
	}
	slices.SortStableFunc(ranked, func(a, b int32) int {
		if c := cmp.Compare(scope[a], scope[b]); c != 0 {
			return c
		}
		return strings.Compare(s.Files[files[a]].Display, s.Files[files[b]].Display)
	})
	// The sites in that order (a counting sort by file, which keeps the
	// index's order within each).
	start := make([]int32, len(raw.Files)+1)
	for _, st := range raw.Sites {
		if files[st.File] >= 0 {
			start[st.File]++
		}
	}
	kept := int32(0)
	for _, rf := range ranked {
		c := start[rf]
		start[rf] = kept
		kept += c
	}
	order := make([]int32, kept)
	for i, st := range raw.Sites {
		if files[st.File] >= 0 {
			order[start[st.File]] = int32(i)
			start[st.File]++
		}
	}
	start = nil
	// Runs, and the site words.
	maxDelta := int32(1)<<t.lineBits - 1
	t.sites = make([]uint32, kept)
	var runStart, runFrom, runFile, runLine []uint32
	var runRaw []int32 // the index's number of each run's first site
	var base int32
	prev := int32(-2)
	for si, ri := range order {
		st := &raw.Sites[ri]
		if len(runStart) == 0 || ri != prev+1 || st.From != raw.Sites[prev].From || st.File != raw.Sites[prev].File ||
			st.Line < base || st.Line-base > maxDelta {
			base = st.Line
			runStart = append(runStart, uint32(si))
			runFrom = append(runFrom, uint32(st.From))
			runFile = append(runFile, uint32(files[st.File]))
			runLine = append(runLine, uint32(base))
			runRaw = append(runRaw, ri)
		}
		prev = ri
		k := uint32(slices.Index(refKinds[:], st.Kind))
		t.sites[si] = uint32(st.To)<<(refKindBits+t.lineBits) | k<<t.lineBits | uint32(st.Line-base)
	}
	order = nil
	t.runStart, t.runFrom, t.runFile, t.runLine = packValues(runStart), packValues(runFrom), packValues(runFile), packValues(runLine)
	// The runs of each declaration, in the index's order.
	byFrom := make([]uint32, len(runStart))
	for i := range byFrom {
		byFrom[i] = uint32(i)
	}
	slices.SortFunc(byFrom, func(a, b uint32) int {
		if c := cmp.Compare(runFrom[a], runFrom[b]); c != 0 {
			return c
		}
		return cmp.Compare(runRaw[a], runRaw[b])
	})
	t.runsByFrom = packValues(byFrom)
	// The sites of each symbol, in site order (a counting sort).
	n := len(raw.Syms)
	off := make([]uint32, n+1)
	for _, w := range t.sites {
		off[t.wordTo(w)+1]++
	}
	for k := 0; k < n; k++ {
		off[k+1] += off[k]
	}
	list := make([]uint32, len(t.sites))
	fill := slices.Clone(off[:n])
	for si, w := range t.sites {
		to := t.wordTo(w)
		list[fill[to]] = uint32(si)
		fill[to]++
	}
	t.byTo, t.toOff = packValues(list), packValues(off)
}

// loadImpls fills the implementations and promoted methods.
func (t *RefTable) loadImpls(raw *codeindex.Refs) {
	perm := make([]int32, len(raw.Impls))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return cmp.Compare(raw.Impls[a].Type, raw.Impls[b].Type) })
	t.implByType = make([]codeindex.Impl, len(perm))
	at := make([]int32, len(perm)) // raw number → number in implByType
	for i, p := range perm {
		t.implByType[i] = raw.Impls[p]
		at[p] = int32(i)
	}
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return cmp.Compare(raw.Impls[a].Iface, raw.Impls[b].Iface) })
	for i, p := range perm {
		perm[i] = at[p]
	}
	t.implByIface = perm
	t.promoted = make([]promotion, len(raw.Promoted))
	via := map[string]int32{}
	for i, p := range raw.Promoted {
		v, ok := via[p.Via]
		if !ok {
			v = int32(len(t.vias))
			via[p.Via] = v
			t.vias = append(t.vias, p.Via)
		}
		t.promoted[i] = promotion{typ: p.Type, method: p.Method, via: v}
	}
	t.vias = slices.Clip(t.vias)
	slices.SortStableFunc(t.promoted, func(a, b promotion) int { return cmp.Compare(a.typ, b.typ) })
}

// wordTo returns the symbol a site word refers to.
func (t *RefTable) wordTo(w uint32) uint32 { return w >> (refKindBits + t.lineBits) }

// Len returns the number of symbols.
func (t *RefTable) Len() int { return len(t.symID) }

// ID returns the id of symbol s.
func (t *RefTable) ID(s int32) string {
	if v := t.symID[s]; v&otherFlag == 0 {
		return t.names.ID(int(v))
	} else {
		return t.other[v&^otherFlag]
	}
}

// Kind returns the kind of symbol s.
func (t *RefTable) Kind(s int32) codeindex.SymKind { return t.symKind[s] }

// pkg returns the package path of symbol s.
func (t *RefTable) pkg(s int32) string { return t.pkgs[t.symPkg.at(int(s))] }

// Symbol returns symbol s.
func (t *RefTable) Symbol(s int32) Sym {
	sym := Sym{ID: t.ID(s), pkgLen: len(t.pkg(s)), Kind: t.symKind[s], file: -1}
	if i := t.posSym.search(0, t.posSym.len(), func(v uint32) bool { return v >= uint32(s) }); i < t.posSym.len() && t.posSym.at(i) == uint32(s) {
		sym.file, sym.Line = int32(t.posFile.at(i))-1, int32(t.posLine.at(i))
	}
	return sym
}

// site returns site si, decoded.
func (t *RefTable) site(si int32) site {
	r := t.runStart.search(0, t.runStart.len(), func(v uint32) bool { return v > uint32(si) }) - 1
	return t.siteIn(si, r)
}

// siteIn returns site si of run r, decoded.
func (t *RefTable) siteIn(si int32, r int) site {
	w := t.sites[si]
	return site{
		file: int32(t.runFile.at(r)),
		line: int32(t.runLine.at(r)) + int32(w&(1<<t.lineBits-1)),
		from: int32(t.runFrom.at(r)),
		to:   int32(t.wordTo(w)),
		kind: refKinds[w>>t.lineBits&(1<<refKindBits-1)],
	}
}

// keyed returns the items of list, sorted by key, whose key is k.
func keyed[T any](list []T, k int32, key func(T) int32) []T {
	lo := sort.Search(len(list), func(i int) bool { return key(list[i]) >= k })
	hi := lo + sort.Search(len(list)-lo, func(i int) bool { return key(list[lo+i]) > k })
	return list[lo:hi]
}

// Sym returns the number of the symbol with the given id, or -1.
func (t *RefTable) Sym(id string) int32 {
	i := sort.Search(len(t.symID), func(i int) bool { return t.ID(int32(i)) >= id })
	if i < len(t.symID) && t.ID(int32(i)) == id {
		return int32(i)
	}
	return -1
}

// symsWithPrefix returns the numbers of the symbols whose id starts with
// prefix.
func (t *RefTable) symsWithPrefix(prefix string) (lo, hi int) {
	lo = sort.Search(len(t.symID), func(i int) bool { return t.ID(int32(i)) >= prefix })
	hi = lo
	for hi < len(t.symID) && strings.HasPrefix(t.ID(int32(hi)), prefix) {
		hi++
	}
	return lo, hi
}

// sitesTo calls fn with the sites that refer to symbol s, in answer
// order.
func (t *RefTable) sitesTo(s int32, fn func(si int32, st site)) {
	if int(s)+1 >= t.toOff.len() {
		return
	}
	for i := t.toOff.at(int(s)); i < t.toOff.at(int(s)+1); i++ {
		si := int32(t.byTo.at(int(i)))
		fn(si, t.site(si))
	}
}

// sitesFrom calls fn with the sites declaration s holds, in file and line
// order.
func (t *RefTable) sitesFrom(s int32, fn func(si int32, st site)) {
	n := t.runsByFrom.len()
	lo := t.runsByFrom.search(0, n, func(r uint32) bool { return t.runFrom.at(int(r)) >= uint32(s) })
	for i := lo; i < n; i++ {
		r := int(t.runsByFrom.at(i))
		if t.runFrom.at(r) != uint32(s) {
			break
		}
		end := len(t.sites)
		if r+1 < t.runStart.len() {
			end = int(t.runStart.at(r + 1))
		}
		for si := int(t.runStart.at(r)); si < end; si++ {
			fn(int32(si), t.siteIn(int32(si), r))
		}
	}
}

// ImplsOfType returns the interfaces type s implements.
func (t *RefTable) ImplsOfType(s int32) []codeindex.Impl {
	return keyed(t.implByType, s, func(im codeindex.Impl) int32 { return im.Type })
}

// implsOfIface returns the types that implement interface s.
func (t *RefTable) implsOfIface(s int32) []codeindex.Impl {
	list := keyed(t.implByIface, s, func(i int32) int32 { return t.implByType[i].Iface })
	out := make([]codeindex.Impl, len(list))
	for i, k := range list {
		out[i] = t.implByType[k]
	}
	return out
}

// promotedOf returns the methods promoted into type s.
func (t *RefTable) promotedOf(s int32) []promotion {
	return keyed(t.promoted, s, func(p promotion) int32 { return p.typ })
}

// MatchSyms returns the symbols whose id is name, or ends with "/"+name
// or "."+name (mcp.Authorizer.Authorize, Authorizer.Authorize), at most
// max+1 of them.
func (t *RefTable) MatchSyms(name string, max int) []int32 {
	if s := t.Sym(name); s >= 0 {
		return []int32{s}
	}
	var out []int32
	for i := range t.symID {
		id := t.ID(int32(i))
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

// Size returns the bytes t holds: its columns at their capacity and the
// ids it does not share with the catalog.
func (t *RefTable) Size() uint64 {
	n := 4*uint64(cap(t.symID)+cap(t.sites)+cap(t.implByIface)) + uint64(cap(t.symKind))
	for _, p := range []*packed{&t.symPkg, &t.posSym, &t.posFile, &t.posLine, &t.runStart, &t.runFrom, &t.runFile, &t.runLine,
		&t.runsByFrom, &t.byTo, &t.toOff} {
		n += p.size()
	}
	for _, ss := range [][]string{t.other, t.pkgs, t.vias} {
		n += uint64(cap(ss)) * uint64(unsafe.Sizeof(""))
		for _, s := range ss {
			n += uint64(len(s))
		}
	}
	n += uint64(cap(t.implByType)) * uint64(unsafe.Sizeof(codeindex.Impl{}))
	n += uint64(cap(t.promoted)) * uint64(unsafe.Sizeof(promotion{}))
	return n
}
