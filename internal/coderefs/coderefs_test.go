package coderefs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/internal/codeindex"
)

// The fixture: two packages, each of one file, type-checked without the go
// command (no imports of the standard library).
const libSrc = `package lib

type Store interface {
	Get(key string) (string, bool)
	Put(key, value string)
}

type Reader interface {
	Get(key string) (string, bool)
}

type Named interface {
	Reader
	Name() string
}

type Map struct {
	m    map[string]string
	hits int
}

func (s *Map) Get(key string) (string, bool) { s.hits++; v, ok := s.m[key]; return v, ok }
func (s *Map) Put(key, value string)        { s.m[key] = value }
func (s Map) Name() string                  { return "map" }

type ReadOnly struct{ Map }

func Lookup(s Store, key string) string {
	v, _ := s.Get(key)
	return v
}

func Box[T any](v T) []T { return []T{v} }

type List[T any] struct{ items []T }

func (l *List[T]) Add(v T) { l.items = append(l.items, v) }
`

const appSrc = `package app

import "example.com/lib"

var Default = lib.Map{}

var counter int

var a, b = one(), two()

func one() int { return 1 }
func two() int { return 2 }

func init() { counter = 1 }
func init() { counter++ }

type Handler func(string) string

type conf struct{ n int }

// Mine has the fields of lib.ReadOnly, which stay ReadOnly's.
type Mine lib.ReadOnly

func run(m *lib.Map) []string {
	get := m.Get
	_ = get
	s := lib.Store(m)
	out := lib.Lookup(s, "k")
	apply(strings)
	var l lib.List[int]
	l.Add(3)
	f := func() { _ = lib.Lookup(s, "x") }
	f()
	ro := lib.ReadOnly{Map: *m}
	_ = ro
	var c conf
	c.n = 1
	var mine Mine
	_ = mine.Map
	for counter = range 3 {
	}
	_ = (*lib.Map).Put
	return append(lib.Box(out), Handler(strings)(""))
}

func strings(s string) string { return s }

func apply(h Handler) { _ = h("") }
`

func build(t *testing.T) *codeindex.Refs {
	t.Helper()
	fset, pkgs, snapPath := check(t)
	return Build(fset, pkgs, snapPath)
}

