package codetools

import (
	"path"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
)

// attributor joins the function table with the snapshot entries: every
// linked function, closure, wrapper and inlined body is attributed to the
// declaration that contains it, and the snapshot's declarations are
// checked against the table's files and lines.
type attributor struct {
	// mods and mainMod are the modules of the build and the path of its
	// main module.
	mods    []snapshot.Module
	mainMod string
	// include selects the packages whose runtime entries are added (nil
	// selects all); std reports that the selection covers the standard
	// library.
	include func(pkg, mod string, main bool) bool
	std     bool
	in      snapshot.Interner
	snap    *snapshot.Snapshot
	decls   snapDecls
	entries []index.Entry
	byID    map[string]int32
	mainPkg string

	// funcs and types hold the ids known to be declared functions or
	// methods, and types.
	funcs, types map[string]bool
	// dirPkg maps a source directory to the package most of its
	// functions belong to.
	dirPkg map[string]string
	// realByName maps a function symbol (without type arguments) to its
	// index in the table.
	realByName map[string]int32

	rt *runtimeTable
	// callees are the declarations of rt.inlined.
	callees []calleeInfo
	// results
	aliases    map[string]string
	inlInto    map[string]string
	evidence   map[string]*lineEvidence
	unresolved int
	rtPkgs     map[string]bool
}

func (a *attributor) pkgOf(p string) string {
	if p == "main" && a.mainPkg != "" {
		return a.mainPkg
	}
	return p
}

// selected reports whether runtime entries of pkg may be added.
func (a *attributor) selected(pkg string) bool {
	if a.include == nil {
		return true
	}
	mod, main := "", false
	if m, ok := snapshot.ModuleFor(a.mods, pkg); ok && !snapshot.IsStdPkg(pkg) {
		mod, main = m.Path, m.Path == a.mainMod
	}
	return a.include(pkg, mod, main)
}

// moduleKey names the module whose snapshot evidence covers pkg: the
// module path, or "std" for the standard library.
func (a *attributor) moduleKey(pkg string) string {
	if a.snap != nil {
		if mi, ok := a.snap.ModOf[pkg]; ok {
			return a.snap.Manifest.Modules[mi].Path
		}
	}
	if snapshot.IsStdPkg(pkg) {
		return "std"
	}
	if m, ok := snapshot.ModuleFor(a.mods, pkg); ok {
		return m.Path
	}
	return pkg
}

