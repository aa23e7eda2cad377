package codetools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// priorSources are the packages of an adopter's build: its main module,
// a module it requires directly, one it requires indirectly, this library
// and a /v2 module whose package name is not its last path element.
var priorSources = map[string]string{
	"example.com/app": `package main

// Config configures the app.
type Config struct {
	MaxConns int // connections at most
	Region   string ` + "`yaml:\"region_name\"`" + `
}

// run refills the cache.
func run() {
	// back off before the next try
	log.Printf("cache refill failed after %d tries", 3)
}

// Handler serves the app.
func Handler() {}
`,
	"example.com/direct": "package direct\n\n// Handler serves direct.\nfunc Handler() {}\n",
	"example.com/indirect": "package indirect\n\n// Handler serves indirect.\nfunc Handler() {}\n\n" +
		"// reap closes idle sockets.\nfunc reap() {}\n\n// ReapAll closes idle sockets.\nfunc ReapAll() {}\n",
	"github.com/embedmcp/mcp": "package mcp\n\n// Handler serves MCP.\nfunc Handler() {}\n",
	"example.com/widget/v2":   "package widget\n\n// Make makes a widget.\nfunc Make() {}\n",
}

const priorGoMod = `module example.com/app

go 1.26

require (
	example.com/direct v1.0.0
	example.com/indirect v1.0.0 // indirect
	example.com/widget/v2 v2.0.0
	github.com/embedmcp/mcp v0.1.0
)
`

// priorCatalog is a catalog over priorSources; words false leaves the
// search words out of the index, as an earlier mcpsnapshot wrote it.
func priorCatalog(t *testing.T, words bool) *Catalog {
	t.Helper()
	man := codesnap.Manifest{MainPackage: "example.com/app", GOOS: "linux", GOARCH: "amd64",
		Modules: []codesnap.Module{{Path: "example.com/app", Main: true}, {Path: "example.com/direct", Version: "v1.0.0"},
			{Path: "example.com/indirect", Version: "v1.0.0"}, {Path: "example.com/widget/v2", Version: "v2.0.0"},
			{Path: "github.com/embedmcp/mcp", Version: "v0.1.0"}}}
	var files []srcFile
	for _, pkg := range slices.Sorted(maps.Keys(priorSources)) {
		files = append(files, srcFile{pkg, "x.go", priorSources[pkg]})
	}
	fsys := makeSnapshot(t, man, files)
	if err := json.Unmarshal(fsys[codesnap.ManifestName].Data, &man); err != nil {
		t.Fatal(err)
	}
	for i := range man.Packages {
		if man.Packages[i].ImportPath == "example.com/widget/v2" {
			man.Packages[i].Name = "widget"
		}
	}
	p := "src/example.com/app/go.mod" + codesnap.SourceSuffix
	sum := sha256.Sum256([]byte(priorGoMod))
	fsys[p] = &fstest.MapFile{Data: []byte(priorGoMod)}
	man.Modules[0].Files = []codesnap.File{{Name: "go.mod", Path: p, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(priorGoMod))}}
	data, err := json.Marshal(man)
	if err != nil {
		t.Fatal(err)
	}
	fsys[codesnap.ManifestName] = &fstest.MapFile{Data: data}
	if !words {
		var out bytes.Buffer
		for line := range bytes.Lines(fsys[codesnap.IndexName].Data) {
			if !bytes.HasPrefix(line, []byte("w ")) && string(line) != "words\n" {
				out.Write(line)
			}
		}
		if out.Len() == len(fsys[codesnap.IndexName].Data) {
			t.Fatal("the index has no search words")
		}
		fsys[codesnap.IndexName] = &fstest.MapFile{Data: out.Bytes()}
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26", Path: "example.com/app", Main: debug.Module{Path: "example.com/app"}}
	c := NewCatalog(&Options{Snapshot: fsys, BuildInfo: bi, Server: "app"})
	c.loadRuntime = func() (*index.RuntimeTable, error) {
		return &index.RuntimeTable{Funcs: []index.RuntimeFunc{
			{Name: "net/http.(*Server).Serve", File: "/usr/local/go/src/net/http/server.go", Line: 3300},
		}}, nil
	}
	return c
}