// check type-checks the fixture: lib, then app, which imports it.
func check(t *testing.T) (*token.FileSet, []*Package, func(string) string) {
	t.Helper()
	fset := token.NewFileSet()
	checked := map[string]*types.Package{}
	var pkgs []*Package
	paths := map[string]string{}
	for _, p := range []struct{ path, src string }{{"example.com/lib", libSrc}, {"example.com/app", appSrc}} {
		name := p.path + "/x.go"
		f, err := parser.ParseFile(fset, name, p.src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: importerFunc(func(path string) (*types.Package, error) {
			if p, ok := checked[path]; ok {
				return p, nil
			}
			return nil, fmt.Errorf("no package %s", path)
		})}
		pkg, err := conf.Check(p.path, fset, []*ast.File{f}, info)
		if err != nil {
			t.Fatal(err)
		}
		checked[p.path] = pkg
		pkgs = append(pkgs, &Package{Files: []*ast.File{f}, Info: info, Types: pkg})
		paths[name] = "src/" + p.path + "/x.go.txt"
	}
	return fset, pkgs, func(name string) string { return paths[name] }
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// sites renders the sites of r as "from -> to kind" lines, sorted.
func sites(r *codeindex.Refs) []string {
	var out []string
	for _, s := range r.Sites {
		out = append(out, fmt.Sprintf("%s -> %s %c", r.Syms[s.From].ID(), r.Syms[s.To].ID(), s.Kind))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestSites(t *testing.T) {
	r := build(t)
	got := sites(r)
	for _, want := range []string{
		// static calls, across packages, from closures too
		"example.com/app.run -> example.com/lib.Lookup c",
		"example.com/app.run -> example.com/app.apply c",
		// a method value and a method expression are values
		"example.com/app.run -> example.com/lib.(*Map).Get v",
		"example.com/app.run -> example.com/lib.(*Map).Put v",
		// a function passed as an argument, and converted
		"example.com/app.run -> example.com/app.strings v",
		// a call through an interface is dynamic, to the interface method
		"example.com/lib.Lookup -> example.com/lib.Store.Get d",
		// generic functions and methods resolve to their declaration
		"example.com/app.run -> example.com/lib.Box c",
		"example.com/app.run -> example.com/lib.(*List).Add c",
		"example.com/app.run -> example.com/lib.List r",
		// writes: assignment, ++, composite literal field, range with =
		"example.com/app.init.0 -> example.com/app.counter w",
		"example.com/app.init.1 -> example.com/app.counter w",
		"example.com/app.run -> example.com/app.counter w",
		"example.com/app.run -> example.com/lib.ReadOnly.Map w",
		// a type defined as another package's struct type reads its fields
		"example.com/app.run -> example.com/lib.ReadOnly.Map r",
		"example.com/app.run -> example.com/app.conf.n w",
		"example.com/lib.(*Map).Get -> example.com/lib.Map.hits w",
		"example.com/lib.(*Map).Put -> example.com/lib.Map.m w",
		"example.com/lib.(*Map).Get -> example.com/lib.Map.m r",
		// initializers belong to the variable they initialize
		"example.com/app.a -> example.com/app.one c",
		"example.com/app.b -> example.com/app.two c",
		"example.com/app.Default -> example.com/lib.Map r",
		// a conversion to a named type reads the type
		"example.com/app.run -> example.com/app.Handler r",
		"example.com/app.run -> example.com/lib.Store r",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %s", want)
		}
	}
	for _, unwanted := range []string{
		// h is a parameter: a call through a function value is not seen
		"example.com/app.apply -> example.com/app.Handler c",
		"example.com/app.run -> example.com/app.counter r",
	} {
		if slices.Contains(got, unwanted) {
			t.Errorf("unexpected %s", unwanted)
		}
	}
	for _, s := range r.Syms {
		if s.ID() == "example.com/lib.Mine.Map" {
			t.Error("lib.ReadOnly's field Map is named after app.Mine, a type of another package")
		}
	}
	if t.Failed() {
		t.Logf("sites:\n%s", strings.Join(got, "\n"))
	}
}

// TestBuilderOrder adds the packages one at a time, dependencies first (lib,
// then app), and checks that the result is that of a single pass over
// them in the order of their paths (app, then lib): the same files,
// numbered alike, and the same symbols and sites.
func TestBuilderOrder(t *testing.T) {
	fset, pkgs, snapPath := check(t)
	b := NewBuilder(snapPath)
	for _, p := range pkgs {
		b.AddSites(fset, []*Package{p})
	}
	byPath := []*Package{pkgs[1], pkgs[0]}
	b.AddImplementations(fset, byPath)
	got := b.Result()
	want := Build(fset, byPath, snapPath)
	wantFiles := []string{"src/example.com/app/x.go.txt", "src/example.com/lib/x.go.txt"}
	if !slices.Equal(want.Files, wantFiles) || !slices.Equal(got.Files, wantFiles) {
		t.Errorf("files %q, in a single pass %q; want %q", got.Files, want.Files, wantFiles)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("added one at a time:\n%+v\nin a single pass:\n%+v", got, want)
	}
}

func TestImplementationsAndPromoted(t *testing.T) {
	r := build(t)
	var impls, promoted []string
	for _, im := range r.Impls {
		impls = append(impls, fmt.Sprintf("%s %s %v", r.Syms[im.Type].ID(), r.Syms[im.Iface].ID(), im.PtrOnly))
	}
	for _, p := range r.Promoted {
		promoted = append(promoted, fmt.Sprintf("%s %s via %s", r.Syms[p.Type].ID(), r.Syms[p.Method].ID(), p.Via))
	}
	slices.Sort(impls)
	slices.Sort(promoted)
	wantImpls := []string{
		// Mine, defined as ReadOnly, embeds Map too.
		"example.com/app.Mine example.com/lib.Named true",
		"example.com/app.Mine example.com/lib.Reader true",
		"example.com/app.Mine example.com/lib.Store true",
		// Map's Get and Put have pointer receivers: only *Map implements.
		"example.com/lib.Map example.com/lib.Named true",
		"example.com/lib.Map example.com/lib.Reader true",
		"example.com/lib.Map example.com/lib.Store true",
		// ReadOnly embeds Map: *ReadOnly has the pointer methods.
		"example.com/lib.ReadOnly example.com/lib.Named true",
		"example.com/lib.ReadOnly example.com/lib.Reader true",
		"example.com/lib.ReadOnly example.com/lib.Store true",
	}
	if !slices.Equal(impls, wantImpls) {
		t.Errorf("implementations\n%s\nwant\n%s", strings.Join(impls, "\n"), strings.Join(wantImpls, "\n"))
	}
	wantPromoted := []string{
		"example.com/app.Mine example.com/lib.(*Map).Get via Map",
		"example.com/app.Mine example.com/lib.(*Map).Put via Map",
		"example.com/app.Mine example.com/lib.Map.Name via Map",
		"example.com/lib.Named example.com/lib.Reader.Get via Reader",
		"example.com/lib.ReadOnly example.com/lib.(*Map).Get via Map",
		"example.com/lib.ReadOnly example.com/lib.(*Map).Put via Map",
		"example.com/lib.ReadOnly example.com/lib.Map.Name via Map",
	}
	if !slices.Equal(promoted, wantPromoted) {
		t.Errorf("promoted\n%s\nwant\n%s", strings.Join(promoted, "\n"), strings.Join(wantPromoted, "\n"))
	}
	// Interface methods and fields carry their position.
	for _, s := range r.Syms {
		if (s.Kind == codeindex.SymAbstract || s.Kind == codeindex.SymField) && s.ID() != "" && (s.File < 0 || s.Line <= 0) {
			t.Errorf("%s has no position", s.ID())
		}
	}
}

func TestEncodes(t *testing.T) {
	r := build(t)
	var b strings.Builder
	if err := codeindex.EncodeRefs(&b, r); err != nil {
		t.Fatal(err)
	}
	back, err := codeindex.ReadRefs(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if !slices.Equal(sites(back), sites(r)) {
		t.Error("the references do not survive encoding")
	}
}
