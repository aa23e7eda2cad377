package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"path/filepath"
	"sort"
	"strings"

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

// references type-checks the snapshot's packages from source (their
// dependencies from export data) and computes their references. files maps
// the absolute name of each Go file of the snapshot to where it goes. Type
// errors do not stop it: they are reported on warn and the packages
// contribute what was checked.
func references(ctx context.Context, cfg config, importPaths []string, files map[string]snapFile, warn io.Writer) (*codeindex.Refs, error) {
	if len(importPaths) == 0 {
		return &codeindex.Refs{}, nil
	}
	pcfg := &packages.Config{
		Context: ctx,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedTypesSizes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir:  cfg.dir,
		Env:  cfg.env,
		Fset: token.NewFileSet(),
	}
	if cfg.tags != "" {
		pcfg.BuildFlags = []string{"-tags", cfg.tags}
	}
	loaded, err := packages.Load(pcfg, importPaths...)
	if err != nil {
		return nil, fmt.Errorf("type-checking for references: %w", err)
	}
	want := map[string]bool{}
	for _, p := range importPaths {
		want[p] = true
	}
	var pkgs []*coderefs.Package
	var problems []string
	for _, p := range loaded {
		if !want[p.PkgPath] || p.Types == nil || p.TypesInfo == nil {
			continue
		}
		for _, e := range p.Errors {
			problems = append(problems, e.Error())
		}
		syntax := append([]*ast.File(nil), p.Syntax...)
		order := func(f *ast.File) int {
			if sf, ok := files[pcfg.Fset.File(f.Pos()).Name()]; ok {
				return sf.order
			}
			return len(files) // generated (cgo): after the package's files
		}
		sort.SliceStable(syntax, func(i, j int) bool { return order(syntax[i]) < order(syntax[j]) })
		pkgs = append(pkgs, &coderefs.Package{Files: syntax, Info: p.TypesInfo, Types: p.Types})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Types.Path() < pkgs[j].Types.Path() })
	if len(problems) > 0 {
		fmt.Fprintf(warn, "mcpsnapshot: references may be incomplete: %d errors loading the packages, the first: %s\n",
			len(problems), strings.Join(strings.Fields(problems[0]), " "))
	}
	return coderefs.Build(pcfg.Fset, pkgs, func(name string) string {
		if sf, ok := files[filepath.Clean(name)]; ok {
			return sf.path
		}
		return ""
	}), nil
}
