// Package coderefs computes the references of a codetools source snapshot
// from type-checked Go source (go/ast and go/types): which declaration
// calls, takes as a value, reads or writes which other, the interfaces
// each type implements, and the methods promoted into each type. The
// mcpsnapshot command runs it over the packages it type-checks one at a
// time (a Builder), dependencies first; the result is the references
// section of the snapshot's index (codeindex.Refs), which a catalog reads
// without parsing or type-checking anything.
//
// What static analysis cannot see is left out: calls through function
// values (a site takes the function as a value, the call comes later),
// reflection, go:linkname, assembly and cgo. A call of an interface method
// is recorded as a dynamic call of the interface method; the implementations
// tell which methods it may reach.
package coderefs

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"

	"github.com/embedmcp/mcp/internal/codeindex"
)

// Package is one type-checked package of the snapshot.
type Package struct {
	// Files are the package's syntax trees, in the order the go command
	// compiles them (which numbers its init functions).
	Files []*ast.File
	// Info records Uses and Defs; Builder.AddImplementations needs neither
	// it nor Files.
	Info  *types.Info
	Types *types.Package
}

// Build computes the references of pkgs, whose positions fset resolves.
// snapPath maps a file name of fset to the file's path in the snapshot,
// or "" for a file the snapshot does not hold (whose sites are left out).
// info must record Uses and Defs.
func Build(fset *token.FileSet, pkgs []*Package, snapPath func(filename string) string) *codeindex.Refs {
	b := NewBuilder(snapPath)
	b.AddSites(fset, pkgs)
	b.AddImplementations(fset, pkgs)
	return b.Result()
}

// A Builder computes references a package at a time, so that the syntax
// and type information of a package can be dropped once its sites are
// recorded: AddSites for every package, in any order that type-checks
// them (dependencies first), then AddImplementations once, then Result.
// All the packages must be of one go/types universe (a package imports
// the very *types.Package its dependency was checked as). The result does
// not depend on the order of the AddSites calls: the files are numbered as
// if the packages had been added in the order of their paths.
type Builder struct {
	fset     *token.FileSet
	snapPath func(string) string
	syms     map[symKey]*symInfo
	// paths interns the snapshot paths of files, numbered in order of
	// first sight; Result renumbers them (see events).
	paths   []string
	pathIDs map[string]int32
	// fields maps a field of a package-level struct type to "T.F", for
	// the packages scanned; curFields for curPkg, the package whose sites
	// are being added (its fields are not kept past it).
	fields    map[*types.Var]string
	scanned   map[*types.Package]bool
	curPkg    *types.Package
	curFields map[*types.Var]string
	// used are the package-level type names the sites' code names.
	used map[symKey]bool
	// events are, for each package added (by path) and then for the
	// implementations, the files in the order a single pass over the
	// packages sorted by path would have numbered them: a site's file, or
	// the file of a symbol on its first addition. cur collects those of
	// the package being added.
	events     map[string][]event
	implEvents []event
	cur        *[]event
	curSeen    map[event]bool
	// Symbols of sites, implementations and promotions, by the keys
	// above, before numbering.
	// sites hold path ids for files and symbol indexes (symInfo.idx)
	// until Result numbers them.
	sites     []codeindex.Site
	impls     []implRec
	promotion []promoRec
}

// event is a file (by path id) that is numbered at this point of a pass,
// if it is not yet; for a symbol's file (key set), only if the symbol is
// new then.
type event struct {
	key  symKey
	path int32
	sym  bool
}

// NewBuilder returns a Builder; snapPath maps a file name of the FileSets
// given to it to the file's path in the snapshot, or "" for a file the
// snapshot does not hold (whose sites are left out).
func NewBuilder(snapPath func(filename string) string) *Builder {
	return &Builder{snapPath: snapPath, syms: map[symKey]*symInfo{}, pathIDs: map[string]int32{},
		fields: map[*types.Var]string{}, scanned: map[*types.Package]bool{}, used: map[symKey]bool{},
		events: map[string][]event{}}
}

// AddSites records the sites of pkgs, whose positions fset resolves. Their
// info must record Uses and Defs. The Builder keeps nothing of pkgs
// themselves (their syntax, info or objects), only of the packages they
// import; so a package may be checked twice, once in full for AddSites and
// once without its function bodies for the universe its importers and
// AddImplementations see.
func (b *Builder) AddSites(fset *token.FileSet, pkgs []*Package) {
	b.fset = fset
	for _, p := range pkgs {
		evs := b.events[p.Types.Path()]
		b.cur, b.curSeen = &evs, map[event]bool{}
		b.curPkg, b.curFields = p.Types, nil
		b.pkg(p)
		b.events[p.Types.Path()] = evs
		for _, obj := range p.Info.Uses {
			if tn, ok := obj.(*types.TypeName); ok && tn.Pkg() != nil && tn.Parent() == tn.Pkg().Scope() {
				b.used[symKey{tn.Pkg().Path(), tn.Name()}] = true
			}
		}
	}
	b.fset, b.cur, b.curSeen, b.curPkg, b.curFields = nil, nil, nil, nil, nil
}