func fileDir(file string) string {
	return path.Dir(strings.ReplaceAll(file, `\`, "/"))
}

func isGoFile(file string) bool { return strings.HasSuffix(file, ".go") }

// run attributes the table rt.
func (a *attributor) run(rt *runtimeTable) {
	a.rt = rt
	a.aliases, a.inlInto = map[string]string{}, map[string]string{}
	a.evidence, a.rtPkgs = map[string]*lineEvidence{}, map[string]bool{}
	a.byID = make(map[string]int32, len(a.entries)+len(rt.funcs))
	for i := range a.entries {
		if _, dup := a.byID[a.entries[i].ID]; !dup {
			a.byID[a.entries[i].ID] = int32(i)
		}
	}
	syms := make([]gofunc.Symbol, len(rt.funcs))
	ok := make([]bool, len(rt.funcs))
	for i := range rt.funcs {
		syms[i], ok[i] = gofunc.ParseSymbol(rt.funcs[i].name)
		if ok[i] {
			syms[i].Pkg = a.pkgOf(syms[i].Pkg)
		}
	}
	callees := make([]calleeInfo, len(rt.inlined))
	for i := range rt.inlined {
		callees[i] = a.callee(rt.inlined[i].name)
	}
	a.callees = callees
	a.learn(syms, ok, callees)
	for i := range callees {
		if callees[i].id == "" {
			callees[i] = a.inlinedClosure(&rt.inlined[i])
		}
	}
	// Resolve first, then size the entry table once for the new entries.
	refs := make([]declRef, len(rt.funcs))
	fresh := map[string]bool{}
	count := func(r *declRef) {
		r.full = r.id()
		if id := r.full; !a.isEntry(id) && !fresh[id] && (r.pkg == "" || a.selected(r.pkg)) {
			fresh[id] = true
		}
	}
	for i := range rt.funcs {
		f := &rt.funcs[i]
		switch {
		case f.file == "" || !ok[i]:
			if a.isForeign(f) {
				refs[i] = declRef{name: f.name}
			}
		default:
			refs[i] = a.funcRef(f, &syms[i])
		}
		if refs[i].name != "" {
			count(&refs[i])
		}
	}
	for i := range rt.inlined {
		if callees[i].id != "" && a.isInlined(&rt.inlined[i]) {
			count(&declRef{callees[i].pkg, callees[i].name, callees[i].id})
		}
	}
	if n := len(a.entries) + len(fresh); cap(a.entries) < n {
		a.entries = append(make([]index.Entry, 0, n), a.entries...)
	}
	fresh = nil
	for i := range rt.funcs {
		switch {
		case refs[i].name == "":
		case refs[i].pkg == "":
			a.foreign(&rt.funcs[i])
		default:
			a.function(&rt.funcs[i], &syms[i], refs[i])
		}
	}
	for i := range rt.inlined {
		if callees[i].id != "" && a.isInlined(&rt.inlined[i]) {
			a.inlined(&rt.inlined[i], &callees[i])
		}
	}
}

// calleeInfo is an inlined function's declaration.
type calleeInfo struct {
	id, pkg, name string
	// own reports the declaration itself, not a closure of it.
	own bool
}

// callee returns the declaration of an inlined function, or nothing if
// the name is not a declaration's own (see inlinedClosure).
func (a *attributor) callee(name string) calleeInfo {
	sym, ok := gofunc.ParseSymbol(name)
	if !ok || !sym.Own {
		return calleeInfo{}
	}
	pkg := a.pkgOf(sym.Pkg)
	r := sym.Readings()[0]
	return calleeInfo{id: index.DeclID(pkg, r.Outer), pkg: pkg, name: r.Outer, own: true}
}

// inlinedClosure returns the declaration of an inlined closure, such as
// T.M.func1, whose name is read with what is known of the package's
// types and functions; nothing if that does not decide. The closure of a
// function that was itself inlined (F.G.func1, G inlined into F) belongs
// to G, a known function of the package of the closure's file.
func (a *attributor) inlinedClosure(f *inlinedFunc) calleeInfo {
	sym, ok := gofunc.ParseSymbol(f.name)
	if !ok || sym.Own || sym.Glob || len(sym.Readings()) == 0 {
		return calleeInfo{}
	}
	pkg := a.pkgOf(sym.Pkg)
	r := sym.Readings()[0]
	if len(sym.Readings()) > 1 {
		t, _, _ := strings.Cut(r.Outer, ".")
		switch {
		case a.types[index.DeclID(pkg, t)]:
		case a.funcs[index.DeclID(pkg, sym.Readings()[1].Outer)]:
			r = sym.Readings()[1]
		default:
			return calleeInfo{}
		}
	}
	if len(r.Inner) == 0 {
		return calleeInfo{id: index.DeclID(pkg, r.Outer), pkg: pkg, name: r.Outer}
	}
	if fp, ok := a.dirPkg[fileDir(f.file)]; ok {
		for _, want := range r.Inner {
			if id := index.DeclID(fp, want); a.funcs[id] {
				return calleeInfo{id: id, pkg: fp, name: want}
			}
		}
	}
	return calleeInfo{}
}

// learn collects which ids are functions and which types, and which
// package each source directory holds.
func (a *attributor) learn(syms []gofunc.Symbol, ok []bool, callees []calleeInfo) {
	a.funcs, a.types = map[string]bool{}, map[string]bool{}
	a.realByName = make(map[string]int32, len(syms))
	votes := map[string]map[string]int{}
	vote := func(file, pkg string) {
		if !isGoFile(file) {
			return
		}
		d := fileDir(file)
		m := votes[d]
		if m == nil {
			m = map[string]int{}
			votes[d] = m
		}
		m[pkg]++
	}
	noteType := func(pkg, method string) {
		t, _, _ := strings.Cut(method, ".")
		t = strings.TrimSuffix(strings.TrimPrefix(t, "(*"), ")")
		a.types[index.DeclID(pkg, t)] = true
	}
	for i := range syms {
		a.realByName[gofunc.StripTypeArgs(a.rt.funcs[i].name)] = int32(i)
		if !ok[i] || !syms[i].Own {
			continue
		}
		r := syms[i].Readings()[0]
		if r.Method {
			noteType(syms[i].Pkg, r.Outer)
		}
		a.funcs[index.DeclID(syms[i].Pkg, r.Outer)] = true
		vote(a.rt.funcs[i].file, syms[i].Pkg)
	}
	for i, c := range callees {
		if c.id == "" {
			continue
		}
		if strings.Contains(c.name, ".") && !strings.HasPrefix(c.name, "init.") {
			noteType(c.pkg, c.name)
		}
		if c.own {
			a.funcs[c.id] = true
		}
		vote(a.rt.inlined[i].file, c.pkg)
	}
	for i := range a.entries {
		e := &a.entries[i]
		switch e.Kind {
		case index.KindType:
			a.types[e.ID] = true
		case index.KindFunc, index.KindMethod:
			a.funcs[e.ID] = true
		}
	}
	a.dirPkg = make(map[string]string, len(votes))
	for d, m := range votes {
		best, n := "", 0
		for p, k := range m {
			if k > n || k == n && p < best {
				best, n = p, k
			}
		}
		a.dirPkg[d] = best
	}
}

// entryFor returns the entry of declaration r, adding a runtime entry if
// the package is selected; -1 if it may not be added.
func (a *attributor) entryFor(r declRef) int32 {
	id := r.id()
	if i, ok := a.byID[id]; ok {
		return i
	}
	pkg := r.pkg
	if !a.selected(pkg) {
		return -1
	}
	k := index.KindFunc
	if strings.Contains(r.name, ".") && !strings.HasPrefix(r.name, "init.") {
		k = index.KindMethod
	}
	i := int32(len(a.entries))
	a.entries = append(a.entries, index.Entry{ID: id, Pkg: a.in.Get(pkg), Kind: k, Snap: -1, Reg: -1})
	a.byID[id] = i
	a.rtPkgs[a.entries[i].Pkg] = true
	return i
}

// declName returns the declaration part of an id made by declID: "F",
// "T.M", "(*T).M" or "init.N".
func declName(id string) string {
	slash := strings.LastIndexByte(id, '/')
	dot := strings.IndexByte(id[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	return id[slash+1+dot+1:]
}

// foreign adds a function that belongs to no Go package (C code of cgo
// or of the race detector's runtime, file-local assembly functions),
// which profiles and traces show, under its symbol name, with the file
// the table gives it, if any.
func (a *attributor) foreign(f *runtimeFunc) {
	if _, dup := a.byID[f.name]; dup {
		return
	}
	e := index.Entry{ID: f.name, Kind: index.KindFunc, Snap: -1, Reg: -1, Sources: index.SrcRuntime, Linkage: index.RtForeign}
	if f.file != "" {
		e.RtFile, e.RtLine = a.display(f.file, ""), int32(f.line)
		e.File, e.Line = e.RtFile, e.RtLine
	}
	a.byID[f.name] = int32(len(a.entries))
	a.entries = append(a.entries, e)
}

// isForeign reports whether f, a function of no Go package, makes an
// entry.
func (a *attributor) isForeign(f *runtimeFunc) bool {
	switch {
	case f.name == "" || strings.ContainsAny(f.name, " \t\n") || strings.HasPrefix(f.name, "type:") || strings.HasPrefix(f.name, "go:") ||
		f.file == "<autogenerated>" || path.Base(f.file) == "_testmain.go":
		return false
	case !a.std:
		return false // toolchain code, selected with the standard library
	}
	return true
}

// funcRef returns the declaration a linked function is attributed to;
// its name is "" if there is none.
func (a *attributor) funcRef(f *runtimeFunc, sym *gofunc.Symbol) declRef {
	if sym.Own && (f.file == "<autogenerated>" || declName(sym.Raw) == "init") || path.Base(f.file) == "_testmain.go" {
		// Compiler-generated wrappers of declarations listed on their own,
		// package initializers, which have no declaration, and the main
		// function of a test binary.
		return declRef{}
	}
	ref := a.resolve(f, sym)
	if ref.name == "" || f.file == "<autogenerated>" && !a.funcs[ref.id()] {
		// Unknown, or a wrapper of something that is no declaration
		// (such as an interface method value).
		a.unresolved++
		return declRef{}
	}
	return ref
}

// function attributes one linked function to its declaration ref.
func (a *attributor) function(f *runtimeFunc, sym *gofunc.Symbol, ref declRef) {
	i := a.entryFor(ref)
	if i < 0 {
		return
	}
	id := a.entries[i].ID
	e := &a.entries[i]
	if f.file != "<autogenerated>" {
		a.check(e, f.file, int32(f.line), f.minLine, f.maxLine, sym.Own)
	}
	if sym.Own {
		if !e.Linkage.Exact() || int32(f.line) < e.RtLine {
			e.RtLine, e.RtFile = int32(f.line), a.display(f.file, e.Pkg)
		}
		e.Linkage |= index.RtOwn
	} else {
		if gofunc.StripTypeArgs(sym.Raw) != id {
			a.alias(sym.Raw, id)
			if p := gofunc.PrintedName(sym.Raw); p != sym.Raw {
				a.alias(p, id)
			}
		}
		if !e.Linkage.Exact() && f.file != "<autogenerated>" && (e.RtLine == 0 || int32(f.line) < e.RtLine) {
			e.RtLine, e.RtFile = int32(f.line), a.display(f.file, e.Pkg)
		}
		e.Linkage |= index.RtClosure
	}
	a.linked(e)
}

// alias records that symbol name (as linked, or as the runtime prints it)
// is code of declaration id. The runtime's printing of generic symbols
// can make two names one (F[...].func1 for both F[T].func1 and
// F[T].G[U].func1); such a name is kept with no declaration, so that it is
// parsed rather than looked up.
func (a *attributor) alias(name, id string) {
	if prev, ok := a.aliases[name]; ok && prev != id {
		id = ""
	}
	a.aliases[name] = id
}

// isInlined reports whether an inlined function makes evidence: not the
// main function of a test binary, nor compiler-generated wrappers, which
// are no declarations.
func (a *attributor) isInlined(f *inlinedFunc) bool {
	return path.Base(f.file) != "_testmain.go" && f.file != "<autogenerated>" && f.file != ""
}

// inlined attributes a function whose body was inlined.
func (a *attributor) inlined(f *inlinedFunc, c *calleeInfo) {
	i := a.entryFor(declRef{c.pkg, c.name, c.id})
	if i < 0 {
		return
	}
	e := &a.entries[i]
	a.check(e, f.file, f.line, f.minLine, f.maxLine, f.line > 0 && c.own)
	switch {
	case !e.Linkage.Exact() && f.line > 0 && c.own:
		// The inline tree gives the declaration line.
		e.RtLine, e.RtFile = f.line, a.display(f.file, e.Pkg)
		e.Linkage |= index.RtDeclLine
	case e.RtLine == 0 && f.minLine > 0:
		e.RtLine, e.RtFile = f.minLine, a.display(f.file, e.Pkg)
	}
	e.Linkage |= index.RtInlined
	if _, seen := a.inlInto[c.id]; !seen {
		a.inlInto[c.id] = f.into
	}
	a.linked(e)
}

// linked marks e as linked and places runtime-only entries.
func (a *attributor) linked(e *index.Entry) {
	e.Sources |= index.SrcRuntime
	if e.Sources&index.SrcSnapshot == 0 {
		e.File, e.Line = e.RtFile, e.RtLine
	}
}
