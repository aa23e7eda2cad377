package codetools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
)

// relItem is an item of a relation before it is rendered: a site of the
// reference table, or a declaration.
type relItem struct {
	site int32 // -1 for a declaration
	// id of the related declaration (callers: the site's enclosing one,
	// callees: the one called); sym its symbol, -1 if none.
	sym  int32
	id   string
	how  string
	via  string
	file int32 // snapshot file of a declaration, -1 if none
	line int32
	kind string
}

// The relations, as the relation argument spells them.
const (
	relCallers         = "callers"
	relCallees         = "callees"
	relReferences      = "references"
	relImplementations = "implementations"
	relMethods         = "methods"
)

// relationError is a relation that does not apply to its target, or is
// unknown: the tools answer it as an invalid argument.
type relationError struct{ msg string }

func (e *relationError) Error() string { return e.msg }

// relationErrorf returns a relationError.
func relationErrorf(format string, args ...any) error {
	return &relationError{msg: fmt.Sprintf(format, args...)}
}

// relation computes the items of rel for target, in answer order.
func (x navigator) relation(t *refTable, target *refTarget, rel string) ([]relItem, string, error) {
	k := target.kind
	isFunc := k == codeindex.SymFunc || k == codeindex.SymMethod
	isType := k == codeindex.SymType || k == codeindex.SymInterface
	notFor := func(what string) error {
		return relationErrorf("relation %s applies to %s; %s is a %s (use references, or %s)", rel, what, target.id,
			target.kindName(), strings.Join(applicable(k), ", "))
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
		if target.e == nil || target.e.Snap < 0 {
			return nil, target.id + " is not declared in the snapshot, so its body was not analysed", nil
		}
		return x.callees(t, target), "", nil
	case relReferences:
		var items []relItem
		if target.sym >= 0 {
			for _, si := range t.sitesTo(target.sym) {
				items = append(items, x.siteItem(t, si, t.sites[si].from, refHow(t.sites[si].kind), ""))
			}
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
		return x.methods(t, target), "", nil
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

// siteItem is the item of site si, about declaration sym.
func (x navigator) siteItem(t *refTable, si, sym int32, how, via string) relItem {
	st := &t.sites[si]
	return relItem{site: si, sym: sym, id: t.syms[sym].id, how: how, via: via, file: st.file, line: st.line,
		kind: symKindName(t.syms[sym].kind)}
}

// callers lists the sites that call target or take it as a value, and,
// for a method, the dynamic calls of the interface methods it implements.
func (x navigator) callers(t *refTable, target *refTarget) []relItem {
	var items []relItem
	if target.sym >= 0 {
		for _, si := range t.sitesTo(target.sym) {
			switch st := &t.sites[si]; st.kind {
			case codeindex.RefCall, codeindex.RefValue, codeindex.RefDynamic:
				items = append(items, x.siteItem(t, si, st.from, refHow(st.kind), ""))
			}
		}
	}
	if target.kind != codeindex.SymMethod {
		return items
	}
	for _, abstract := range x.implemented(t, target) {
		via := t.syms[abstract].id
		for _, si := range t.sitesTo(abstract) {
			if st := &t.sites[si]; st.kind == codeindex.RefDynamic {
				items = append(items, x.siteItem(t, si, st.from, "dynamic", via))
			}
		}
	}
	return items
}

// implemented returns the interface methods a concrete method implements.
func (x navigator) implemented(t *refTable, target *refTarget) []int32 {
	if target.sym < 0 {
		return nil
	}
	typeID, method, ok := typeOfMethod(target.id, int(t.syms[target.sym].pkgLen))
	if !ok {
		return nil
	}
	ts := t.sym(typeID)
	if ts < 0 {
		return nil
	}
	var out []int32
	for _, im := range t.implsOfType(ts) {
		if s := t.sym(t.syms[im.Iface].id + "." + method); s >= 0 {
			out = append(out, s)
		}
	}
	return out
}

// callees lists the calls, dynamic calls and function values in the
// declaration target.
func (x navigator) callees(t *refTable, target *refTarget) []relItem {
	if target.sym < 0 {
		return nil
	}
	var items []relItem
	for _, si := range t.sitesFrom(target.sym) {
		switch st := &t.sites[si]; st.kind {
		case codeindex.RefCall, codeindex.RefValue, codeindex.RefDynamic:
			items = append(items, x.siteItem(t, si, st.to, refHow(st.kind), ""))
		}
	}
	return items
}

// implementations lists, for a type, the interfaces it implements; for an
// interface, the types that implement it; for an interface method, the
// methods that implement it; for a method, the interface methods it
// implements.
func (x navigator) implementations(t *refTable, target *refTarget) []relItem {
	if target.sym < 0 {
		return nil
	}
	how := func(ptr bool) string {
		if ptr {
			return "pointer implements"
		}
		return "implements"
	}
	var items []relItem
	switch target.kind {
	case codeindex.SymType:
		for _, im := range t.implsOfType(target.sym) {
			items = append(items, x.declItem(t, im.Iface, how(im.PtrOnly), ""))
		}
	case codeindex.SymInterface:
		for _, im := range t.implsOfIface(target.sym) {
			items = append(items, x.declItem(t, im.Type, how(im.PtrOnly), ""))
		}
	case codeindex.SymAbstract:
		s := &t.syms[target.sym]
		dot := strings.LastIndexByte(s.id, '.')
		iface, method := t.sym(s.id[:dot]), s.id[dot+1:]
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
func (x navigator) methodOf(t *refTable, typ int32, name string) (id, via string) {
	tid := t.syms[typ].id
	pkg := t.syms[typ].pkg()
	tname := tid[len(pkg)+1:]
	for _, cand := range []string{pkg + ".(*" + tname + ")." + name, tid + "." + name} {
		if _, ok := x.Lookup(cand); ok || t.sym(cand) >= 0 {
			return cand, ""
		}
	}
	for _, p := range t.promotedOf(typ) {
		if m := t.syms[p.Method].id; strings.HasSuffix(m, "."+name) {
			return m, p.Via
		}
	}
	return "", ""
}

// methods lists the methods of a type: those declared on it, then those
// promoted through its embedded fields; of an interface, its methods.
func (x navigator) methods(t *refTable, target *refTarget) []relItem {
	var items []relItem
	tname := target.id
	if target.kind == codeindex.SymInterface {
		lo, hi := t.symsWithPrefix(tname + ".")
		for s := lo; s < hi; s++ {
			if t.syms[s].kind == codeindex.SymAbstract && !strings.Contains(t.syms[s].id[len(tname)+1:], ".") {
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
	if target.sym >= 0 {
		var promoted []relItem
		for _, p := range t.promotedOf(target.sym) {
			promoted = append(promoted, x.declItem(t, p.Method, "promoted", p.Via))
		}
		x.sortDecls(promoted)
		items = append(items, promoted...)
	}
	return items
}

// declItem is the item of symbol s's declaration.
func (x navigator) declItem(t *refTable, s int32, how, via string) relItem {
	sym := &t.syms[s]
	if e, ok := x.Lookup(sym.id); ok {
		it := x.entryItem(e, how, via)
		it.sym, it.kind = s, symKindName(sym.kind)
		return it
	}
	return relItem{site: -1, sym: s, id: sym.id, how: how, via: via, file: sym.file, line: sym.line, kind: symKindName(sym.kind)}
}

// declItemID is the item of the declaration with the given id.
func (x navigator) declItemID(t *refTable, id, how, via string) relItem {
	if s := t.sym(id); s >= 0 {
		return x.declItem(t, s, how, via)
	}
	if e, ok := x.Lookup(id); ok {
		return x.entryItem(e, how, via)
	}
	return relItem{site: -1, sym: -1, id: id, how: how, via: via, file: -1}
}

// entryItem is the item of a catalog entry's declaration.
func (x navigator) entryItem(e *index.Entry, how, via string) relItem {
	return relItem{site: -1, sym: -1, id: e.ID, how: how, via: via, file: e.Snap, line: e.Line, kind: e.Kind.String()}
}

// sortDecls orders declaration items: the main module first, then by id.
func (x navigator) sortDecls(items []relItem) {
	mainMod := x.Base.MainModule()
	slices.SortStableFunc(items, func(a, b relItem) int {
		sa, sb := scopeOfID(a.id, mainMod), scopeOfID(b.id, mainMod)
		if sa != sb {
			return int(sa) - int(sb)
		}
		return strings.Compare(a.id, b.id)
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
