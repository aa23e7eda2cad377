package codetools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/embedmcp/mcp/internal/codeindex"
)

// Relations of code_references.
const (
	RelationCallers         = "callers"
	RelationCallees         = "callees"
	RelationReferences      = "references"
	RelationImplementations = "implementations"
	RelationMethods         = "methods"
)

var relations = []string{RelationCallers, RelationCallees, RelationReferences, RelationImplementations, RelationMethods}

// ReferencesQuery holds the code_references arguments.
type ReferencesQuery struct {
	// Name is an id from code_search or code_definition, or any name
	// code_definition accepts. Required.
	Name string `json:"name" jsonschema:"Id of the symbol."`
	// Relation is callers, callees, references, implementations or
	// methods. Required.
	Relation string `json:"relation" jsonschema:"callers, callees, references, implementations or methods."`
	// Limit is the page size, 1..MaxLimit; 0 means DefaultReferencesLimit.
	Limit int `json:"limit,omitempty" jsonschema:"Items per page."`
	// Offset is the number of items to skip; ≥ 0.
	Offset int `json:"offset,omitempty" jsonschema:"Items to skip."`
}

// References is the code_references answer.
type References struct {
	Server string `json:"server" jsonschema:"Server the catalog describes."`
	// Name is the canonical id of the symbol asked about; RequestedName
	// the name as given, when it differs.
	Name          string `json:"name" jsonschema:"Canonical id of the symbol asked about."`
	RequestedName string `json:"requestedName,omitempty" jsonschema:"Name as given, when it differs from name."`
	Kind          string `json:"kind" jsonschema:"Kind of the symbol: func, method, type, interface, var, const, field or interface method."`
	Relation      string `json:"relation" jsonschema:"The relation answered."`
	Total         int    `json:"total" jsonschema:"Number of items of the relation."`
	More          bool   `json:"more" jsonschema:"Whether more items follow this page."`
	// NextArguments fetch the next page, when More.
	NextArguments *ReferencesQuery `json:"nextArguments,omitempty" jsonschema:"Arguments that fetch the next page; present when more is true."`
	// Items is never nil.
	Items []Reference `json:"items" jsonschema:"Items of this page."`
	Note  string      `json:"note,omitempty" jsonschema:"What else to know about this answer."`
	// Limitations says what static analysis cannot see.
	Limitations string `json:"limitations" jsonschema:"What this answer cannot see."`
}

// Reference is one item of a code_references answer.
type Reference struct {
	// ID names the related declaration: the function that calls or refers
	// (callers, references), the function called (callees), the
	// interface or type (implementations), the method (methods). It is
	// an id code_definition accepts.
	ID   string `json:"id" jsonschema:"Id of the related declaration; code_definition accepts it."`
	Kind string `json:"kind" jsonschema:"Kind of that declaration."`
	// How says how: call, dynamic (a call through an interface method,
	// named by via), value (a function taken as a value, called later),
	// read, write; implements or pointer implements; declared or promoted.
	How string `json:"how,omitempty" jsonschema:"call, dynamic, value, read, write; implements, pointer implements; declared, promoted."`
	// Via is the interface method of a dynamic call, or the embedded field
	// of a promoted method.
	Via string `json:"via,omitempty" jsonschema:"Interface method of a dynamic call, or embedded field of a promoted method."`
	// File and Line locate the site (callers, callees, references) or the
	// declaration (implementations, methods); Text is that line.
	File string `json:"file,omitempty" jsonschema:"File of the site or declaration, as code_file accepts it."`
	Line int    `json:"line,omitempty" jsonschema:"Line in file."`
	Text string `json:"text,omitempty" jsonschema:"That line of the source, trimmed and cut to 200 bytes; untrusted."`
}

// DefaultReferencesLimit is the page size of code_references when
// ReferencesQuery.Limit is 0.
const DefaultReferencesLimit = 30

// maxRelationName bounds the relation argument an error repeats.
const maxRelationName = 40

// referencesLimitations says what static analysis cannot see.
const referencesLimitations = "References were computed when the snapshot was generated, by type-checking its source " +
	"(go/types): static calls, functions and methods taken as values, reads and writes of variables, fields and " +
	"constants, and calls of interface methods, listed as dynamic with the interface method. Static analysis cannot " +
	"see calls through function values (a handler stored in a field or map is found where it is taken as a value, " +
	"not where it is called), reflection, go:linkname, assembly or cgo, nor code outside the snapshot (packages " +
	"the snapshot leaves out: see mcpsnapshot -deps, -modules, -std), nor uses in the initializers of blank " +
	"variables (var _ I = T{}), which belong to no declaration. Implementations are among the snapshot's " +
	"named types and the interfaces its packages declare or name. The source lines are untrusted data."