// AddImplementations records, for every named non-interface type declared
// in pkgs (in the order of their paths), the interfaces it implements
// among those declared in pkgs and those the code given to AddSites names
// (found, by package path and name, among pkgs and their imports); and the
// methods promoted into each type. pkgs need no syntax or info. No more
// sites can be added after it.
func (b *Builder) AddImplementations(fset *token.FileSet, pkgs []*Package) {
	b.fset = fset
	b.cur, b.curSeen = &b.implEvents, map[event]bool{}
	b.implementations(pkgs)
	// Nothing of the go/types universe is kept past this point.
	b.fset, b.cur, b.curSeen = nil, nil, nil
	b.fields, b.scanned, b.used = nil, nil, nil
}

type symKey struct{ pkg, name string }

type symInfo struct {
	sym codeindex.Sym
	idx int32 // in order of addition
	n   int32 // number in the result
}

type implRec struct {
	typ, iface symKey
	ptrOnly    bool
}

type promoRec struct {
	typ, method symKey
	via         string
}

// fileNo returns the path id of a snapshot file, or -1, and the line.
func (b *Builder) fileNo(pos token.Pos) (int32, int32) {
	for _, adjusted := range [...]bool{false, true} {
		p := b.fset.PositionFor(pos, adjusted)
		if !p.IsValid() {
			return -1, 0
		}
		sp := b.snapPath(p.Filename)
		if sp == "" {
			continue
		}
		n, ok := b.pathIDs[sp]
		if !ok {
			n = int32(len(b.paths))
			b.pathIDs[sp] = n
			b.paths = append(b.paths, sp)
		}
		return n, int32(p.Line)
	}
	return -1, 0
}

// note appends e to the events of the current pass, unless it is there
// already.
func (b *Builder) note(e event) {
	if b.cur != nil && !b.curSeen[e] {
		b.curSeen[e] = true
		*b.cur = append(*b.cur, e)
	}
}

// add records a symbol and returns its key.
func (b *Builder) add(pkg, name string, kind codeindex.SymKind, pos token.Pos) symKey {
	k := symKey{pkg, name}
	si, ok := b.syms[k]
	if !ok {
		s := codeindex.Sym{Pkg: pkg, Name: name, Kind: kind, File: -1}
		if kind == codeindex.SymAbstract || kind == codeindex.SymField {
			if f, line := b.fileNo(pos); f >= 0 {
				s.File, s.Line = f, line
			}
		}
		si = &symInfo{sym: s, idx: int32(len(b.syms))}
		b.syms[k] = si
	}
	if si.sym.File >= 0 {
		b.note(event{key: k, path: si.sym.File, sym: true})
	}
	return k
}

// numberFiles returns the number of each file by path id: the files in
// the order in which a single pass over the packages sorted by path, and
// then the implementations, would have met them.
func (b *Builder) numberFiles() []int32 {
	no := make([]int32, len(b.paths))
	for i := range no {
		no[i] = -1
	}
	n := int32(0)
	added := map[symKey]bool{}
	replay := func(evs []event) {
		for _, e := range evs {
			if e.sym {
				if added[e.key] {
					continue
				}
				added[e.key] = true
			}
			if no[e.path] < 0 {
				no[e.path] = n
				n++
			}
		}
	}
	pkgs := make([]string, 0, len(b.events))
	for p := range b.events {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		replay(b.events[p])
	}
	replay(b.implEvents)
	return no
}

