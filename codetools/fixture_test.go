package codetools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

const fixturePath = "example.com/fixture"

// fixtureFiles are the fixture files of the default build (tagged.go is
// excluded by its build constraint).
var fixtureFiles = map[string][]string{
	fixturePath:          {"generic.go", "main.go", "shapes.go"},
	fixturePath + "/sub": {"sub.go"},
}

// readFixture returns the content of a fixture file.
func readFixture(t testing.TB, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fixture", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// lineOf returns the 1-based line of the first occurrence of s in src.
func lineOf(t testing.TB, src, s string) int {
	t.Helper()
	i := strings.Index(src, s)
	if i < 0 {
		t.Fatalf("%q not in source", s)
	}
	return strings.Count(src[:i], "\n") + 1
}

// srcFile is a source file of a test snapshot.
type srcFile struct{ pkg, name, src string }

// makeSnapshot lays out a snapshot as mcpsnapshot writes it: the manifest
// man, completed with the packages of files (in order), the files under
// src/ and the index.
func makeSnapshot(t testing.TB, man codesnap.Manifest, files []srcFile) fstest.MapFS {
	t.Helper()
	return makeIndexedSnapshot(t, man, files, nil)
}

// makeIndexedSnapshot is makeSnapshot with the declarations of each file
// given, by file name, instead of parsed, where decls has them.
func makeIndexedSnapshot(t testing.TB, man codesnap.Manifest, files []srcFile, decls map[string][]codeindex.Decl) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	man.Format = codesnap.Format
	var pkgs [][]codeindex.Source
	var given []codeindex.File
	for _, f := range files {
		if len(man.Packages) == 0 || man.Packages[len(man.Packages)-1].ImportPath != f.pkg {
			mod := ""
			for _, m := range man.Modules {
				if f.pkg == m.Path || strings.HasPrefix(f.pkg, m.Path+"/") {
					mod = m.Path
				}
			}
			man.Packages = append(man.Packages, codesnap.Package{ImportPath: f.pkg, Name: path.Base(f.pkg), Module: mod, Standard: mod == ""})
			pkgs = append(pkgs, nil)
		}
		p := "src/" + f.pkg + "/" + f.name + codesnap.SourceSuffix
		sum := sha256.Sum256([]byte(f.src))
		fsys[p] = &fstest.MapFile{Data: []byte(f.src)}
		mp := &man.Packages[len(man.Packages)-1]
		mp.Files = append(mp.Files, codesnap.File{Name: f.name, Path: p, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(f.src))})
		if d, ok := decls[f.pkg+"/"+f.name]; ok {
			given = append(given, codeindex.File{Path: p, Decls: d})
			continue
		}
		pkgs[len(pkgs)-1] = append(pkgs[len(pkgs)-1], codeindex.Source{Path: p, Name: f.name, Src: []byte(f.src)})
	}
	index, err := codeindex.Build(pkgs...)
	if err != nil {
		t.Fatal(err)
	}
	if given != nil {
		var b bytes.Buffer
		if err := codeindex.Encode(&b, given); err != nil {
			t.Fatal(err)
		}
		index = b.Bytes()
	}
	fsys[codesnap.IndexName] = &fstest.MapFile{Data: index}
	data, err := json.Marshal(man)
	if err != nil {
		t.Fatal(err)
	}
	fsys[codesnap.ManifestName] = &fstest.MapFile{Data: data}
	return fsys
}

// fixtureSnapshot builds a snapshot of the fixture. extra adds files to
// the main package.
func fixtureSnapshot(t testing.TB, extra map[string]string) fstest.MapFS {
	t.Helper()
	man := codesnap.Manifest{MainPackage: fixturePath, GOOS: "linux", GOARCH: "amd64",
		Modules: []codesnap.Module{{Path: fixturePath, Main: true}}}
	var files []srcFile
	for _, pkg := range []string{fixturePath, fixturePath + "/sub"} {
		names := append([]string(nil), fixtureFiles[pkg]...)
		if pkg == fixturePath {
			for n := range extra {
				names = append(names, n)
			}
			sort.Strings(names)
		}
		for _, name := range names {
			content, ok := extra[name]
			if !ok || pkg != fixturePath {
				content = readFixture(t, strings.TrimPrefix(strings.TrimPrefix(pkg, fixturePath), "/")+"/"+name)
			}
			files = append(files, srcFile{pkg, name, content})
		}
	}
	return makeSnapshot(t, man, files)
}

// fixtureBuildInfo describes a binary built from the fixture.
func fixtureBuildInfo(revision string) *debug.BuildInfo {
	bi := &debug.BuildInfo{GoVersion: "go1.26", Path: fixturePath, Main: debug.Module{Path: fixturePath, Version: "(devel)"}}
	if revision != "" {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.revision", Value: revision},
			debug.BuildSetting{Key: "vcs.modified", Value: "false"})
	}
	return bi
}

// fixtureRuntime is the function table a binary built from the fixture
// would have, with lines taken from the fixture source. Absolute paths
// mimic a build machine.
func fixtureRuntime(t testing.TB) []index.RuntimeFunc {
	main := readFixture(t, "main.go")
	shapes := readFixture(t, "shapes.go")
	generic := readFixture(t, "generic.go")
	const dir = "/home/builder/src/fixture/"
	return []index.RuntimeFunc{
		rf("main.main", dir+"main.go", lineOf(t, main, "func main()")),
		rf("main.main.func1", dir+"main.go", lineOf(t, main, "add := func")),
		rf("main.init.0", dir+"main.go", lineOf(t, main, "func init()")),
		rf("main.init.1", dir+"main.go", strings.Count(main[:strings.LastIndex(main, "func init()")], "\n")+1),
		rf("main.init", "<autogenerated>", 1),
		rf("main.T.Value", dir+"shapes.go", lineOf(t, shapes, "func (t T) Value")),
		rf("main.(*T).Value", "<autogenerated>", 1),
		rf("main.(*T).Ptr", dir+"shapes.go", lineOf(t, shapes, "func (t *T) Ptr")),
		rf("main.Map[go.shape.int,go.shape.int]", dir+"generic.go", lineOf(t, generic, "func Map[")),
		rf("main.main.func2", dir+"main.go", lineOf(t, main, "func(i int)")),
		rf("main.(*List[go.shape.int]).Push", dir+"generic.go", lineOf(t, generic, "func (l *List[E]) Push")),
		rf("example.com/fixture/sub.Helper", dir+"sub/sub.go", lineOf(t, readFixture(t, "sub/sub.go"), "func Helper")),
		rf("example.com/fixture.onlyInBinary", dir+"gone.go", 7),
		rf("fmt.Println", "/usr/local/go/src/fmt/print.go", 313),
		rf("type:.eq.main.T", "<autogenerated>", 1),
	}
}

func rf(name, file string, line int) index.RuntimeFunc {
	return index.RuntimeFunc{Name: name, File: file, Line: line}
}

// newFixtureCatalog returns a catalog over the fixture snapshot and
// function table.
func newFixtureCatalog(t testing.TB, binRev string, extra map[string]string) *Catalog {
	t.Helper()
	c := NewCatalog(&Options{Snapshot: fixtureSnapshot(t, extra), BuildInfo: fixtureBuildInfo(binRev),
		Server: "test", Now: func() time.Time { return time.Unix(1700000000, 0) }})
	funcs := fixtureRuntime(t)
	c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{Funcs: funcs}, nil }
	return c
}
