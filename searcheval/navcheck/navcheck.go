// Package navcheck checks the answers of code_references against go/types.
// It loads the snapshot's packages with golang.org/x/tools/go/packages,
// computes each relation on its own, in the plainest way go/types allows,
// and compares it, symbol by symbol, with what a codetools.Catalog
// answers. The evaluations of this repository and of the search
// evaluation's real service run it.
package navcheck

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/embedmcp/mcp/codetools"
)

// Result is the comparison of one relation.
type Result struct {
	Relation string
	// Symbols counts the symbols checked; Expected the items go/types
	// gives them, Found those code_references gives.
	Symbols, Expected, Found int
	// Missing counts expected items code_references lacks; Extra items it
	// gives that go/types does not (not counted for subset checks).
	Missing, Extra int
	// Subset reports a relation checked only for missing items.
	Subset bool
	// Examples are the first differences.
	Examples []string
}

// OK reports whether the relation matched.
func (r *Result) OK() bool { return r.Missing == 0 && (r.Subset || r.Extra == 0) }

// Check loads the packages of patterns in dir and compares callers,
// dynamic callers, callees, implementations, methods and references of
// every declaration they hold with c's answers.
func Check(ctx context.Context, dir string, patterns []string, c *codetools.Catalog) ([]Result, error) {
	cfg := &packages.Config{Context: ctx, Dir: dir, Fset: token.NewFileSet(),
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes |
			packages.NeedSyntax | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	m := &model{fset: cfg.Fset, local: map[*types.Package]bool{}, callers: sets{}, callees: sets{}, dynamic: sets{},
		refs: sets{}}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("%s: %v", p.PkgPath, p.Errors[0])
		}
		m.local[p.Types] = true
	}
	// Fields of the packages' struct types, named by their type.
	m.fields = map[*types.Var]string{}
	for _, p := range pkgs {
		for _, name := range p.Types.Scope().Names() {
			if tn, ok := p.Types.Scope().Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
				if st, ok := tn.Type().Underlying().(*types.Struct); ok {
					for i := range st.NumFields() {
						m.fields[st.Field(i)] = p.PkgPath + "." + name + "." + st.Field(i).Name()
					}
				}
			}
		}
	}
	for _, p := range pkgs {
		m.walk(p)
	}
	m.typeRelations(pkgs)
	ask := func(name, rel string, keep func(codetools.Reference) bool, key func(codetools.Reference) string) ([]string, error) {
		var out []string
		q := codetools.ReferencesQuery{Name: name, Relation: rel, Limit: codetools.MaxLimit}
		for {
			res, err := c.References(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", rel, name, err)
			}
			for _, it := range res.Items {
				if keep(it) {
					out = append(out, key(it))
				}
			}
			if !res.More {
				return out, nil
			}
			q = *res.NextArguments
		}
	}
	site := func(it codetools.Reference) string { return it.ID + "@" + strconv.Itoa(it.Line) }
	id := func(it codetools.Reference) string { return it.ID }
	method := func(it codetools.Reference) string { return it.ID[strings.LastIndexByte(it.ID, '.')+1:] }
	how := func(hows ...string) func(codetools.Reference) bool {
		return func(it codetools.Reference) bool { return slices.Contains(hows, it.How) }
	}
	all := func(codetools.Reference) bool { return true }
	var results []Result
	for _, rel := range []struct {
		name, relation string
		want           sets
		keep           func(codetools.Reference) bool
		key            func(codetools.Reference) string
		subset         bool
	}{
		{"callers", codetools.RelationCallers, m.callers, how("call"), site, false},
		{"callers (dynamic)", codetools.RelationCallers, m.dynamic, how("dynamic"), site, true},
		{"callees", codetools.RelationCallees, m.callees, how("call", "dynamic"), site, false},
		{"references", codetools.RelationReferences, m.refs, all, site, false},
		{"implementations", codetools.RelationImplementations, m.impls, all, id, false},
		{"methods", codetools.RelationMethods, m.methods, all, method, false},
	} {
		r := Result{Relation: rel.name, Subset: rel.subset}
		for _, sym := range rel.want.keys() {
			want := rel.want[sym]
			got, err := ask(sym, rel.relation, rel.keep, rel.key)
			if err != nil {
				return nil, err
			}
			r.Symbols++
			r.Expected += len(want)
			gotSet := map[string]bool{}
			for _, g := range got {
				gotSet[g] = true
			}
			r.Found += len(gotSet)
			for w := range want {
				if !gotSet[w] {
					r.Missing++
					r.example(fmt.Sprintf("%s of %s: missing %s", rel.name, sym, w))
				}
			}
			if !rel.subset {
				for g := range gotSet {
					if !want[g] {
						r.Extra++
						r.example(fmt.Sprintf("%s of %s: extra %s", rel.name, sym, g))
					}
				}
			}
		}
		results = append(results, r)
	}
	return results, nil
}