// symOf returns the symbol an object is, if it is a declaration of a
// package (or a method or field of one) that the references track.
func (b *Builder) symOf(obj types.Object) (symKey, bool) {
	if obj == nil || obj.Pkg() == nil {
		return symKey{}, false
	}
	pkg := obj.Pkg().Path()
	atTop := obj.Parent() != nil && obj.Parent() == obj.Pkg().Scope()
	switch o := obj.(type) {
	case *types.Func:
		o = o.Origin()
		sig, _ := o.Type().(*types.Signature)
		if sig == nil || sig.Recv() == nil {
			if !atTop {
				return symKey{}, false
			}
			return b.add(pkg, o.Name(), codeindex.SymFunc, o.Pos()), true
		}
		recv := sig.Recv().Type()
		ptr := false
		if p, ok := recv.(*types.Pointer); ok {
			recv, ptr = p.Elem(), true
		}
		named, ok := types.Unalias(recv).(*types.Named)
		if !ok || named.Obj().Pkg() == nil {
			return symKey{}, false // a method of an interface literal, or of error
		}
		tn := named.Origin().Obj()
		if types.IsInterface(named) {
			return b.add(tn.Pkg().Path(), tn.Name()+"."+o.Name(), codeindex.SymAbstract, o.Pos()), true
		}
		if ptr {
			return b.add(pkg, "(*"+tn.Name()+")."+o.Name(), codeindex.SymMethod, o.Pos()), true
		}
		return b.add(pkg, tn.Name()+"."+o.Name(), codeindex.SymMethod, o.Pos()), true
	case *types.TypeName:
		if !atTop || o.IsAlias() && o.Name() == "_" {
			return symKey{}, false
		}
		k := codeindex.SymType
		if types.IsInterface(o.Type()) {
			k = codeindex.SymInterface
		}
		return b.add(pkg, o.Name(), k, o.Pos()), true
	case *types.Var:
		o = o.Origin()
		if o.IsField() {
			name, ok := b.fieldName(o)
			if !ok {
				return symKey{}, false
			}
			return b.add(pkg, name, codeindex.SymField, o.Pos()), true
		}
		if !atTop || o.Name() == "_" {
			return symKey{}, false
		}
		return b.add(pkg, o.Name(), codeindex.SymVar, o.Pos()), true
	case *types.Const:
		if !atTop || o.Name() == "_" {
			return symKey{}, false
		}
		return b.add(pkg, o.Name(), codeindex.SymConst, o.Pos()), true
	}
	return symKey{}, false
}

// fieldName returns "T.F" for a field F of a package-level struct type T.
func (b *Builder) fieldName(v *types.Var) (string, bool) {
	if v.Pkg() == b.curPkg {
		if b.curFields == nil {
			b.curFields = map[*types.Var]string{}
			scanFields(v.Pkg(), b.curFields)
		}
		name, ok := b.curFields[v]
		return name, ok
	}
	if !b.scanned[v.Pkg()] {
		b.scanned[v.Pkg()] = true
		scanFields(v.Pkg(), b.fields)
	}
	name, ok := b.fields[v]
	return name, ok
}

// scanFields maps the fields of the package-level struct types of pkg to
// "T.F" in fields.
func scanFields(pkg *types.Package, fields map[*types.Var]string) {
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				// A type defined as another package's struct type
				// (type T p.S) does not name that package's fields.
				if st.Field(i).Pkg() != pkg {
					continue
				}
				fields[st.Field(i)] = name + "." + st.Field(i).Name()
			}
		}
	}
}

// pkg records the sites of one package.
func (b *Builder) pkg(p *Package) {
	inits := 0
	for _, f := range p.Files {
		uses := classify(f)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name, k, ok := codeindex.FuncName(d, &inits)
				if !ok {
					continue
				}
				kind := codeindex.SymFunc
				if k == codeindex.Method {
					kind = codeindex.SymMethod
				}
				from := b.add(p.Types.Path(), name, kind, d.Pos())
				b.walk(p, d, from, uses)
			case *ast.GenDecl:
				b.genDecl(p, d, uses)
			}
		}
	}
}

// genDecl records the sites of a const, var or type declaration, each
// under the name it declares (the first name of a spec for values shared
// by several).
func (b *Builder) genDecl(p *Package, d *ast.GenDecl, uses map[*ast.Ident]codeindex.RefKind) {
	for _, spec := range d.Specs {
		switch sp := spec.(type) {
		case *ast.TypeSpec:
			obj := p.Info.Defs[sp.Name]
			if from, ok := b.symOf(obj); ok {
				b.walk(p, sp, from, uses)
			}
		case *ast.ValueSpec:
			names := make([]symKey, len(sp.Names))
			named := make([]bool, len(sp.Names))
			first := -1
			for i, n := range sp.Names {
				names[i], named[i] = b.symOf(p.Info.Defs[n])
				if named[i] && first < 0 {
					first = i
				}
			}
			if first < 0 {
				continue // only blank names
			}
			for i, v := range sp.Values {
				owner := names[first]
				if len(sp.Values) == len(sp.Names) && named[i] {
					owner = names[i]
				}
				b.walk(p, v, owner, uses)
			}
			if sp.Type != nil {
				b.walk(p, sp.Type, names[first], uses)
			}
		}
	}
}