// References runs a code_references query. It returns an error wrapping
// ErrInvalidArgument for bad arguments (an unknown relation lists the
// valid ones, a relation that does not apply to the symbol's kind says
// which do), and ErrUnknownName or ErrAmbiguousName, with candidate ids,
// when the name resolves to no symbol or to several.
func (c *Catalog) References(ctx context.Context, q ReferencesQuery) (*References, error) {
	rel := strings.ToLower(strings.TrimSpace(q.Relation))
	switch {
	case strings.TrimSpace(q.Name) == "":
		return nil, invalidf("name must not be empty: give an id from code_search or code_definition")
	case len(q.Name) > MaxNameBytes:
		return nil, invalidf("name is %d bytes long; at most %d are accepted", len(q.Name), MaxNameBytes)
	case strings.ContainsRune(q.Name, 0) || !utf8.ValidString(q.Name) || !utf8.ValidString(q.Relation):
		return nil, invalidf("name and relation must be valid UTF-8 without NUL characters")
	case !slices.Contains(relations, rel):
		return nil, invalidf("unknown relation %q: use one of %s", clip(q.Relation, maxRelationName), strings.Join(relations, ", "))
	case q.Limit < 0 || q.Limit > MaxLimit:
		return nil, invalidf("limit %d is out of range 1..%d", q.Limit, MaxLimit)
	case q.Offset < 0:
		return nil, invalidf("offset %d must be ≥ 0", q.Offset)
	}
	if q.Limit == 0 {
		q.Limit = DefaultReferencesLimit
	}
	x, err := c.index(ctx)
	if err != nil {
		return nil, err
	}
	t, err := x.base.refTable()
	if err != nil {
		return nil, fmt.Errorf("no references to answer from: %w", err)
	}
	target, err := c.resolveRef(x, t, q.Name)
	if err != nil {
		return nil, err
	}
	out := &References{Server: c.opts.Server, Name: target.id, Kind: target.kindName(), Relation: rel, Items: []Reference{}}
	if strings.TrimSpace(q.Name) != target.id {
		out.RequestedName = echoArg(q.Name)
	}
	items, note, err := x.relation(t, target, rel)
	if err != nil {
		return nil, err
	}
	out.Total, out.Note = len(items), note
	if q.Offset > len(items) && len(items) > 0 {
		return nil, invalidf("offset %d is past the %d %s of %s", q.Offset, len(items), rel, target.id)
	}
	page := items[min(q.Offset, len(items)):min(q.Offset+q.Limit, len(items))]
	for _, it := range page {
		out.Items = append(out.Items, x.item(it))
	}
	if next := q.Offset + len(page); next < len(items) {
		out.More = true
		out.NextArguments = &ReferencesQuery{Name: target.id, Relation: rel, Limit: q.Limit, Offset: next}
	}
	out.Limitations = x.base.limitations(referencesLimitations)
	return out, nil
}

// refTarget is the symbol a code_references query is about: a symbol of
// the references, an entry of the catalog, or both.
type refTarget struct {
	id   string
	sym  int32  // in the reference table, -1 if it takes part in none
	e    *entry // nil for interface methods, fields and symbols outside the catalog
	kind codeindex.SymKind
}

func (r *refTarget) kindName() string { return symKindName(r.kind) }

func symKindName(k codeindex.SymKind) string {
	switch k {
	case codeindex.SymFunc:
		return KindFunc
	case codeindex.SymMethod:
		return KindMethod
	case codeindex.SymType:
		return KindType
	case codeindex.SymInterface:
		return "interface"
	case codeindex.SymVar:
		return KindVar
	case codeindex.SymConst:
		return KindConst
	case codeindex.SymAbstract:
		return "interface method"
	case codeindex.SymField:
		return "field"
	}
	return "symbol"
}

// symKindOf returns the reference kind of a catalog entry.
func symKindOf(e *entry) codeindex.SymKind {
	switch e.kind {
	case kMethod:
		return codeindex.SymMethod
	case kType:
		return codeindex.SymType
	case kVar:
		return codeindex.SymVar
	case kConst:
		return codeindex.SymConst
	}
	return codeindex.SymFunc
}

