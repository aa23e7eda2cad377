package nav

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unsafe"
)

func unsafeData(s string) *byte { return unsafe.StringData(s) }

func TestPacked(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, most := range []uint32{0, 1, 2, 7, 255, 256, 1<<20 - 1, 1 << 20, 1<<31 + 5, 1<<32 - 1} {
		vals := make([]uint32, 1000)
		for i := range vals {
			vals[i] = uint32(r.Uint64N(uint64(most) + 1))
		}
		vals[len(vals)/2] = most
		p := packValues(vals)
		if p.len() != len(vals) {
			t.Fatalf("max %d: len %d, want %d", most, p.len(), len(vals))
		}
		for i, v := range vals {
			if got := p.at(i); got != v {
				t.Fatalf("max %d (width %d): value %d is %d, want %d", most, p.width, i, got, v)
			}
		}
		if p.size() > uint64(len(vals)*max(1, bitsLen(most))/8+16) {
			t.Errorf("max %d: %d bytes for %d values", most, p.size(), len(vals))
		}
		slices.Sort(vals)
		s := packValues(vals)
		for _, k := range []uint32{0, most / 2, most} {
			want, _ := slices.BinarySearch(vals, k)
			if got := s.search(0, s.len(), func(v uint32) bool { return v >= k }); got != want {
				t.Errorf("max %d: search %d = %d, want %d", most, k, got, want)
			}
		}
	}
	var empty packed
	if empty.len() != 0 || empty.search(0, 0, nil) != 0 {
		t.Error("the zero packed is not empty")
	}
}

func bitsLen(v uint32) int {
	n := 0
	for ; v > 0; v >>= 1 {
		n++
	}
	return n
}

func TestCompareID(t *testing.T) {
	ids := []string{"", "a", "a.", "a.b", "a.b.c", "a/b", "a/b.F", "a/b.G", "a/bc.F", "a/b/c.F", "a-b.F", "a.F", "ab.F", "b", "a/b.(*T).M"}
	for _, pkg := range []string{"a", "a/b", "ab", "a/b/c"} {
		for _, name := range []string{"", "F", "G", "(*T).M", "b", "b.c"} {
			for _, id := range ids {
				if got, want := compareID(pkg, name, id), strings.Compare(pkg+"."+name, id); got != want {
					t.Errorf("compareID(%q, %q, %q) = %d, want %d", pkg, name, id, got, want)
				}
			}
		}
	}
}

type nameList []string

func (l nameList) Len() int        { return len(l) }
func (l nameList) ID(i int) string { return l[i] }