// walk records every identifier of n that refers to a tracked symbol as
// a site of declaration from.
func (b *Builder) walk(p *Package, n ast.Node, from symKey, uses map[*ast.Ident]codeindex.RefKind) {
	ast.Inspect(n, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		obj := p.Info.Uses[id]
		if obj == nil {
			return true
		}
		to, ok := b.symOf(obj)
		if !ok {
			return true
		}
		kind, marked := uses[id]
		_, isFunc := obj.(*types.Func)
		_, isVar := obj.(*types.Var)
		switch {
		case isFunc && marked && kind == codeindex.RefCall:
			if b.syms[to].sym.Kind == codeindex.SymAbstract {
				kind = codeindex.RefDynamic
			}
		case isFunc:
			kind = codeindex.RefValue
		case isVar && marked && kind == codeindex.RefWrite:
		default:
			kind = codeindex.RefRead
		}
		file, line := b.fileNo(id.Pos())
		if file < 0 {
			return true
		}
		b.note(event{path: file})
		b.sites = append(b.sites, codeindex.Site{File: file, Line: line, From: b.syms[from].idx, To: b.syms[to].idx, Kind: kind})
		return true
	})
}

// classify marks the identifiers of f in call position (RefCall) and
// those assigned to (RefWrite).
func classify(f *ast.File) map[*ast.Ident]codeindex.RefKind {
	m := map[*ast.Ident]codeindex.RefKind{}
	target := func(e ast.Expr) *ast.Ident {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
			case *ast.IndexExpr: // F[T]
				e = x.X
			case *ast.IndexListExpr:
				e = x.X
			case *ast.SelectorExpr:
				return x.Sel
			case *ast.Ident:
				return x
			default:
				return nil
			}
		}
	}
	written := func(e ast.Expr) {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
			case *ast.IndexExpr: // m[k] = v writes into m
				e = x.X
			case *ast.SelectorExpr:
				m[x.Sel] = codeindex.RefWrite
				return
			case *ast.Ident:
				m[x] = codeindex.RefWrite
				return
			default:
				return
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if id := target(x.Fun); id != nil {
				m[id] = codeindex.RefCall
			}
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				written(l)
			}
		case *ast.IncDecStmt:
			written(x.X)
		case *ast.RangeStmt:
			if x.Tok == token.ASSIGN {
				if x.Key != nil {
					written(x.Key)
				}
				if x.Value != nil {
					written(x.Value)
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := x.Key.(*ast.Ident); ok {
				// A field key of a struct literal (Uses resolves it to
				// the field); a map key or array index is no field.
				m[id] = codeindex.RefWrite
			}
		}
		return true
	})
	return m
}

// implementations records, for every named non-interface type declared in
// pkgs, the interfaces it implements among those declared in pkgs and
// those their code names; and the methods promoted into each type.
func (b *Builder) implementations(pkgs []*Package) {
	type named struct {
		key symKey
		t   *types.Named
	}
	var concrete, ifaces []named
	seen := map[*types.TypeName]bool{}
	addIface := func(tn *types.TypeName) {
		if seen[tn] || tn.Pkg() == nil || tn.IsAlias() {
			return
		}
		seen[tn] = true
		n, ok := tn.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 {
			return
		}
		it, ok := n.Underlying().(*types.Interface)
		if !ok || it.NumMethods() == 0 || !it.IsMethodSet() {
			return
		}
		if k, ok := b.symOf(tn); ok {
			ifaces = append(ifaces, named{k, n})
		}
	}
	for _, p := range pkgs {
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			n, ok := tn.Type().(*types.Named)
			if !ok {
				continue
			}
			if types.IsInterface(n) {
				addIface(tn)
				b.promoted(tn, n)
				continue
			}
			if n.TypeParams().Len() > 0 {
				continue
			}
			if k, ok := b.symOf(tn); ok {
				concrete = append(concrete, named{k, n})
				b.promoted(tn, n)
			}
		}
	}
	byPath := map[string]*types.Package{}
	var visit func(*types.Package)
	visit = func(t *types.Package) {
		if byPath[t.Path()] == nil {
			byPath[t.Path()] = t
			for _, i := range t.Imports() {
				visit(i)
			}
		}
	}
	for _, p := range pkgs {
		visit(p.Types)
	}
	for k := range b.used {
		if t := byPath[k.pkg]; t != nil {
			if tn, ok := t.Scope().Lookup(k.name).(*types.TypeName); ok {
				addIface(tn)
			}
		}
	}
	// Candidates by method name, then the exact check.
	byName := map[string][]int{}
	for i, c := range concrete {
		ms := types.NewMethodSet(types.NewPointer(c.t))
		for j := range ms.Len() {
			byName[ms.At(j).Obj().Name()] = append(byName[ms.At(j).Obj().Name()], i)
		}
	}
	for _, it := range ifaces {
		iface := it.t.Underlying().(*types.Interface)
		cands := byName[iface.Method(0).Name()]
		for _, i := range cands {
			c := concrete[i]
			switch {
			case types.Implements(c.t, iface):
				b.impls = append(b.impls, implRec{c.key, it.key, false})
			case types.Implements(types.NewPointer(c.t), iface):
				b.impls = append(b.impls, implRec{c.key, it.key, true})
			}
		}
	}
}