// A common name puts the host's declaration first, then the modules its
// go.mod requires directly, then the others, and this library last.
func TestPriors(t *testing.T) {
	c := priorCatalog(t, true)
	got := ids(searchOK(t, c, SearchQuery{Query: "Handler"}))
	want := []string{"example.com/app.Handler", "example.com/direct.Handler", "example.com/indirect.Handler", "github.com/embedmcp/mcp.Handler"}
	if !slices.Equal(got, want) {
		t.Errorf("Handler: %q, want %q", got, want)
	}
	// A phrase that names this library does not lower it.
	if got := ids(searchOK(t, c, SearchQuery{Query: "handler that serves mcp"})); len(got) == 0 || got[0] != "github.com/embedmcp/mcp.Handler" {
		t.Errorf("handler that serves mcp: %q", got)
	}
	if got := index.ParseRequires(priorGoMod); !got["example.com/direct"] || got["example.com/indirect"] || len(got) != 3 {
		t.Errorf("parseRequires: %v", got)
	}
}

// In a module the host does not require directly, a question by words
// finds the package's API before its unexported declarations
// (internalPrior), even when these match a little better.
func TestInternalPrior(t *testing.T) {
	c := priorCatalog(t, true)
	if got := ids(searchOK(t, c, SearchQuery{Query: "reap idle sockets"})); len(got) < 2 || got[0] != "example.com/indirect.ReapAll" {
		t.Errorf("reap idle sockets: %q, want ReapAll first", got)
	}
}

// Fields, tags and string literals are searchable and answer their
// declaration (a field is an entry of its own); a pasted log line finds the format string that printed it.
func TestSearchWords(t *testing.T) {
	c := priorCatalog(t, true)
	for q, want := range map[string]string{
		"connections at most":                "example.com/app.Config.MaxConns",
		"limit on connections":               "example.com/app.Config.MaxConns",
		"region_name":                        "example.com/app.Config|example.com/app.Config.Region",
		"cache refill failed after 3 tries":  "example.com/app.run",
		"back off before the next try":       "example.com/app.run",
		"net/http.(*Server).Serve":           "net/http.(*Server).Serve",
		"net/http.(*Server).Serve(0xc0001e)": "net/http.(*Server).Serve",
	} {
		res := searchOK(t, c, SearchQuery{Query: q})
		if got := ids(res); len(got) == 0 || !slices.Contains(strings.Split(want, "|"), got[0]) {
			t.Errorf("%q: %q (%s), want %s first", q, got, res.Match, want)
		}
	}
}

// A declaration of a /vN module is named as Go code qualifies it: by its
// package's name.
func TestPackageNameQualifier(t *testing.T) {
	c := priorCatalog(t, true)
	def, err := c.Definition(ctx, DefinitionQuery{Name: "widget.Make"})
	if err != nil || def.Name != "example.com/widget/v2.Make" {
		t.Fatalf("widget.Make: %v, %v", def, err)
	}
	if got := ids(searchOK(t, c, SearchQuery{Query: "widget.Make"})); len(got) != 1 || got[0] != "example.com/widget/v2.Make" {
		t.Errorf("search widget.Make: %q", got)
	}
}

// A snapshot without search words, from an earlier mcpsnapshot, loads and
// answers: the catalog reads the words of the source itself.
func TestSnapshotWithoutWords(t *testing.T) {
	c := priorCatalog(t, false)
	if got := ids(searchOK(t, c, SearchQuery{Query: "Handler"})); len(got) != 4 || got[0] != "example.com/app.Handler" {
		t.Errorf("Handler: %q", got)
	}
	if got := ids(searchOK(t, c, SearchQuery{Query: "cache refill"})); len(got) == 0 || got[0] != "example.com/app.run" {
		t.Errorf("cache refill: %q", got)
	}
}

// Between equal literal matches, a package's API comes before its
// unexported declarations and the methods and members of its unexported
// types.
func TestUnexportedLast(t *testing.T) {
	for _, c := range []struct {
		e    index.Entry
		want int
	}{
		{index.Entry{ID: "example.com/p.(*PortRange).Validate", Kind: index.KindMethod}, 0},
		{index.Entry{ID: "example.com/p.(*nilGenerator).Validate", Kind: index.KindMethod}, 1},
		{index.Entry{ID: "example.com/p.validate", Kind: index.KindFunc}, 1},
		{index.Entry{ID: "example.com/p.New", Kind: index.KindFunc}, 0},
		{index.Entry{ID: "example.com/p.Config.MaxRetries", Kind: index.KindField, Member: true}, 0},
		{index.Entry{ID: "example.com/p.stats.Keys", Kind: index.KindField, Member: true}, 1},
		{index.Entry{ID: "example.com/p", Kind: index.KindPackage}, 0},
	} {
		if got := index.Unexported(&c.e); got != c.want {
			t.Errorf("unexported(%s) = %d, want %d", c.e.ID, got, c.want)
		}
	}
}
