package index

import (
	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"path"
	"strings"
)

// Attributor joins the function table with the snapshot entries: every
// linked function, closure, wrapper and inlined body is attributed to the
// declaration that contains it, and the snapshot's declarations are
// checked against the table's files and lines.
type Attributor struct {
	// shown memoizes display by file and package, snapOf snapFileOf by
	// file (in Run, once DirPkg is known).
	shown  map[[2]string]string
	snapOf map[string]int32
	// mods and mainMod are the modules of the build and the path of its
	// main module.
	Mods    []snapshot.Module
	MainMod string
	// include selects the packages whose runtime entries are added (nil
	// selects all); std reports that the selection covers the standard
	// library.
	Include func(pkg, mod string, main bool) bool
	Std     bool
	In      snapshot.Interner
	Snap    *snapshot.Snapshot
	Decls   SnapDecls
	Entries []Entry
	byID    map[string]int32
	MainPkg string

	// funcs and types hold the ids known to be declared functions or
	// methods, and types.
	funcs, types map[string]bool
	// RtFiles are the display paths Entry.RtFile numbers ("" first);
	// rtFiles numbers them.
	RtFiles []string
	rtFiles map[string]uint32
	// learned is the number of entries when Run began: isFunc and isType
	// read the kinds of those from byID rather than copying their ids
	// into funcs and types.
	learned int32
	// dirPkg maps a source directory to the package most of its
	// functions belong to.
	DirPkg map[string]string
	// realByName maps a function symbol (without type arguments) to its
	// index in the table.
	realByName map[string]int32

	rt *RuntimeTable
	// callees are the declarations of rt.inlined; syms and symOK the
	// parsed names of rt.Funcs, which Prepare(prepared) read.
	callees  []calleeInfo
	syms     []gofunc.Symbol
	symOK    []bool
	prepared *RuntimeTable
	// results
	Aliases    map[string]string
	InlInto    map[string]string
	Evidence   map[string]*LineEvidence
	Unresolved int
	RtPkgs     map[string]bool
}

func (a *Attributor) pkgOf(p string) string {
	if p == "main" && a.MainPkg != "" {
		return a.MainPkg
	}
	return p
}

// selected reports whether runtime entries of pkg may be added.
func (a *Attributor) selected(pkg string) bool {
	if a.Include == nil {
		return true
	}
	mod, main := "", false
	if m, ok := snapshot.ModuleFor(a.Mods, pkg); ok && !snapshot.IsStdPkg(pkg) {
		mod, main = m.Path, m.Path == a.MainMod
	}
	return a.Include(pkg, mod, main)
}

// moduleKey names the module whose snapshot evidence covers pkg: the
// module path, or "std" for the standard library.
func (a *Attributor) moduleKey(pkg string) string {
	if a.Snap != nil {
		if mi, ok := a.Snap.ModOf[pkg]; ok {
			return a.Snap.Manifest.Modules[mi].Path
		}
	}
	if snapshot.IsStdPkg(pkg) {
		return "std"
	}
	if m, ok := snapshot.ModuleFor(a.Mods, pkg); ok {
		return m.Path
	}
	return pkg
}