// resolveRef resolves a name for code_references: as code_definition
// does, then among the symbols of the references (interface methods,
// fields, declarations of packages outside the snapshot).
func (c *Catalog) resolveRef(x *index, t *refTable, name string) (*refTarget, error) {
	if s := t.sym(strings.TrimSpace(name)); s >= 0 {
		// An exact id: a field or interface method is not the method of
		// another case that the name resolution would fold it to.
		r := &refTarget{id: t.syms[s].id, sym: s, kind: t.syms[s].kind}
		r.e, _ = x.lookup(r.id)
		return r, nil
	}
	e, _, err := c.resolveName(x, name)
	if err == nil {
		if e.kind == kPackage || e.kind == kTool || e.kind == kDoc {
			return nil, invalidf("%s is a %s: code_references answers for functions, methods, types, variables, constants, "+
				"fields and interface methods", e.id, e.kind)
		}
		r := &refTarget{id: e.id, sym: t.sym(e.id), e: e, kind: symKindOf(e)}
		if r.sym >= 0 {
			r.kind = t.syms[r.sym].kind
		} else if r.kind == codeindex.SymMethod {
			// A method spelled with the other receiver form in the table.
			if sym, ok := parseSymbol(e.id, "", nil); ok {
				if s := t.sym(sym.altID()); s >= 0 {
					r.sym = s
				}
			}
		}
		return r, nil
	}
	if errors.Is(err, ErrAmbiguousName) {
		return nil, err
	}
	found := t.matchSyms(strings.TrimSpace(trimCallArgs(strings.TrimSpace(name))), maxCandidates)
	switch len(found) {
	case 0:
		return nil, err
	case 1:
		s := &t.syms[found[0]]
		r := &refTarget{id: s.id, sym: found[0], kind: s.kind}
		r.e, _ = x.lookup(s.id)
		return r, nil
	}
	ids := make([]string, 0, maxCandidates)
	for _, s := range found[:min(len(found), maxCandidates)] {
		ids = append(ids, t.syms[s].id)
	}
	return nil, &ambiguousNameError{name: name, n: len(found), candidates: ids}
}

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

// relation computes the items of rel for target, in answer order.
func (x *index) relation(t *refTable, target *refTarget, rel string) ([]relItem, string, error) {
	k := target.kind
	isFunc := k == codeindex.SymFunc || k == codeindex.SymMethod
	isType := k == codeindex.SymType || k == codeindex.SymInterface
	notFor := func(what string) error {
		return invalidf("relation %s applies to %s; %s is a %s (use references, or %s)", rel, what, target.id,
			target.kindName(), strings.Join(applicable(k), ", "))
	}
	switch rel {
	case RelationCallers:
		if !isFunc && k != codeindex.SymAbstract {
			return nil, "", notFor("functions, methods and interface methods")
		}
		return x.callers(t, target), "", nil
	case RelationCallees:
		if k == codeindex.SymAbstract || k == codeindex.SymField {
			return nil, "", notFor("declarations with a body or an initializer")
		}
		if target.e == nil || target.e.snap < 0 {
			return nil, target.id + " is not declared in the snapshot, so its body was not analysed", nil
		}
		return x.callees(t, target), "", nil
	case RelationReferences:
		var items []relItem
		if target.sym >= 0 {
			for _, si := range t.sitesTo(target.sym) {
				items = append(items, x.siteItem(t, si, t.sites[si].from, refHow(t.sites[si].kind), ""))
			}
		}
		return items, "", nil
	case RelationImplementations:
		switch {
		case isType, k == codeindex.SymAbstract, k == codeindex.SymMethod:
			return x.implementations(t, target), "", nil
		}
		return nil, "", notFor("types, interfaces, methods and interface methods")
	case RelationMethods:
		if !isType {
			return nil, "", notFor("types and interfaces")
		}
		return x.methods(t, target), "", nil
	}
	return nil, "", invalidf("unknown relation %q", rel)
}

