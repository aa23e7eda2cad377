package main

import (
	"bufio"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"

	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/coderefs"
)

// snapFile is a Go file of the snapshot: its path in the snapshot and its
// place in its package's compile order.
type snapFile struct {
	path  string
	order int
}

// references type-checks the snapshot's packages from source and computes
// their references. files maps the absolute name of each Go file of the
// snapshot to where it goes. Type errors do not stop it: they are
// reported on warn and the packages contribute what was checked.
//
// Its memory follows the package-level declarations of the snapshot and
// its largest package, not the syntax and types of all of them: one go
// list gives every package of the build with its export data; the
// packages of the snapshot are then parsed and type-checked one at a
// time, dependencies first, the others read from export data (as
// go/packages does), and their syntax, type information and function
// bodies' objects dropped once their sites are recorded.
func references(ctx context.Context, cfg config, importPaths []string, files map[string]snapFile, goarch string, warn io.Writer) (*codeindex.Refs, error) {
	if len(importPaths) == 0 {
		return &codeindex.Refs{}, nil
	}
	fset := token.NewFileSet()
	lcfg := &packages.Config{
		Context: ctx,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedDeps | packages.NeedExportFile | packages.NeedModule,
		Dir: cfg.dir,
		Env: cfg.env,
	}
	if cfg.tags != "" {
		lcfg.BuildFlags = []string{"-tags", cfg.tags}
	}
	roots, err := packages.Load(lcfg, importPaths...)
	if err != nil {
		return nil, fmt.Errorf("type-checking for references: %w", err)
	}
	ld := &loader{fset: fset, imports: map[string]*types.Package{}, complete: map[string]bool{},
		source: map[string]bool{}, sizes: types.SizesFor("gc", goarch)}
	for _, p := range importPaths {
		ld.source[p] = true
	}
	b := coderefs.NewBuilder(func(name string) string {
		if sf, ok := files[filepath.Clean(name)]; ok {
			return sf.path
		}
		return ""
	})
	var problems []string
	checked := map[string]*types.Package{}
	// Dependencies first, so that a package imports its dependencies as
	// they were checked from source.
	var visitErr error
	packages.Visit(roots, nil, func(p *packages.Package) {
		if visitErr != nil || !ld.source[p.PkgPath] {
			return
		}
		if visitErr = ctx.Err(); visitErr != nil {
			return
		}
		for _, e := range p.Errors {
			problems = append(problems, e.Error())
		}
		cp, errs := ld.check(p)
		for _, e := range errs {
			problems = append(problems, e.Error())
		}
		if cp == nil {
			return
		}
		order := func(f *ast.File) int {
			if sf, ok := files[fset.File(f.Pos()).Name()]; ok {
				return sf.order
			}
			return len(files) // generated (cgo): after the package's files
		}
		sort.SliceStable(cp.Files, func(i, j int) bool { return order(cp.Files[i]) < order(cp.Files[j]) })
		b.AddSites(fset, []*coderefs.Package{cp})
		checked[p.PkgPath] = ld.imports[p.PkgPath]
	})
	if visitErr != nil {
		return nil, visitErr
	}
	pkgs := make([]*coderefs.Package, 0, len(checked))
	for _, t := range checked {
		pkgs = append(pkgs, &coderefs.Package{Types: t})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Types.Path() < pkgs[j].Types.Path() })
	b.AddImplementations(fset, pkgs)
	if len(problems) > 0 {
		fmt.Fprintf(warn, "mcpsnapshot: references may be incomplete: %d errors loading the packages, the first: %s\n",
			len(problems), strings.Join(strings.Fields(problems[0]), " "))
	}
	return b.Result(), nil
}

// loader type-checks packages one at a time against a go/types universe
// read from export data.
type loader struct {
	fset *token.FileSet
	// imports is the universe: the packages checked from source and those
	// read from export data; complete marks the packages checked or whose
	// own export data was read (the others hold what their importers'
	// export data did).
	imports  map[string]*types.Package
	complete map[string]bool
	// source marks the packages checked from source.
	source map[string]bool
	sizes  types.Sizes
}

// load returns the package p as checked from source, or read from its
// export data.
func (ld *loader) load(p *packages.Package) (*types.Package, error) {
	if p.PkgPath == "unsafe" {
		return types.Unsafe, nil
	}
	if ld.complete[p.PkgPath] {
		return ld.imports[p.PkgPath], nil
	}
	if ld.source[p.PkgPath] {
		return nil, fmt.Errorf("package %s could not be type-checked", p.PkgPath)
	}
	if p.ExportFile == "" {
		return nil, fmt.Errorf("no export data for %s", p.PkgPath)
	}
	f, err := os.Open(p.ExportFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The go command's export files are archives, as go/packages reads them.
	//lint:ignore SA1019 go/packages reads them so too
	r, err := gcexportdata.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("reading export data for %s: %w", p.PkgPath, err)
	}
	t, err := gcexportdata.Read(r, ld.fset, ld.imports, p.PkgPath)
	if err != nil {
		return nil, fmt.Errorf("reading export data for %s: %w", p.PkgPath, err)
	}
	ld.complete[p.PkgPath] = true
	return t, nil
}

// check parses and type-checks p from source, as go/packages does for the
// packages it loads from source, recording the uses and definitions of
// identifiers. It returns nil for a package without Go files.
func (ld *loader) check(p *packages.Package) (*coderefs.Package, []error) {
	if len(p.CompiledGoFiles) == 0 {
		return nil, nil
	}
	var errs []error
	var syntax []*ast.File
	for _, name := range p.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f, err := parser.ParseFile(ld.fset, name, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			errs = append(errs, err)
		}
		if f != nil {
			syntax = append(syntax, f)
		}
	}
	tc := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			ip := p.Imports[path]
			if ip == nil {
				return nil, fmt.Errorf("no metadata for %s", path)
			}
			return ld.load(ip)
		}),
		Error: func(err error) { errs = append(errs, err) },
		Sizes: ld.sizes,
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		tc.GoVersion = "go" + p.Module.GoVersion
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	t := types.NewPackage(p.PkgPath, p.Name)
	if err := types.NewChecker(tc, ld.fset, t, info).Files(syntax); err != nil && len(errs) == 0 {
		errs = append(errs, err)
	}
	// What importers see, and the implementations are computed over: the
	// package checked again without its function bodies, whose local
	// scopes and objects (most of a package's types) would outlive it.
	// Its errors are those of the first check.
	decls := *tc
	decls.IgnoreFuncBodies, decls.Error = true, func(error) {}
	light := types.NewPackage(p.PkgPath, p.Name)
	_ = types.NewChecker(&decls, ld.fset, light, nil).Files(syntax)
	ld.imports[p.PkgPath], ld.complete[p.PkgPath] = light, true
	return &coderefs.Package{Files: syntax, Info: info, Types: t}, errs
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