func fileDir(file string) string {
	return path.Dir(strings.ReplaceAll(file, `\`, "/"))
}

func isGoFile(file string) bool { return strings.HasSuffix(file, ".go") }

// Run attributes the table rt.
func (a *Attributor) Run(rt *RuntimeTable) {
	if a.prepared != rt {
		a.Prepare(rt)
	}
	a.prepared = nil
	a.snapOf = nil
	syms, ok, callees := a.syms, a.symOK, a.callees
	a.syms, a.symOK = nil, nil
	a.Aliases, a.InlInto = map[string]string{}, map[string]string{}
	a.Evidence, a.RtPkgs = map[string]*LineEvidence{}, map[string]bool{}
	a.byID = make(map[string]int32, len(a.Entries)+len(rt.Funcs))
	for i := range a.Entries {
		if _, dup := a.byID[a.Entries[i].ID]; !dup {
			a.byID[a.Entries[i].ID] = int32(i)
		}
	}
	a.learned = int32(len(a.Entries))
	for i := range callees {
		if callees[i].id == "" {
			callees[i] = a.inlinedClosure(&rt.Inlined[i])
		}
	}
	// Resolve first, then size the entry table once for the new entries.
	refs := make([]declRef, len(rt.Funcs))
	fresh := map[string]bool{}
	count := func(r *declRef) {
		r.full = r.id()
		if id := r.full; !a.isEntry(id) && !fresh[id] && (r.pkg == "" || a.selected(r.pkg)) {
			fresh[id] = true
		}
	}
	for i := range rt.Funcs {
		f := &rt.Funcs[i]
		switch {
		case f.File == "" || !ok[i]:
			if a.isForeign(f) {
				refs[i] = declRef{name: f.Name}
			}
		default:
			refs[i] = a.funcRef(f, &syms[i])
		}
		if refs[i].name != "" {
			count(&refs[i])
		}
	}
	for i := range rt.Inlined {
		if callees[i].id != "" && a.isInlined(&rt.Inlined[i]) {
			count(&declRef{callees[i].pkg, callees[i].name, callees[i].id})
		}
	}
	if n := len(a.Entries) + len(fresh); cap(a.Entries) < n {
		a.Entries = append(make([]Entry, 0, n), a.Entries...)
	}
	fresh = nil
	for i := range rt.Funcs {
		switch {
		case refs[i].name == "":
		case refs[i].pkg == "":
			a.foreign(&rt.Funcs[i])
		default:
			a.function(&rt.Funcs[i], &syms[i], refs[i])
		}
	}
	for i := range rt.Inlined {
		if callees[i].id != "" && a.isInlined(&rt.Inlined[i]) {
			a.inlined(&rt.Inlined[i], &callees[i])
		}
	}
}

// Prepare reads what the attribution of rt needs of rt alone: the
// symbols of its functions and inlined bodies, which of their ids are
// functions and types, and the package of each source directory. It reads
// none of the snapshot fields (Snap, Decls, Entries, In) but MainPkg, so
// that it can run while the snapshot is read; Run prepares rt itself
// unless Prepare(rt) was the last call.
func (a *Attributor) Prepare(rt *RuntimeTable) {
	a.prepared = nil
	a.rt = rt
	syms := make([]gofunc.Symbol, len(rt.Funcs))
	ok := make([]bool, len(rt.Funcs))
	for i := range rt.Funcs {
		syms[i], ok[i] = gofunc.ParseSymbol(rt.Funcs[i].Name)
		if ok[i] {
			syms[i].Pkg = a.pkgOf(syms[i].Pkg)
		}
	}
	callees := make([]calleeInfo, len(rt.Inlined))
	for i := range rt.Inlined {
		callees[i] = a.callee(rt.Inlined[i].Name)
	}
	a.learn(syms, ok, callees)
	a.syms, a.symOK, a.callees = syms, ok, callees
	a.prepared = rt
}

// calleeInfo is an inlined function's declaration.
type calleeInfo struct {
	id, pkg, name string
	// own reports the declaration itself, not a closure of it.
	own bool
}

// callee returns the declaration of an inlined function, or nothing if
// the name is not a declaration's own (see inlinedClosure).
func (a *Attributor) callee(name string) calleeInfo {
	sym, ok := gofunc.ParseSymbol(name)
	if !ok || !sym.Own {
		return calleeInfo{}
	}
	pkg := a.pkgOf(sym.Pkg)
	r := sym.Readings()[0]
	return calleeInfo{id: DeclID(pkg, r.Outer), pkg: pkg, name: r.Outer, own: true}
}

// inlinedClosure returns the declaration of an inlined closure, such as
// T.M.func1, whose name is read with what is known of the package's
// types and functions; nothing if that does not decide. The closure of a
// function that was itself inlined (F.G.func1, G inlined into F) belongs
// to G, a known function of the package of the closure's file.
func (a *Attributor) inlinedClosure(f *inlinedFunc) calleeInfo {
	sym, ok := gofunc.ParseSymbol(f.Name)
	if !ok || sym.Own || sym.Glob || len(sym.Readings()) == 0 {
		return calleeInfo{}
	}
	pkg := a.pkgOf(sym.Pkg)
	r := sym.Readings()[0]
	if len(sym.Readings()) > 1 {
		t, _, _ := strings.Cut(r.Outer, ".")
		switch {
		case a.isType(DeclID(pkg, t)):
		case a.isFunc(DeclID(pkg, sym.Readings()[1].Outer)):
			r = sym.Readings()[1]
		default:
			return calleeInfo{}
		}
	}
	if len(r.Inner) == 0 {
		return calleeInfo{id: DeclID(pkg, r.Outer), pkg: pkg, name: r.Outer}
	}
	if fp, ok := a.DirPkg[fileDir(f.file)]; ok {
		for _, want := range r.Inner {
			if id := DeclID(fp, want); a.isFunc(id) {
				return calleeInfo{id: id, pkg: fp, name: want}
			}
		}
	}
	return calleeInfo{}
}

// learn collects which ids are functions and which types, and which
// package each source directory holds.
func (a *Attributor) learn(syms []gofunc.Symbol, ok []bool, callees []calleeInfo) {
	// Sized once: growing maps of this many keys rehashes them often.
	a.funcs, a.types = make(map[string]bool, len(syms)), map[string]bool{}
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
		a.types[DeclID(pkg, t)] = true
	}
	for i := range syms {
		a.realByName[gofunc.StripTypeArgs(a.rt.Funcs[i].Name)] = int32(i)
		if !ok[i] || !syms[i].Own {
			continue
		}
		r := syms[i].Readings()[0]
		if r.Method {
			noteType(syms[i].Pkg, r.Outer)
		}
		a.funcs[DeclID(syms[i].Pkg, r.Outer)] = true
		vote(a.rt.Funcs[i].File, syms[i].Pkg)
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
		vote(a.rt.Inlined[i].file, c.pkg)
	}
	a.DirPkg = make(map[string]string, len(votes))
	for d, m := range votes {
		best, n := "", 0
		for p, k := range m {
			if k > n || k == n && p < best {
				best, n = p, k
			}
		}
		a.DirPkg[d] = best
	}
}

// entryFor returns the entry of declaration r, adding a runtime entry if
// the package is selected; -1 if it may not be added.
func (a *Attributor) entryFor(r declRef) int32 {
	id := r.id()
	if i, ok := a.byID[id]; ok {
		return i
	}
	pkg := r.pkg
	if !a.selected(pkg) {
		return -1
	}
	k := KindFunc
	if strings.Contains(r.name, ".") && !strings.HasPrefix(r.name, "init.") {
		k = KindMethod
	}
	i := int32(len(a.Entries))
	a.Entries = append(a.Entries, Entry{ID: id, Pkg: a.In.Get(pkg), Kind: k, Snap: -1, Reg: -1})
	a.byID[id] = i
	a.RtPkgs[a.Entries[i].Pkg] = true
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
func (a *Attributor) foreign(f *RuntimeFunc) {
	if _, dup := a.byID[f.Name]; dup {
		return
	}
	e := Entry{ID: f.Name, Kind: KindFunc, Snap: -1, Reg: -1, Sources: SrcRuntime, Linkage: RtForeign}
	if f.File != "" {
		e.RtFile, e.RtLine = a.rtFile(a.display(f.File, "")), int32(f.Line)
		e.Line = e.RtLine // its file is RtFile's (Base.FileOf)
	}
	a.byID[f.Name] = int32(len(a.Entries))
	a.Entries = append(a.Entries, e)
}

// isForeign reports whether f, a function of no Go package, makes an
// entry.
func (a *Attributor) isForeign(f *RuntimeFunc) bool {
	switch {
	case f.Name == "" || strings.ContainsAny(f.Name, " \t\n") || strings.HasPrefix(f.Name, "type:") || strings.HasPrefix(f.Name, "go:") ||
		f.File == "<autogenerated>" || path.Base(f.File) == "_testmain.go":
		return false
	case !a.Std:
		return false // toolchain code, selected with the standard library
	}
	return true
}

// funcRef returns the declaration a linked function is attributed to;
// its name is "" if there is none.
func (a *Attributor) funcRef(f *RuntimeFunc, sym *gofunc.Symbol) declRef {
	if sym.Own && (f.File == "<autogenerated>" || declName(sym.Raw) == "init") || path.Base(f.File) == "_testmain.go" {
		// Compiler-generated wrappers of declarations listed on their own,
		// package initializers, which have no declaration, and the main
		// function of a test binary.
		return declRef{}
	}
	ref := a.resolve(f, sym)
	if ref.name == "" || f.File == "<autogenerated>" && !a.isFunc(ref.id()) {
		// Unknown, or a wrapper of something that is no declaration
		// (such as an interface method value).
		a.Unresolved++
		return declRef{}
	}
	return ref
}

// function attributes one linked function to its declaration ref.
func (a *Attributor) function(f *RuntimeFunc, sym *gofunc.Symbol, ref declRef) {
	i := a.entryFor(ref)
	if i < 0 {
		return
	}
	id := a.Entries[i].ID
	e := &a.Entries[i]
	if f.File != "<autogenerated>" {
		a.check(e, f.File, int32(f.Line), f.MinLine, f.MaxLine, sym.Own)
	}
	if sym.Own {
		if !e.Linkage.Exact() || int32(f.Line) < e.RtLine {
			e.RtLine, e.RtFile = int32(f.Line), a.rtFile(a.display(f.File, e.Pkg))
		}
		e.Linkage |= RtOwn
	} else {
		if gofunc.StripTypeArgs(sym.Raw) != id {
			a.alias(sym.Raw, id)
			if p := gofunc.PrintedName(sym.Raw); p != sym.Raw {
				a.alias(p, id)
			}
		}
		if !e.Linkage.Exact() && f.File != "<autogenerated>" && (e.RtLine == 0 || int32(f.Line) < e.RtLine) {
			e.RtLine, e.RtFile = int32(f.Line), a.rtFile(a.display(f.File, e.Pkg))
		}
		e.Linkage |= RtClosure
	}
	a.linked(e)
}

// alias records that symbol name (as linked, or as the runtime prints it)
// is code of declaration id. The runtime's printing of generic symbols
// can make two names one (F[...].func1 for both F[T].func1 and
// F[T].G[U].func1); such a name is kept with no declaration, so that it is
// parsed rather than looked up.
func (a *Attributor) alias(name, id string) {
	if prev, ok := a.Aliases[name]; ok && prev != id {
		id = ""
	}
	a.Aliases[name] = id
}

// isInlined reports whether an inlined function makes evidence: not the
// main function of a test binary, nor compiler-generated wrappers, which
// are no declarations.
func (a *Attributor) isInlined(f *inlinedFunc) bool {
	return path.Base(f.file) != "_testmain.go" && f.file != "<autogenerated>" && f.file != ""
}

// inlined attributes a function whose body was inlined.
func (a *Attributor) inlined(f *inlinedFunc, c *calleeInfo) {
	i := a.entryFor(declRef{c.pkg, c.name, c.id})
	if i < 0 {
		return
	}
	e := &a.Entries[i]
	a.check(e, f.file, f.Line, f.minLine, f.maxLine, f.Line > 0 && c.own)
	switch {
	case !e.Linkage.Exact() && f.Line > 0 && c.own:
		// The inline tree gives the declaration line.
		e.RtLine, e.RtFile = f.Line, a.rtFile(a.display(f.file, e.Pkg))
		e.Linkage |= RtDeclLine
	case e.RtLine == 0 && f.minLine > 0:
		e.RtLine, e.RtFile = f.minLine, a.rtFile(a.display(f.file, e.Pkg))
	}
	e.Linkage |= RtInlined
	if _, seen := a.InlInto[c.id]; !seen {
		a.InlInto[c.id] = f.into
	}
	a.linked(e)
}

// linked marks e as linked and places runtime-only entries.
func (a *Attributor) linked(e *Entry) {
	e.Sources |= SrcRuntime
	if e.Sources&SrcSnapshot == 0 {
		e.Line = e.RtLine // its file is RtFile's (Base.FileOf)
	}
}

// isFunc reports whether id is a function or method the table owns or
// an entry (before learn) declares.
func (a *Attributor) isFunc(id string) bool {
	if a.funcs[id] {
		return true
	}
	i, ok := a.byID[id]
	return ok && i < a.learned && (a.Entries[i].Kind == KindFunc || a.Entries[i].Kind == KindMethod)
}

// isType reports whether id is a type a method of the table names or an
// entry (before learn) declares.
func (a *Attributor) isType(id string) bool {
	if a.types[id] {
		return true
	}
	i, ok := a.byID[id]
	return ok && i < a.learned && a.Entries[i].Kind == KindType
}

// rtFile returns the number of display path p in a.RtFiles, adding it.
func (a *Attributor) rtFile(p string) uint32 {
	if p == "" {
		return 0
	}
	if a.rtFiles == nil {
		a.RtFiles, a.rtFiles = []string{""}, map[string]uint32{}
	}
	n, ok := a.rtFiles[p]
	if !ok {
		n = uint32(len(a.RtFiles))
		a.rtFiles[p] = n
		a.RtFiles = append(a.RtFiles, p)
	}
	return n
}