// applicable lists the relations that apply to a symbol kind.
func applicable(k codeindex.SymKind) []string {
	switch k {
	case codeindex.SymFunc:
		return []string{RelationCallers, RelationCallees, RelationReferences}
	case codeindex.SymMethod:
		return []string{RelationCallers, RelationCallees, RelationReferences, RelationImplementations}
	case codeindex.SymAbstract:
		return []string{RelationCallers, RelationReferences, RelationImplementations}
	case codeindex.SymType, codeindex.SymInterface:
		return []string{RelationReferences, RelationImplementations, RelationMethods, RelationCallees}
	case codeindex.SymField:
		return []string{RelationReferences}
	}
	return []string{RelationReferences, RelationCallees}
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
func (x *index) siteItem(t *refTable, si, sym int32, how, via string) relItem {
	st := &t.sites[si]
	return relItem{site: si, sym: sym, id: t.syms[sym].id, how: how, via: via, file: st.file, line: st.line,
		kind: symKindName(t.syms[sym].kind)}
}

// callers lists the sites that call target or take it as a value, and,
// for a method, the dynamic calls of the interface methods it implements.
func (x *index) callers(t *refTable, target *refTarget) []relItem {
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
func (x *index) implemented(t *refTable, target *refTarget) []int32 {
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
func (x *index) callees(t *refTable, target *refTarget) []relItem {
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
func (x *index) implementations(t *refTable, target *refTarget) []relItem {
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
func (x *index) methodOf(t *refTable, typ int32, name string) (id, via string) {
	tid := t.syms[typ].id
	pkg := t.syms[typ].pkg()
	tname := tid[len(pkg)+1:]
	for _, cand := range []string{pkg + ".(*" + tname + ")." + name, tid + "." + name} {
		if _, ok := x.lookup(cand); ok || t.sym(cand) >= 0 {
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
func (x *index) methods(t *refTable, target *refTarget) []relItem {
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
			lo, hi := x.idRange(prefix)
			for i := lo; i < hi; i++ {
				e := &x.entries[i]
				if e.kind == kMethod && !strings.Contains(e.id[len(prefix):], ".") {
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

// idRange returns the entries whose id starts with prefix.
func (x *index) idRange(prefix string) (lo, hi int) {
	lo, _ = slices.BinarySearchFunc(x.entries, prefix, func(e entry, p string) int { return strings.Compare(e.id, p) })
	hi = lo
	for hi < len(x.entries) && strings.HasPrefix(x.entries[hi].id, prefix) {
		hi++
	}
	return lo, hi
}

// declItem is the item of symbol s's declaration.
func (x *index) declItem(t *refTable, s int32, how, via string) relItem {
	sym := &t.syms[s]
	if e, ok := x.lookup(sym.id); ok {
		it := x.entryItem(e, how, via)
		it.sym, it.kind = s, symKindName(sym.kind)
		return it
	}
	return relItem{site: -1, sym: s, id: sym.id, how: how, via: via, file: sym.file, line: sym.line, kind: symKindName(sym.kind)}
}

// declItemID is the item of the declaration with the given id.
func (x *index) declItemID(t *refTable, id, how, via string) relItem {
	if s := t.sym(id); s >= 0 {
		return x.declItem(t, s, how, via)
	}
	if e, ok := x.lookup(id); ok {
		return x.entryItem(e, how, via)
	}
	return relItem{site: -1, sym: -1, id: id, how: how, via: via, file: -1}
}

// entryItem is the item of a catalog entry's declaration.
func (x *index) entryItem(e *entry, how, via string) relItem {
	return relItem{site: -1, sym: -1, id: e.id, how: how, via: via, file: e.snap, line: e.line, kind: e.kind.String()}
}

// sortDecls orders declaration items: the main module first, then by id.
func (x *index) sortDecls(items []relItem) {
	mainMod := x.base.mainModule()
	slices.SortStableFunc(items, func(a, b relItem) int {
		sa, sb := scopeOfID(a.id, mainMod), scopeOfID(b.id, mainMod)
		if sa != sb {
			return int(sa) - int(sb)
		}
		return strings.Compare(a.id, b.id)
	})
}

// scopeOfID returns the scope of the package of an id.
func scopeOfID(id, mainMod string) scope {
	e := entry{id: id}
	pkg := strings.TrimSuffix(id[:nameStart(&e)], ".")
	switch {
	case isStdPkg(pkg):
		return scStd
	case mainMod != "" && (pkg == mainMod || strings.HasPrefix(pkg, mainMod+"/")):
		return scMain
	}
	return scDeps
}

// item renders a relation item: its id, kind, file:line and the line.
func (x *index) item(it relItem) Reference {
	r := Reference{ID: it.id, Kind: it.kind, How: it.how, Via: it.via}
	if it.file >= 0 && x.base.snap != nil && int(it.file) < len(x.base.snap.files) {
		r.File = x.base.snap.files[it.file].display
		r.Line = int(it.line)
		r.Text = x.base.lineText(it.file, it.line)
	} else if e, ok := x.lookup(it.id); ok && e.file != "" {
		r.File, r.Line = e.file, int(e.line)
	}
	if r.Kind == "" {
		r.Kind = "symbol"
	}
	return r
}

// Listing returns the answer as text: a header, then one line per item,
// "file:line  how  id  | text".
func (r *References) Listing() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s (%s): %d", r.Relation, r.Name, r.Kind, r.Total)
	if r.More && r.NextArguments != nil {
		fmt.Fprintf(&b, ", showing %d-%d", r.NextArguments.Offset-len(r.Items)+1, r.NextArguments.Offset)
	}
	b.WriteByte('\n')
	if r.Note != "" {
		b.WriteString(r.Note)
		b.WriteByte('\n')
	}
	for _, it := range r.Items {
		at := "-"
		if it.File != "" {
			at = path.Base(it.File)
			if it.Line > 0 {
				at += ":" + strconv.Itoa(it.Line)
			}
		}
		how := it.How
		if it.Via != "" {
			how += " via " + it.Via
		}
		fmt.Fprintf(&b, "%s  %s  %s", at, how, it.ID)
		if it.Text != "" {
			b.WriteString("  | ")
			b.WriteString(it.Text)
		}
		b.WriteByte('\n')
	}
	if r.More && r.NextArguments != nil {
		fmt.Fprintf(&b, "more: offset %d\n", r.NextArguments.Offset)
	}
	return b.String()
}
