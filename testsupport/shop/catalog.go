// Package shop is a fictional shop service, the fixture behind the recorded
// calls of embedmcp's own tools: the source snapshot and build information
// of its binary, for code_search and code_definition, and a registry of its
// tools with guides, for tool_detail and tool_catalogue.
//
// Nothing of the shop is linked into the test binary, so that what the code
// tools answer about it does not depend on the machine or the Go release;
// only the counts of the running binary's function table do, and the
// recorded calls mask them.
//
// It is test support, not part of the library's API.
package shop

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"runtime/debug"
	"testing/fstest"
	"time"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/coderefs"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// Names of the shop's module and packages.
const (
	Module      = "example.com/shop"
	MainPackage = Module + "/cmd/shopd"
	Basket      = Module + "/basket"
	Pricing     = Module + "/pricing"
	Checkout    = Module + "/checkout"
)

// Revision is the version-control revision the binary was built from.
const Revision = "3f2c1a9e0b7d4c2a8e6f5b1d0c9a7e3f2b4d6a8c"

// Now is the clock of the catalog: 2026-01-02T03:04:05Z.
func Now() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// Snapshot returns the source snapshot of the shop, laid out as mcpsnapshot
// writes it: manifest.json, index.txt (with the references between the
// shop's declarations) and src/<importpath>/<file>.go.txt, plus the
// module's go.mod. It holds the basket, pricing and checkout packages, not
// the main package.
func Snapshot() fstest.MapFS {
	fsys := fstest.MapFS{}
	man := codesnap.Manifest{
		Format:      codesnap.Format,
		MainPackage: MainPackage,
		GOOS:        "linux",
		GOARCH:      "amd64",
	}
	file := func(rel, src string) codesnap.File {
		loc := "src/" + rel + codesnap.SourceSuffix
		sum := sha256.Sum256([]byte(src))
		fsys[loc] = &fstest.MapFile{Data: []byte(src)}
		return codesnap.File{Name: path.Base(rel), Path: loc, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(src))}
	}
	man.Modules = []codesnap.Module{{Path: Module, Main: true, Files: []codesnap.File{file(Module+"/go.mod", goMod)}}}
	var sources [][]codeindex.Source
	for _, p := range packages {
		f := file(p.path+"/"+p.file, p.src)
		man.Packages = append(man.Packages, codesnap.Package{ImportPath: p.path, Name: p.name, Module: Module,
			Files: []codesnap.File{f}})
		sources = append(sources, []codeindex.Source{{Path: f.Path, Name: p.file, Src: []byte(p.src)}})
	}
	index, err := codeindex.Build(sources...)
	if err != nil {
		panic("shop: the fixture source does not parse: " + err.Error())
	}
	var b bytes.Buffer
	b.Write(index)
	if err := codeindex.EncodeRefs(&b, references()); err != nil {
		panic("shop: " + err.Error())
	}
	fsys[codesnap.IndexName] = &fstest.MapFile{Data: b.Bytes()}
	data, _ := json.MarshalIndent(man, "", "  ") // a Manifest always encodes
	fsys[codesnap.ManifestName] = &fstest.MapFile{Data: data}
	return fsys
}

// packages are the shop's packages in the snapshot, each of one file, in
// import order.
var packages = []struct{ path, name, file, src string }{
	{Basket, "basket", "basket.go", basketGo},
	{Pricing, "pricing", "pricing.go", pricingGo},
	{Checkout, "checkout", "checkout.go", checkoutGo},
}

// references type-checks the shop's packages (the standard library from
// stubs) and computes their references, as mcpsnapshot does.
func references() *codeindex.Refs {
	fset := token.NewFileSet()
	checked := map[string]*types.Package{}
	var imp importerFunc
	check := func(path, name, src string) (*types.Package, *ast.File, *types.Info) {
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			panic("shop: " + err.Error())
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}}
		pkg, err := (&types.Config{Importer: imp}).Check(path, fset, []*ast.File{f}, info)
		if err != nil {
			panic("shop: the fixture source does not type-check: " + err.Error())
		}
		checked[path] = pkg
		return pkg, f, info
	}
	imp = func(path string) (*types.Package, error) {
		if p, ok := checked[path]; ok {
			return p, nil
		}
		if src, ok := stubs[path]; ok {
			p, _, _ := check(path, path+".go", src)
			return p, nil
		}
		return nil, fmt.Errorf("shop: no package %s", path)
	}
	var pkgs []*coderefs.Package
	snapPath := map[string]string{}
	for _, p := range packages {
		pkg, f, info := check(p.path, p.path+"/"+p.file, p.src)
		pkgs = append(pkgs, &coderefs.Package{Files: []*ast.File{f}, Info: info, Types: pkg})
		snapPath[p.path+"/"+p.file] = "src/" + p.path + "/" + p.file + codesnap.SourceSuffix
	}
	return coderefs.Build(fset, pkgs, func(name string) string { return snapPath[name] })
}

// importerFunc implements types.Importer.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// BuildInfo describes the shop's binary, built at Revision from a clean
// working tree.
func BuildInfo() *debug.BuildInfo {
	return &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Path:      MainPackage,
		Main:      debug.Module{Path: Module, Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "GOOS", Value: "linux"},
			{Key: "GOARCH", Value: "amd64"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: Revision},
			{Key: "vcs.time", Value: "2026-01-01T12:00:00Z"},
			{Key: "vcs.modified", Value: "false"},
		},
	}
}

// Docs are the documentation the shop registers with its catalog.
var Docs = []codetools.Doc{
	{
		Name: "shop:checkout", Kind: codetools.KindDoc, File: "docs/checkout.md", Line: 1,
		Documentation: "Checkout turns a basket into an order. It prices the basket with basket.Basket.Total, " +
			"applies at most one pricing.Promotion, reserves stock and takes payment; a failed payment releases the stock.",
		Definition: "# Checkout\n\n1. Price the basket (basket.Basket.Total).\n2. Apply at most one promotion (pricing.Promotion.Apply).\n" +
			"3. Reserve stock.\n4. Take payment; on failure release the reserved stock.\n",
	},
	{
		Name: Basket + ".ErrOutOfStock",
		Documentation: "ErrOutOfStock reports a quantity the warehouse cannot supply. Operators: the stock level " +
			"comes from the warehouse feed, refreshed every five minutes; a burst of these errors usually means the feed is late.",
	},
}

// Catalog returns a code catalog of the shop: its snapshot, registered
// Docs, Routes, BuildInfo and Now, named server, plus the function table of
// the running binary (which the codetools package always reads).
func Catalog(server string) *codetools.Catalog {
	c := codetools.NewCatalog(&codetools.Options{
		Snapshot:  Snapshot(),
		Docs:      Docs,
		Server:    server,
		BuildInfo: BuildInfo(),
		Now:       Now,
	})
	if err := c.AddRoutes(Routes...); err != nil {
		panic("shop: " + err.Error())
	}
	return c
}

// Routes are the shop's HTTP routes, named by the code that serves them:
// the shop is not linked into the binary that answers, so no handler value
// could tell.
var Routes = []codetools.Route{
	{Pattern: "POST /checkout", Code: Checkout + ".Price"},
	{Pattern: "POST /checkout/{code}", Code: Checkout + ".WithCode"},
	{Pattern: "PUT /basket/{customer}/lines", Code: Basket + ".(*Basket).Add"},
}