// refsFixture returns references over three files of the snapshot and one
// file it leaves out, and the snapshot, whose main module is
// example.com/app.
func refsFixture(r *rand.Rand) (*codeindex.Refs, *snapshot.Snapshot) {
	s := &snapshot.Snapshot{ByPath: map[string]int32{}, Mods: []snapshot.Module{{Path: "example.com/app"}, {Path: "example.com/lib"}}}
	raw := &codeindex.Refs{}
	for _, f := range []struct{ path, pkg, display string }{
		{"src/example.com/lib/b.go.txt", "example.com/lib", "example.com/lib/b.go"},
		{"src/example.com/gone/x.go.txt", "example.com/gone", ""},
		{"src/example.com/app/z.go.txt", "example.com/app", "example.com/app/z.go"},
		{"src/example.com/lib/a.go.txt", "example.com/lib", "example.com/lib/a.go"},
	} {
		raw.Files = append(raw.Files, f.path)
		if f.display != "" {
			s.ByPath[f.path] = int32(len(s.Files))
			s.Files = append(s.Files, snapshot.File{Path: f.path, Pkg: f.pkg, Display: f.display})
		}
	}
	kinds := []codeindex.SymKind{codeindex.SymFunc, codeindex.SymMethod, codeindex.SymType, codeindex.SymInterface,
		codeindex.SymVar, codeindex.SymConst, codeindex.SymAbstract, codeindex.SymField}
	for _, pkg := range []string{"example.com/app", "example.com/gone", "example.com/lib", "fmt"} {
		for k := range 12 {
			sym := codeindex.Sym{Pkg: pkg, Name: fmt.Sprintf("N%02d", k), Kind: kinds[k%len(kinds)], File: -1}
			if sym.Kind == codeindex.SymAbstract || sym.Kind == codeindex.SymField {
				sym.File, sym.Line = int32(r.IntN(len(raw.Files))), int32(r.IntN(500))
			}
			raw.Syms = append(raw.Syms, sym)
		}
	}
	n := int32(len(raw.Syms))
	refKinds := []codeindex.RefKind{codeindex.RefCall, codeindex.RefDynamic, codeindex.RefValue, codeindex.RefRead, codeindex.RefWrite}
	// Sites as the index orders them: by file, line, declaration, symbol
	// and kind; declarations spread over files and interleaved.
	for f := range int32(len(raw.Files)) {
		var sites []codeindex.Site
		for range 300 {
			sites = append(sites, codeindex.Site{File: f, Line: int32(r.IntN(3000)), From: r.Int32N(n), To: r.Int32N(n),
				Kind: refKinds[r.IntN(len(refKinds))]})
		}
		slices.SortFunc(sites, func(a, b codeindex.Site) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Kind, b.Kind))
		})
		raw.Sites = append(raw.Sites, slices.CompactFunc(sites, func(a, b codeindex.Site) bool { return a == b })...)
	}
	for range 40 {
		raw.Impls = append(raw.Impls, codeindex.Impl{Type: r.Int32N(n), Iface: r.Int32N(n), PtrOnly: r.IntN(2) == 0})
	}
	for range 20 {
		raw.Promoted = append(raw.Promoted, codeindex.Promoted{Type: r.Int32N(n), Method: r.Int32N(n), Via: fmt.Sprint("V", r.IntN(3))})
	}
	return raw, s
}

// TestRefTable checks the table against the references it was built
// from, looked up the plain way: every symbol, every site in both
// directions and in answer order, implementations and promoted methods.
func TestRefTable(t *testing.T) {
	for _, lineBits := range []uint{32, 6, 1} {
		r := rand.New(rand.NewPCG(uint64(lineBits), 7))
		raw, s := refsFixture(r)
		// The catalog knows every other id of the references.
		var names nameList
		for i := range raw.Syms {
			if i%2 == 0 {
				names = append(names, raw.Syms[i].ID())
			}
		}
		names = append(names, "example.com/app.A", "zz.Last")
		slices.Sort(names)
		tab, err := newRefTable(s, "example.com/app", names, raw, lineBits)
		if err != nil {
			t.Fatal(err)
		}
		checkTable(t, fmt.Sprintf("lineBits %d", lineBits), tab, raw, s, names)
	}
}

