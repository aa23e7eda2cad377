package nav

import (
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Item is an item of a relation before it is rendered: a site of the
// reference table, or a declaration.
type Item struct {
	site int32 // -1 for a declaration
	// id of the related declaration (callers: the site's enclosing one,
	// callees: the one called); sym its symbol, -1 if none.
	sym  int32
	ID   string
	How  string
	Via  string
	File int32 // snapshot file of a declaration, -1 if none
	Line int32
	Kind string
}

// The relations, as the relation argument spells them.
const (
	relCallers         = "callers"
	relCallees         = "callees"
	relReferences      = "references"
	relImplementations = "implementations"
	relMethods         = "methods"
)

// RelationError is a relation that does not apply to its target, or is
// unknown: the tools answer it as an invalid argument.
type RelationError struct{ Msg string }

// Error returns the message.
func (e *RelationError) Error() string { return e.Msg }

// relationErrorf returns a relationError.
func relationErrorf(format string, args ...any) error {
	return &RelationError{Msg: fmt.Sprintf(format, args...)}
}

// Relation computes the items of rel for target, in answer order.
func (x Navigator) Relation(t *RefTable, target *Target, rel string) ([]Item, string, error) {
	k := target.Kind
	isFunc := k == codeindex.SymFunc || k == codeindex.SymMethod
	isType := k == codeindex.SymType || k == codeindex.SymInterface
	notFor := func(what string) error {
		return relationErrorf("relation %s applies to %s; %s is a %s (use references, or %s)", rel, what, target.ID,
			target.KindName(), strings.Join(applicable(k), ", "))
	}
	switch rel {
	case relCallers:
		if !isFunc && k != codeindex.SymAbstract {
			return nil, "", notFor("functions, methods and interface methods")
		}
		return x.callers(t, target), "", nil
	case relCallees:
		if k == codeindex.SymAbstract || k == codeindex.SymField {
			return nil, "", notFor("declarations with a body or an initializer")
		}
		if target.E == nil || target.E.Snap < 0 {
			return nil, target.ID + " is not declared in the snapshot, so its body was not analysed", nil
		}
		return x.callees(t, target), "", nil
	case relReferences:
		var items []Item
		if target.Sym >= 0 {
			t.sitesTo(target.Sym, func(si int32, st site) {
				items = append(items, x.siteItem(t, si, &st, st.from, refHow(st.kind), ""))
			})
		}
		return items, "", nil
	case relImplementations:
		switch {
		case isType, k == codeindex.SymAbstract, k == codeindex.SymMethod:
			return x.implementations(t, target), "", nil
		}
		return nil, "", notFor("types, interfaces, methods and interface methods")
	case relMethods:
		if !isType {
			return nil, "", notFor("types and interfaces")
		}
		return x.Methods(t, target), "", nil
	}
	return nil, "", relationErrorf("unknown relation %q", rel)
}

// applicable lists the relations that apply to a symbol kind.
func applicable(k codeindex.SymKind) []string {
	switch k {
	case codeindex.SymFunc:
		return []string{relCallers, relCallees, relReferences}
	case codeindex.SymMethod:
		return []string{relCallers, relCallees, relReferences, relImplementations}
	case codeindex.SymAbstract:
		return []string{relCallers, relReferences, relImplementations}
	case codeindex.SymType, codeindex.SymInterface:
		return []string{relReferences, relImplementations, relMethods, relCallees}
	case codeindex.SymField:
		return []string{relReferences}
	}
	return []string{relReferences, relCallees}
}

func refHow(k codeindex.RefKind) string {
	switch k {
	case codeindex.RefCall:
		return "call"
	case codeindex.RefDynamic:
		return "dynamic"
	case codeindex.RefValue:
		return "value"
	case codeindex.RefWrite:
		return "write"
	}
	return "read"
}

// siteItem is the item of site si (st), about declaration sym.
func (x Navigator) siteItem(t *RefTable, si int32, st *site, sym int32, how, via string) Item {
	return Item{site: si, sym: sym, ID: t.ID(sym), How: how, Via: via, File: st.file, Line: st.line,
		Kind: symKindName(t.Kind(sym))}
}

// callers lists the sites that call target or take it as a value, and,
// for a method, the dynamic calls of the interface methods it implements.
func (x Navigator) callers(t *RefTable, target *Target) []Item {
	var items []Item
	if target.Sym >= 0 {
		t.sitesTo(target.Sym, func(si int32, st site) {
			switch st.kind {
			case codeindex.RefCall, codeindex.RefValue, codeindex.RefDynamic:
				items = append(items, x.siteItem(t, si, &st, st.from, refHow(st.kind), ""))
			}
		})
	}
	if target.Kind != codeindex.SymMethod {
		return items
	}
	for _, abstract := range x.implemented(t, target) {
		via := t.ID(abstract)
		t.sitesTo(abstract, func(si int32, st site) {
			if st.kind == codeindex.RefDynamic {
				items = append(items, x.siteItem(t, si, &st, st.from, "dynamic", via))
			}
		})
	}
	return items
}

// implemented returns the interface methods a concrete method implements.
func (x Navigator) implemented(t *RefTable, target *Target) []int32 {
	if target.Sym < 0 {
		return nil
	}
	typeID, method, ok := typeOfMethod(target.ID, len(t.pkg(target.Sym)))
	if !ok {
		return nil
	}
	ts := t.Sym(typeID)
	if ts < 0 {
		return nil
	}
	var out []int32
	for _, im := range t.ImplsOfType(ts) {
		if s := t.Sym(t.ID(im.Iface) + "." + method); s >= 0 {
			out = append(out, s)
		}
	}
	return out
}

// callees lists the calls, dynamic calls and function values in the
// declaration target.
func (x Navigator) callees(t *RefTable, target *Target) []Item {
	if target.Sym < 0 {
		return nil
	}
	var items []Item
	t.sitesFrom(target.Sym, func(si int32, st site) {
		switch st.kind {
		case codeindex.RefCall, codeindex.RefValue, codeindex.RefDynamic:
			items = append(items, x.siteItem(t, si, &st, st.to, refHow(st.kind), ""))
		}
	})
	return items
}

// implementations lists, for a type, the interfaces it implements; for an
// interface, the types that implement it; for an interface method, the
// methods that implement it; for a method, the interface methods it
// implements.
func (x Navigator) implementations(t *RefTable, target *Target) []Item {
	if target.Sym < 0 {
		return nil
	}
	how := func(ptr bool) string {
		if ptr {
			return "pointer implements"
		}
		return "implements"
	}
	var items []Item
	switch target.Kind {
	case codeindex.SymType:
		for _, im := range t.ImplsOfType(target.Sym) {
			items = append(items, x.declItem(t, im.Iface, how(im.PtrOnly), ""))
		}
	case codeindex.SymInterface:
		for _, im := range t.implsOfIface(target.Sym) {
			items = append(items, x.declItem(t, im.Type, how(im.PtrOnly), ""))
		}
	case codeindex.SymAbstract:
		id := t.ID(target.Sym)
		dot := strings.LastIndexByte(id, '.')
		iface, method := t.Sym(id[:dot]), id[dot+1:]
		if iface < 0 {
			return nil
		}
		for _, im := range t.implsOfIface(iface) {
			if m, via := x.methodOf(t, im.Type, method); m != "" {
				items = append(items, x.declItemID(t, m, "implements", via))
			}
		}
	case codeindex.SymMethod:
		for _, a := range x.implemented(t, target) {
			items = append(items, x.declItem(t, a, "implements", ""))
		}
	}
	x.sortDecls(items)
	return items
}

// methodOf returns the id of method name of type typ (declared, or
// promoted through an embedded field, then named by via).
func (x Navigator) methodOf(t *RefTable, typ int32, name string) (id, via string) {
	tid := t.ID(typ)
	pkg := t.pkg(typ)
	tname := tid[len(pkg)+1:]
	for _, cand := range []string{pkg + ".(*" + tname + ")." + name, tid + "." + name} {
		if _, ok := x.Lookup(cand); ok || t.Sym(cand) >= 0 {
			return cand, ""
		}
	}
	for _, p := range t.promotedOf(typ) {
		if m := t.ID(p.method); strings.HasSuffix(m, "."+name) {
			return m, t.vias[p.via]
		}
	}
	return "", ""
}

// Methods lists the methods of a type: those declared on it, then those
// promoted through its embedded fields; of an interface, its methods.
func (x Navigator) Methods(t *RefTable, target *Target) []Item {
	var items []Item
	tname := target.ID
	if target.Kind == codeindex.SymInterface {
		lo, hi := t.symsWithPrefix(tname + ".")
		for s := lo; s < hi; s++ {
			if t.Kind(int32(s)) == codeindex.SymAbstract && !strings.Contains(t.ID(int32(s))[len(tname)+1:], ".") {
				items = append(items, x.declItem(t, int32(s), "declared", ""))
			}
		}
	} else {
		pkgLen := strings.LastIndexByte(tname, '.')
		pkg, name := tname[:pkgLen], tname[pkgLen+1:]
		for _, prefix := range []string{pkg + ".(*" + name + ").", tname + "."} {
			lo, hi := x.IDRange(prefix)
			for i := lo; i < hi; i++ {
				e := &x.Entries[i]
				if e.Kind == index.KindMethod && !strings.Contains(e.ID[len(prefix):], ".") {
					items = append(items, x.entryItem(e, "declared", ""))
				}
			}
		}
	}
	x.sortDecls(items)
	if target.Sym >= 0 {
		var promoted []Item
		for _, p := range t.promotedOf(target.Sym) {
			promoted = append(promoted, x.declItem(t, p.method, "promoted", t.vias[p.via]))
		}
		x.sortDecls(promoted)
		items = append(items, promoted...)
	}
	return items
}

// declItem is the item of symbol s's declaration.
func (x Navigator) declItem(t *RefTable, s int32, how, via string) Item {
	sym := t.Symbol(s)
	if e, ok := x.Lookup(sym.ID); ok {
		it := x.entryItem(e, how, via)
		it.sym, it.Kind = s, symKindName(sym.Kind)
		return it
	}
	return Item{site: -1, sym: s, ID: sym.ID, How: how, Via: via, File: sym.file, Line: sym.Line, Kind: symKindName(sym.Kind)}
}

// declItemID is the item of the declaration with the given id.
func (x Navigator) declItemID(t *RefTable, id, how, via string) Item {
	if s := t.Sym(id); s >= 0 {
		return x.declItem(t, s, how, via)
	}
	if e, ok := x.Lookup(id); ok {
		return x.entryItem(e, how, via)
	}
	return Item{site: -1, sym: -1, ID: id, How: how, Via: via, File: -1}
}

// entryItem is the item of a catalog entry's declaration.
func (x Navigator) entryItem(e *index.Entry, how, via string) Item {
	return Item{site: -1, sym: -1, ID: e.ID, How: how, Via: via, File: e.Snap, Line: e.Line, Kind: e.Kind.String()}
}

// sortDecls orders declaration items: the main module first, then by id.
func (x Navigator) sortDecls(items []Item) {
	mainMod := x.Base.MainModule()
	slices.SortStableFunc(items, func(a, b Item) int {
		sa, sb := scopeOfID(a.ID, mainMod), scopeOfID(b.ID, mainMod)
		if sa != sb {
			return int(sa) - int(sb)
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// scopeOfID returns the scope of the package of an id.
func scopeOfID(id, mainMod string) index.Scope {
	e := index.Entry{ID: id}
	pkg := strings.TrimSuffix(id[:index.NameStart(&e)], ".")
	switch {
	case snapshot.IsStdPkg(pkg):
		return index.ScopeStd
	case mainMod != "" && (pkg == mainMod || strings.HasPrefix(pkg, mainMod+"/")):
		return index.ScopeMain
	}
	return index.ScopeDeps
}

// Navigator answers code_references and the lists of code_definition from
// the snapshot's references.
type Navigator struct{ *index.Index }

// KindName returns the name of the kind of s.
func (s *Sym) KindName() string { return symKindName(s.Kind) }

// Declarations lists the exported declarations of package pkg (all of a
// main package's), in go doc's order: constants, variables, functions,
// types, each by name.
func (x Navigator) Declarations(pkg string) []Item {
	lo, hi := x.IDRange(pkg + ".")
	main := slices.Contains(x.Search.MainPkgs, pkg)
	order := [...]int{index.KindConst: 0, index.KindVar: 1, index.KindFunc: 2, index.KindType: 3}
	var es []*index.Entry
	for i := lo; i < hi; i++ {
		e := &x.Entries[i]
		if e.Pkg != pkg {
			continue
		}
		switch e.Kind {
		case index.KindConst, index.KindVar, index.KindFunc, index.KindType:
		default:
			continue
		}
		if r, _ := utf8.DecodeRuneInString(e.ID[len(pkg)+1:]); main || unicode.IsUpper(r) {
			es = append(es, e)
		}
	}
	slices.SortStableFunc(es, func(a, b *index.Entry) int {
		if d := order[a.Kind] - order[b.Kind]; d != 0 {
			return d
		}
		return strings.Compare(a.ID, b.ID)
	})
	items := make([]Item, len(es))
	for i, e := range es {
		items[i] = x.entryItem(e, "", "")
	}
	return items
}