func (r *Result) example(s string) {
	if len(r.Examples) < 10 {
		r.Examples = append(r.Examples, s)
	}
}

// Table formats results as a Markdown table.
func Table(rs []Result) string {
	var b strings.Builder
	b.WriteString("| relation | symbols | go/types items | code_references items | missing | extra |\n| --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rs {
		extra := strconv.Itoa(r.Extra)
		if r.Subset {
			extra = "(not compared)"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", r.Relation, r.Symbols, r.Expected, r.Found, r.Missing, extra)
	}
	return b.String()
}

// Failures lists the differences of the results that did not match.
func Failures(rs []Result) []string {
	var out []string
	for _, r := range rs {
		if !r.OK() {
			out = append(out, fmt.Sprintf("%s: %d missing, %d extra", r.Relation, r.Missing, r.Extra))
			out = append(out, r.Examples...)
		}
	}
	return out
}

// sets maps a symbol id to the set of its expected items.
type sets map[string]map[string]bool

func (s sets) add(sym, item string) {
	if s[sym] == nil {
		s[sym] = map[string]bool{}
	}
	s[sym][item] = true
}

func (s sets) keys() []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// model is what go/types says of the loaded packages.
type model struct {
	fset  *token.FileSet
	local map[*types.Package]bool
	// callers: callee → caller@line (static calls); callees: declaration →
	// callee@line (static and interface calls); dynamic: concrete method →
	// caller@line through an interface of the packages it implements;
	// refs: declaration (function, method, interface method, type,
	// variable, constant or field) → declaration@line of each use.
	callers, callees, dynamic, refs sets
	// abstractCalls: interface method → caller@line.
	abstractCalls sets
	impls         sets // interface → types
	methods       sets // type → method names of its pointer's method set
	// fields names the fields of the packages' struct types.
	fields map[*types.Var]string
}

// objectID returns the id code_references gives a declaration.
func (m *model) objectID(obj types.Object) (string, bool) {
	if obj == nil || obj.Pkg() == nil {
		return "", false
	}
	pkg := obj.Pkg().Path()
	top := obj.Parent() == obj.Pkg().Scope()
	switch o := obj.(type) {
	case *types.Func:
		o = o.Origin()
		recv := o.Type().(*types.Signature).Recv()
		if recv == nil {
			return pkg + "." + o.Name(), top
		}
		t, ptr := recv.Type(), false
		if p, ok := t.(*types.Pointer); ok {
			t, ptr = p.Elem(), true
		}
		n, ok := types.Unalias(t).(*types.Named)
		if !ok {
			return "", false
		}
		name := n.Origin().Obj().Name()
		if ptr {
			name = "(*" + name + ")"
		}
		return n.Origin().Obj().Pkg().Path() + "." + name + "." + o.Name(), true
	case *types.Var:
		if o.IsField() {
			return "", false // fields are named by walkFields
		}
		return pkg + "." + o.Name(), top && o.Name() != "_"
	case *types.Const, *types.TypeName:
		return pkg + "." + o.Name(), top && o.Name() != "_"
	}
	return "", false
}

// isAbstract reports an interface method.
func isAbstract(f *types.Func) bool {
	recv := f.Type().(*types.Signature).Recv()
	return recv != nil && types.IsInterface(recv.Type())
}

// walk records the calls and uses of one package.
func (m *model) walk(p *packages.Package) {
	fields := m.fields
	inits := 0
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				id, ok := m.objectID(p.TypesInfo.Defs[d.Name])
				ok = ok && d.Name.Name != "_"
				if d.Name.Name == "init" && d.Recv == nil {
					id, ok = p.PkgPath+".init."+strconv.Itoa(inits), true
					inits++
				}
				if ok {
					m.body(p, d, id, fields)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch sp := spec.(type) {
					case *ast.TypeSpec:
						if id, ok := m.objectID(p.TypesInfo.Defs[sp.Name]); ok {
							m.body(p, sp, id, fields)
						}
					case *ast.ValueSpec:
						ids := make([]string, len(sp.Names))
						first := ""
						for i, n := range sp.Names {
							// Blank names declare nothing an id names: their
							// values are nobody's uses.
							if id, ok := m.objectID(p.TypesInfo.Defs[n]); ok {
								ids[i] = id
							}
							if first == "" {
								first = ids[i]
							}
						}
						if first == "" {
							continue
						}
						for i, v := range sp.Values {
							owner := first
							if len(sp.Values) == len(sp.Names) && ids[i] != "" {
								owner = ids[i]
							}
							m.body(p, v, owner, fields)
						}
						if sp.Type != nil {
							m.body(p, sp.Type, first, fields)
						}
					}
				}
			}
		}
	}
}