func checkTable(t *testing.T, name string, tab *RefTable, raw *codeindex.Refs, s *snapshot.Snapshot, names nameList) {
	t.Helper()
	if tab.Len() != len(raw.Syms) {
		t.Fatalf("%s: %d symbols, want %d", name, tab.Len(), len(raw.Syms))
	}
	for i := range raw.Syms {
		rs, si := &raw.Syms[i], int32(i)
		sym := tab.Symbol(si)
		wantFile := int32(-1)
		if rs.File >= 0 {
			wantFile = s.ByPath[raw.Files[rs.File]]
			if _, ok := s.ByPath[raw.Files[rs.File]]; !ok {
				wantFile = -1
			}
		}
		if sym.ID != rs.ID() || sym.Pkg() != rs.Pkg || sym.Kind != rs.Kind || tab.Kind(si) != rs.Kind || sym.file != wantFile || sym.Line != rs.Line {
			t.Errorf("%s: symbol %d = %+v, want %+v", name, i, sym, rs)
		}
		if got := tab.Sym(rs.ID()); got != si {
			t.Errorf("%s: Sym(%s) = %d, want %d", name, rs.ID(), got, i)
		}
		if k, ok := slices.BinarySearch(names, rs.ID()); ok && unsafeData(tab.ID(si)) != unsafeData(names[k]) {
			t.Errorf("%s: %s is a copy, not the catalog's id", name, rs.ID())
		}
	}
	if tab.Sym("example.com/app.A") != -1 || tab.Sym("zz") != -1 {
		t.Errorf("%s: ids the references lack are found", name)
	}
	kept := func(st codeindex.Site) bool { _, ok := s.ByPath[raw.Files[st.File]]; return ok }
	type got struct {
		file, line, from, to int32
		kind                 codeindex.RefKind
	}
	conv := func(st codeindex.Site) got {
		return got{s.ByPath[raw.Files[st.File]], st.Line, st.From, st.To, st.Kind}
	}
	// What the table held before it was packed: sites in the index's
	// order stably sorted by declaration; a symbol's sites then stably
	// sorted by scope, display path and line.
	byFrom := slices.Clone(raw.Sites)
	slices.SortStableFunc(byFrom, func(a, b codeindex.Site) int { return cmp.Compare(a.From, b.From) })
	scope := func(fi int32) index.Scope { return index.ScopeOf(s.Files[fi].Pkg, "example.com/app", s.Mods) }
	total := 0
	for sym := range int32(len(raw.Syms)) {
		var want, have []got
		for _, st := range byFrom {
			if st.To == sym && kept(st) {
				want = append(want, conv(st))
			}
		}
		slices.SortStableFunc(want, func(a, b got) int {
			return cmp.Or(cmp.Compare(scope(a.file), scope(b.file)), strings.Compare(s.Files[a.file].Display, s.Files[b.file].Display),
				cmp.Compare(a.line, b.line))
		})
		tab.sitesTo(sym, func(si int32, st site) {
			have = append(have, got(st))
			if st != tab.site(si) {
				t.Errorf("%s: site %d is %+v in its run, %+v alone", name, si, st, tab.site(si))
			}
		})
		if !slices.Equal(have, want) {
			t.Errorf("%s: sites to %s\n%v\nwant\n%v", name, raw.Syms[sym].ID(), have, want)
		}
		total += len(have)
		want, have = nil, nil
		for _, st := range raw.Sites {
			if st.From == sym && kept(st) {
				want = append(want, conv(st))
			}
		}
		tab.sitesFrom(sym, func(si int32, st site) { have = append(have, got(st)) })
		if !slices.Equal(have, want) {
			t.Errorf("%s: sites of %s\n%v\nwant\n%v", name, raw.Syms[sym].ID(), have, want)
		}
		var wantImpl, wantIface []codeindex.Impl
		for _, im := range raw.Impls {
			if im.Type == sym {
				wantImpl = append(wantImpl, im)
			}
			if im.Iface == sym {
				wantIface = append(wantIface, im)
			}
		}
		if got := tab.ImplsOfType(sym); !slices.Equal(got, wantImpl) {
			t.Errorf("%s: implementations of type %d: %v, want %v", name, sym, got, wantImpl)
		}
		if got := tab.implsOfIface(sym); !slices.Equal(got, wantIface) {
			t.Errorf("%s: implementations of interface %d: %v, want %v", name, sym, got, wantIface)
		}
		var wantProm, haveProm []codeindex.Promoted
		for _, p := range raw.Promoted {
			if p.Type == sym {
				wantProm = append(wantProm, p)
			}
		}
		for _, p := range tab.promotedOf(sym) {
			haveProm = append(haveProm, codeindex.Promoted{Type: p.typ, Method: p.method, Via: tab.vias[p.via]})
		}
		if !slices.Equal(haveProm, wantProm) {
			t.Errorf("%s: promoted into %d: %v, want %v", name, sym, haveProm, wantProm)
		}
	}
	if n := len(slices.DeleteFunc(slices.Clone(raw.Sites), func(st codeindex.Site) bool { return !kept(st) })); total != n || total == 0 {
		t.Errorf("%s: %d sites found, want %d", name, total, n)
	}
	if tab.Size() == 0 {
		t.Errorf("%s: size 0", name)
	}
}

