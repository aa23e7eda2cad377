// Package shop is a fictional shop service, the fixture behind the recorded
// calls of embedmcp's own tools: the source snapshot and build information
// of its binary, for code_search and code_definition, and a registry of its
// tools with guides, for tool_detail and tool_catalogue.
//
// Nothing of the shop is linked into the test binary, so that what the code
// tools answer about it does not depend on the machine or the Go release;
// only the counts of the running binary's function table do, and the
// recorded calls mask them.
package shop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"runtime/debug"
	"testing/fstest"
	"time"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// Names of the shop's module and packages.
const (
	Module      = "example.com/shop"
	MainPackage = Module + "/cmd/shopd"
	Basket      = Module + "/basket"
	Pricing     = Module + "/pricing"
)

// Revision is the version-control revision the binary was built from.
const Revision = "3f2c1a9e0b7d4c2a8e6f5b1d0c9a7e3f2b4d6a8c"

// Now is the clock of the catalog: 2026-01-02T03:04:05Z.
func Now() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// Snapshot returns the source snapshot of the shop, laid out as mcpsnapshot
// writes it: manifest.json, index.txt and src/<importpath>/<file>.go.txt.
// It holds the basket and pricing packages, not the main package.
func Snapshot() fstest.MapFS {
	fsys := fstest.MapFS{}
	man := codesnap.Manifest{
		Format:      codesnap.Format,
		MainPackage: MainPackage,
		GOOS:        "linux",
		GOARCH:      "amd64",
		Modules:     []codesnap.Module{{Path: Module, Main: true}},
	}
	var sources [][]codeindex.Source
	for _, p := range []struct{ path, name, file, src string }{
		{Basket, "basket", "basket.go", basketGo},
		{Pricing, "pricing", "pricing.go", pricingGo},
	} {
		loc := "src/" + p.path + "/" + p.file + codesnap.SourceSuffix
		sum := sha256.Sum256([]byte(p.src))
		fsys[loc] = &fstest.MapFile{Data: []byte(p.src)}
		man.Packages = append(man.Packages, codesnap.Package{
			ImportPath: p.path, Name: p.name, Module: Module,
			Files: []codesnap.File{{Name: p.file, Path: loc, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(p.src))}},
		})
		sources = append(sources, []codeindex.Source{{Path: loc, Name: p.file, Src: []byte(p.src)}})
	}
	index, err := codeindex.Build(sources...)
	if err != nil {
		panic("shop: the fixture source does not parse: " + err.Error())
	}
	fsys[codesnap.IndexName] = &fstest.MapFile{Data: index}
	data, _ := json.MarshalIndent(man, "", "  ") // a Manifest always encodes
	fsys[codesnap.ManifestName] = &fstest.MapFile{Data: data}
	return fsys
}

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
// Docs, BuildInfo and Now, named server, plus the function table of the
// running binary (which the codetools package always reads).
func Catalog(server string) *codetools.Catalog {
	return codetools.NewCatalog(&codetools.Options{
		Snapshot:  Snapshot(),
		Docs:      Docs,
		Server:    server,
		BuildInfo: BuildInfo(),
		Now:       Now,
	})
}