// body records the calls and uses within node n of declaration from.
func (m *model) body(p *packages.Package, n ast.Node, from string, fields map[*types.Var]string) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			fun := ast.Unparen(x.Fun)
			switch g := fun.(type) {
			case *ast.IndexExpr:
				fun = g.X
			case *ast.IndexListExpr:
				fun = g.X
			}
			var id *ast.Ident
			switch f := fun.(type) {
			case *ast.Ident:
				id = f
			case *ast.SelectorExpr:
				id = f.Sel
			}
			if id == nil {
				return true
			}
			fn, ok := p.TypesInfo.Uses[id].(*types.Func)
			if !ok {
				return true
			}
			callee, ok := m.objectID(fn)
			if !ok {
				return true
			}
			line := strconv.Itoa(m.fset.PositionFor(id.Pos(), false).Line)
			at := from + "@" + line
			m.callees.add(from, callee+"@"+line)
			if isAbstract(fn) {
				if m.abstractCalls == nil {
					m.abstractCalls = sets{}
				}
				m.abstractCalls.add(callee, at)
			} else if m.local[fn.Pkg()] {
				m.callers.add(callee, at)
			}
		case *ast.Ident:
			obj := p.TypesInfo.Uses[x]
			if obj == nil || !m.local[obj.Pkg()] {
				return true
			}
			at := from + "@" + strconv.Itoa(m.fset.PositionFor(x.Pos(), false).Line)
			if v, ok := obj.(*types.Var); ok && v.IsField() {
				if name, ok := fields[v.Origin()]; ok {
					m.refs.add(name, at)
				}
			} else if id, ok := m.objectID(obj); ok {
				m.refs.add(id, at)
			}
		}
		return true
	})
}

// typeRelations computes implementations, method sets and the dynamic
// callers of the concrete methods.
func (m *model) typeRelations(pkgs []*packages.Package) {
	m.impls, m.methods = sets{}, sets{}
	type named struct {
		id string
		n  *types.Named
	}
	var concrete, ifaces []named
	for _, p := range pkgs {
		for _, name := range p.Types.Scope().Names() {
			tn, ok := p.Types.Scope().Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			n, ok := tn.Type().(*types.Named)
			if !ok || n.TypeParams().Len() > 0 {
				continue
			}
			id := p.PkgPath + "." + name
			if it, ok := n.Underlying().(*types.Interface); ok {
				if it.NumMethods() > 0 {
					ifaces = append(ifaces, named{id, n})
				}
				continue
			}
			concrete = append(concrete, named{id, n})
			ms := types.NewMethodSet(types.NewPointer(n))
			for i := range ms.Len() {
				m.methods.add(id, ms.At(i).Obj().Name())
			}
		}
	}
	for _, it := range ifaces {
		iface := it.n.Underlying().(*types.Interface)
		for _, c := range concrete {
			if !types.Implements(c.n, iface) && !types.Implements(types.NewPointer(c.n), iface) {
				continue
			}
			m.impls.add(it.id, c.id)
			// Calls of the interface's methods may reach c's.
			for i := range iface.NumMethods() {
				am := iface.Method(i)
				aid, ok := m.objectID(am)
				if !ok || aid != it.id+"."+am.Name() {
					continue // declared by an embedded interface
				}
				obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(c.n), true, am.Pkg(), am.Name())
				fn, ok := obj.(*types.Func)
				if !ok || !m.local[fn.Pkg()] {
					continue
				}
				cid, ok := m.objectID(fn)
				pkg := c.n.Obj().Pkg().Path()
				if !ok || cid != c.id+"."+fn.Name() && cid != pkg+".(*"+c.n.Obj().Name()+")."+fn.Name() {
					continue // promoted from an embedded field
				}
				for at := range m.abstractCalls[aid] {
					m.dynamic.add(cid, at)
				}
			}
		}
	}
}