// TestRefTableEmpty checks that the zero table and a table of no
// references answer nothing, without failing.
func TestRefTableEmpty(t *testing.T) {
	var zero RefTable
	if zero.Sym("a.B") != -1 || zero.Len() != 0 || len(zero.MatchSyms("B", 3)) != 0 || len(zero.ImplsOfType(0)) != 0 {
		t.Error("the zero table finds something")
	}
	zero.sitesTo(0, func(int32, site) { t.Error("the zero table has a site") })
	zero.sitesFrom(0, func(int32, site) { t.Error("the zero table has a site") })
	tab, err := newRefTable(&snapshot.Snapshot{}, "", nil, &codeindex.Refs{}, 32)
	if err != nil || tab.Len() != 0 {
		t.Fatalf("empty references: %v, %v", tab, err)
	}
	tab.sitesTo(0, func(int32, site) { t.Error("an empty table has a site") })
}

// TestRefTableDamaged reads references damaged in many ways: those that
// read make a table whose every lookup answers without failing, and
// LoadRefs says what is wrong with the others.
func TestRefTableDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	raw, s := refsFixture(r)
	var b strings.Builder
	if err := codeindex.EncodeRefs(&b, raw); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	s.FS = fstest.MapFS{codesnap.IndexName: {Data: []byte(good)}}
	if tab, err := LoadRefs(s, "example.com/app", nil); err != nil || tab.Len() != len(raw.Syms) {
		t.Fatalf("LoadRefs: %v", err)
	}
	lines := strings.SplitAfter(good, "\n")
	read, failed := 0, 0
	for i := range 1000 {
		damaged := slices.Clone(lines)
		k := r.IntN(len(damaged))
		switch i % 4 {
		case 0: // a line repeated
			damaged = slices.Insert(damaged, r.IntN(len(damaged)), damaged[k])
		case 1: // a line dropped
			damaged = slices.Delete(damaged, k, k+1)
		case 2: // a byte changed
			if l := damaged[k]; len(l) > 1 {
				j := r.IntN(len(l) - 1)
				damaged[k] = l[:j] + string("0123456789 EDcdvrw*"[r.IntN(19)]) + l[j+1:]
			}
		case 3: // two lines swapped
			j := r.IntN(len(damaged))
			damaged[k], damaged[j] = damaged[j], damaged[k]
		}
		text := strings.Join(damaged, "")
		refs, err := codeindex.ReadRefs(strings.NewReader(text))
		if err != nil {
			failed++
			s.FS = fstest.MapFS{codesnap.IndexName: {Data: []byte(text)}}
			if _, lerr := LoadRefs(s, "example.com/app", nil); lerr == nil || !errors.Is(lerr, codeindex.ErrFormat) && !errors.Is(err, codeindex.ErrNoRefs) {
				t.Fatalf("LoadRefs of references ReadRefs refuses (%v): %v", err, lerr)
			}
			continue
		}
		read++
		tab, err := newRefTable(s, "example.com/app", nil, refs, uint(1+i%8)) // no recover: a panic fails the test
		if err != nil {
			t.Fatalf("a table of references that read: %v", err)
		}
		for sym := range int32(tab.Len()) {
			tab.Symbol(sym)
			tab.sitesTo(sym, func(int32, site) {})
			tab.sitesFrom(sym, func(int32, site) {})
			tab.ImplsOfType(sym)
			tab.implsOfIface(sym)
			tab.promotedOf(sym)
		}
	}
	if read == 0 || failed == 0 {
		t.Errorf("%d damaged references read, %d refused: the damage is not varied enough", read, failed)
	}
}