// promoted records the methods of type n promoted through embedded fields
// (or, for an interface, embedded interfaces).
func (b *Builder) promoted(tn *types.TypeName, n *types.Named) {
	key, ok := b.symOf(tn)
	if !ok {
		return
	}
	var t types.Type = types.NewPointer(n)
	if types.IsInterface(n) {
		t = n
	}
	ms := types.NewMethodSet(t)
	for i := range ms.Len() {
		sel := ms.At(i)
		m, ok := b.symOf(sel.Obj())
		if !ok {
			continue
		}
		if types.IsInterface(n) {
			if m.pkg != key.pkg || m.name != tn.Name()+"."+sel.Obj().Name() {
				// Declared by an embedded interface.
				via := m.name[:len(m.name)-len(sel.Obj().Name())-1]
				b.promotion = append(b.promotion, promoRec{key, m, via})
			}
			continue
		}
		if len(sel.Index()) < 2 {
			continue
		}
		st, ok := n.Underlying().(*types.Struct)
		if !ok {
			continue
		}
		b.promotion = append(b.promotion, promoRec{key, m, st.Field(sel.Index()[0]).Name()})
	}
}

// Result numbers the files and symbols and returns the references. The
// Builder is spent.
func (b *Builder) Result() *codeindex.Refs {
	out := &codeindex.Refs{}
	fileNo := b.numberFiles()
	for _, si := range b.syms {
		if si.sym.File >= 0 {
			si.sym.File = fileNo[si.sym.File]
		}
	}
	out.Files = make([]string, len(b.paths))
	for id, n := range fileNo {
		out.Files[n] = b.paths[id]
	}
	keys := make([]symKey, 0, len(b.syms))
	for k := range b.syms {
		keys = append(keys, k)
	}
	id := func(k symKey) string { return k.pkg + "." + k.name }
	sort.Slice(keys, func(i, j int) bool { return id(keys[i]) < id(keys[j]) })
	out.Syms = make([]codeindex.Sym, 0, len(keys))
	byIdx := make([]int32, len(keys))
	for i, k := range keys {
		s := b.syms[k]
		s.n = int32(i)
		byIdx[s.idx] = s.n
		out.Syms = append(out.Syms, s.sym)
	}
	num := func(k symKey) int32 { return b.syms[k].n }
	sites := b.sites
	b.sites = nil
	for i := range sites {
		s := &sites[i]
		s.File, s.From, s.To = fileNo[s.File], byIdx[s.From], byIdx[s.To]
	}
	slices.SortFunc(sites, func(a, c codeindex.Site) int {
		return cmp.Or(cmp.Compare(a.File, c.File), cmp.Compare(a.Line, c.Line), cmp.Compare(a.From, c.From),
			cmp.Compare(a.To, c.To), cmp.Compare(a.Kind, c.Kind))
	})
	out.Sites = slices.Clone(slices.Compact(sites))
	for _, r := range b.impls {
		out.Impls = append(out.Impls, codeindex.Impl{Type: num(r.typ), Iface: num(r.iface), PtrOnly: r.ptrOnly})
	}
	sort.Slice(out.Impls, func(i, j int) bool {
		a, c := out.Impls[i], out.Impls[j]
		return a.Type < c.Type || a.Type == c.Type && a.Iface < c.Iface
	})
	for _, r := range b.promotion {
		out.Promoted = append(out.Promoted, codeindex.Promoted{Type: num(r.typ), Method: num(r.method), Via: r.via})
	}
	sort.Slice(out.Promoted, func(i, j int) bool {
		a, c := out.Promoted[i], out.Promoted[j]
		switch {
		case a.Type != c.Type:
			return a.Type < c.Type
		case a.Via != c.Via:
			return a.Via < c.Via
		}
		return a.Method < c.Method
	})
	return out
}
