package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/coderefs"
)

// multiModule is a module of three packages whose references cross them:
// implementations whose signatures name the interface's own package,
// interfaces embedded and defined from another package's, a type defined
// as another package's struct, generics, init functions.
var multiModule = map[string]string{
	"go.mod": "module example.com/multi\n\ngo 1.26\n",
	"list/list.go": `package list

type Elem struct{ Value int }

type Iter interface{ Next() *Elem }

type Sized interface {
	Iter
	Len() int
}

type server interface{ serve(*Elem) }

type local struct{ n int }

func (l local) Next() *Elem     { return &Elem{Value: l.n} }
func (local) serve(e *Elem)     { e.Value++ }
func (l *local) Len() int       { return l.n }
func Sum[T ~int](xs ...T) (s T) { for _, x := range xs { s += x }; return s }

var _ server = local{}
`,
	"store/store.go": `package store

import "example.com/multi/list"

type cursor struct{ at *list.Elem }

func (c *cursor) Next() *list.Elem { return c.at }
func (c *cursor) Len() int         { return list.Sum(1, 2) }

// Mine has Elem's fields, which stay Elem's.
type Mine list.Elem

// Walker is Iter by another name.
type Walker list.Iter

type Both struct {
	list.Iter
	*cursor
}

func Use(it list.Iter) int { e := it.Next(); return e.Value }

func New() list.Sized { c := &cursor{at: &list.Elem{Value: 1}}; var m Mine; m.Value = 2; return c }

func init() { _ = Use(New()) }
`,
	"main.go": `package main

import (
	"example.com/multi/list"
	"example.com/multi/store"
)

type counter struct{ list.Iter }

func main() {
	var w store.Walker = store.New()
	println(store.Use(w), w.Next().Value, counter{w}.Next() != nil)
}
`,
}

// TestReferencesMatchWholeLoad checks that computing the references a
// package at a time gives what computing them over every package loaded
// at once (with go/packages, syntax and type information alive together,
// as mcpsnapshot once did) gives.
func TestReferencesMatchWholeLoad(t *testing.T) {
	needGo(t)
	dir := writeModule(t, multiModule)
	m := generateTo(t, dir, filepath.Join(t.TempDir(), "snapshot"), codetools.Selection{})
	var importPaths []string
	files := map[string]snapFile{}
	for _, p := range m.Packages {
		importPaths = append(importPaths, p.ImportPath)
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, "example.com/multi"), "/")
		for i, f := range p.Files {
			files[filepath.Join(dir, filepath.FromSlash(path.Join(rel, f.Name)))] = snapFile{path: f.Path, order: i}
		}
	}
	if len(importPaths) != 3 {
		t.Fatalf("packages %q", importPaths)
	}
	cfg := config{dir: dir}
	got, err := references(ctx, cfg, importPaths, files, runtime.GOARCH, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := wholeLoad(t, cfg, importPaths, files)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a package at a time:\n%s\nall at once:\n%s", render(got), render(want))
	}
	// The fixture exercises what it is meant to.
	r := render(got)
	for _, s := range []string{
		"impl example.com/multi/store.cursor example.com/multi/list.Sized true",
		"impl example.com/multi/list.local example.com/multi/list.Iter false",
		"impl example.com/multi/list.local example.com/multi/list.server false",
		"site example.com/multi/store.Use example.com/multi/list.Iter.Next d",
		"site example.com/multi/store.New example.com/multi/list.Elem.Value w",
		"promoted example.com/multi/store.Both example.com/multi/store.(*cursor).Len via cursor",
	} {
		if !strings.Contains(r, s+"\n") {
			t.Errorf("missing %s", s)
		}
	}
	if t.Failed() {
		t.Logf("references:\n%s", r)
	}
}

// wholeLoad computes the references of the packages loaded all at once.
func wholeLoad(t *testing.T, cfg config, importPaths []string, files map[string]snapFile) *codeindex.Refs {
	t.Helper()
	pcfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedTypesSizes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir:  cfg.dir,
		Fset: token.NewFileSet(),
	}
	loaded, err := packages.Load(pcfg, importPaths...)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []*coderefs.Package
	for _, p := range loaded {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		syntax := append([]*ast.File(nil), p.Syntax...)
		order := func(f *ast.File) int { return files[pcfg.Fset.File(f.Pos()).Name()].order }
		sort.SliceStable(syntax, func(i, j int) bool { return order(syntax[i]) < order(syntax[j]) })
		pkgs = append(pkgs, &coderefs.Package{Files: syntax, Info: p.TypesInfo, Types: p.Types})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Types.Path() < pkgs[j].Types.Path() })
	return coderefs.Build(pcfg.Fset, pkgs, func(name string) string { return files[filepath.Clean(name)].path })
}

// render prints the references of r, one a line.
func render(r *codeindex.Refs) string {
	var b strings.Builder
	for i, f := range r.Files {
		fmt.Fprintf(&b, "file %d %s\n", i, f)
	}
	for _, im := range r.Impls {
		fmt.Fprintf(&b, "impl %s %s %v\n", r.Syms[im.Type].ID(), r.Syms[im.Iface].ID(), im.PtrOnly)
	}
	for _, p := range r.Promoted {
		fmt.Fprintf(&b, "promoted %s %s via %s\n", r.Syms[p.Type].ID(), r.Syms[p.Method].ID(), p.Via)
	}
	for _, s := range r.Sites {
		fmt.Fprintf(&b, "site %s %s %c\n", r.Syms[s.From].ID(), r.Syms[s.To].ID(), s.Kind)
	}
	return b.String()
}
