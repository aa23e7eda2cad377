package codetools

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codesnap"
)

const (
	depPath    = "example.com/dep"
	depSrc     = "package dep\n\n// Hello says hello.\nfunc Hello() string {\n\treturn \"hello\"\n}\n"
	stdSrc     = "package errors\n\n// New returns an error.\nfunc New(text string) error {\n\treturn nil\n}\n"
	depModDir  = "/root/go/pkg/mod/example.com/dep@v1.0.0/"
	goRootSrc  = "/usr/local/go/src/"
	cleanRev   = "0123456789abcdef0123456789abcdef01234567"
	depSum     = "h1:depdepdepdepdepdepdepdepdepdepdepdepdepd="
	depSumNext = "h1:nextnextnextnextnextnextnextnextnextnex="
)

// consistentCatalog returns a catalog whose snapshot holds the fixture
// (main module), the dependency example.com/dep v1.0.0 and the standard
// library package errors of go1.26.8, and whose function table is what a
// binary built from exactly that source has. edit may change the table,
// the snapshot files and the build information first.
func consistentCatalog(t *testing.T, bi *debug.BuildInfo, edit func(funcs []index.RuntimeFunc, files []srcFile) ([]index.RuntimeFunc, []srcFile)) *Catalog {
	t.Helper()
	man := codesnap.Manifest{MainPackage: fixturePath, GOOS: "linux", GOARCH: "amd64", GoVersion: "go1.26.8",
		Modules: []codesnap.Module{{Path: fixturePath, Main: true}, {Path: depPath, Version: "v1.0.0", Sum: depSum}}}
	var files []srcFile
	for _, name := range []string{"errors.go"} {
		files = append(files, srcFile{"errors", name, stdSrc})
	}
	files = append(files, srcFile{depPath, "dep.go", depSrc})
	for _, pkg := range []string{fixturePath, fixturePath + "/sub"} {
		for _, name := range fixtureFiles[pkg] {
			files = append(files, srcFile{pkg, name, readFixture(t, strings.TrimPrefix(strings.TrimPrefix(pkg, fixturePath), "/")+"/"+name)})
		}
	}
	var funcs []index.RuntimeFunc
	for _, f := range fixtureRuntime(t) {
		if !strings.Contains(f.Name, "onlyInBinary") && !strings.HasPrefix(f.Name, "fmt.") {
			funcs = append(funcs, f)
		}
	}
	funcs = append(funcs,
		index.RuntimeFunc{Name: depPath + ".Hello", File: depModDir + "dep.go", Line: 4, MinLine: 5, MaxLine: 6},
		index.RuntimeFunc{Name: "errors.New", File: goRootSrc + "errors/errors.go", Line: 4, MinLine: 5, MaxLine: 6})
	if edit != nil {
		funcs, files = edit(funcs, files)
	}
	snap := makeSnapshot(t, man, files)
	c := NewCatalog(&Options{Snapshot: snap, BuildInfo: bi, Server: "test", Now: func() time.Time { return time.Unix(1700000000, 0) }})
	c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{Funcs: funcs}, nil }
	return c
}

// binaryInfo is the build information of a binary built from the
// consistent source, changed by mods.
func binaryInfo(mods ...func(*debug.BuildInfo)) *debug.BuildInfo {
	bi := fixtureBuildInfo(cleanRev)
	bi.GoVersion = "go1.26.8"
	bi.Deps = []*debug.Module{{Path: depPath, Version: "v1.0.0", Sum: depSum}}
	bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs", Value: "git"},
		debug.BuildSetting{Key: "GOOS", Value: "linux"}, debug.BuildSetting{Key: "GOARCH", Value: "amd64"})
	for _, m := range mods {
		m(bi)
	}
	return bi
}

func setting(key, value string) func(*debug.BuildInfo) {
	return func(bi *debug.BuildInfo) {
		for i := range bi.Settings {
			if bi.Settings[i].Key == key {
				if value == "" {
					bi.Settings = append(bi.Settings[:i], bi.Settings[i+1:]...)
				} else {
					bi.Settings[i].Value = value
				}
				return
			}
		}
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: key, Value: value})
	}
}

// shift moves the function named name in the table by n lines.
func shift(name string, n int) func([]index.RuntimeFunc, []srcFile) ([]index.RuntimeFunc, []srcFile) {
	return func(funcs []index.RuntimeFunc, files []srcFile) ([]index.RuntimeFunc, []srcFile) {
		for i := range funcs {
			if funcs[i].Name == name {
				funcs[i].Line += n
				if funcs[i].MinLine > 0 {
					funcs[i].MinLine += int32(n)
					funcs[i].MaxLine += int32(n)
				}
			}
		}
		return funcs, files
	}
}

func TestConsistency(t *testing.T) {
	ptr := "main.(*T).Ptr"
	tests := []struct {
		name   string
		bi     *debug.BuildInfo
		edit   func([]index.RuntimeFunc, []srcFile) ([]index.RuntimeFunc, []srcFile)
		query  string
		status string
		reason []string // substrings of the reason
		first  string   // FirstDifference.Name
	}{
		{name: "clean build of the snapshot's source", bi: binaryInfo(), query: ptr, status: StatusMatch,
			reason: []string{"line table agrees", "clean git checkout at 0123456789ab"}},
		{name: "dependency of the same version and sum", bi: binaryInfo(), query: depPath + ".Hello", status: StatusMatch,
			reason: []string{"module example.com/dep is v1.0.0 " + depSum + " in both"}},
		{name: "standard library of the same Go version", bi: binaryInfo(), query: "errors.New", status: StatusMatch,
			reason: []string{"both are go1.26.8"}},
		{name: "no VCS stamp", bi: binaryInfo(setting("vcs.modified", ""), setting("vcs.revision", "")), query: ptr,
			status: StatusUnverified, reason: []string{"no VCS stamp", "edits that move no line cannot be seen"}},
		{name: "modified working tree", bi: binaryInfo(setting("vcs.modified", "true")), query: ptr,
			status: StatusUnverified, reason: []string{"modified working tree"}},
		{name: "a function moved", bi: binaryInfo(), edit: shift("main.T.Value", 2), query: "main.T", status: StatusStale,
			reason: []string{"example.com/fixture.T.Value is declared at line 9 in the snapshot, line 11 in the binary", "1 of"},
			first:  fixturePath + ".T.Value"},
		{name: "the first of several moved functions is named", bi: binaryInfo(),
			edit: func(f []index.RuntimeFunc, s []srcFile) ([]index.RuntimeFunc, []srcFile) {
				f, s = shift("main.(*T).Ptr", 1)(f, s)
				return shift("main.T.Value", 1)(f, s)
			}, query: "main.main", status: StatusStale, reason: []string{"2 of"}, first: fixturePath + ".T.Value"},
		{name: "code past the end of its declaration", bi: binaryInfo(),
			edit: func(f []index.RuntimeFunc, s []srcFile) ([]index.RuntimeFunc, []srcFile) {
				for i := range f {
					if f[i].Name == "main.(*T).Ptr" {
						f[i].MinLine, f[i].MaxLine = int32(f[i].Line+1), 900 // past the end of the file
					}
				}
				return f, s
			}, query: ptr, status: StatusStale, reason: []string{"outside its declaration"}, first: fixturePath + ".(*T).Ptr"},
		{name: "a function the snapshot lacks", bi: binaryInfo(),
			edit: func(f []index.RuntimeFunc, s []srcFile) ([]index.RuntimeFunc, []srcFile) {
				return append(f, rf("main.added", "/home/builder/src/fixture/shapes.go", 40)), s
			}, query: ptr, status: StatusStale, reason: []string{"example.com/fixture.added is in the binary but not in the snapshot"}},
		{name: "a function in another file", bi: binaryInfo(),
			edit: func(f []index.RuntimeFunc, s []srcFile) ([]index.RuntimeFunc, []srcFile) {
				for i := range f {
					if f[i].Name == "main.(*T).Ptr" {
						f[i].File = "/home/builder/src/fixture/generic.go"
					}
				}
				return f, s
			}, query: ptr, status: StatusStale, reason: []string{"is in example.com/fixture/generic.go in the binary"}},
		{name: "a dependency bumped", bi: binaryInfo(func(bi *debug.BuildInfo) {
			bi.Deps = []*debug.Module{{Path: depPath, Version: "v1.1.0", Sum: depSumNext}}
		}), query: depPath + ".Hello", status: StatusStale, reason: []string{"is v1.0.0 " + depSum + " in the snapshot, v1.1.0 " + depSumNext + " in the binary"}},
		{name: "a dependency missing", bi: binaryInfo(func(bi *debug.BuildInfo) { bi.Deps = nil }), query: depPath + ".Hello",
			status: StatusStale, reason: []string{"not in the binary's build"}},
		{name: "a dependency replaced by a local directory in the binary only", bi: binaryInfo(func(bi *debug.BuildInfo) {
			bi.Deps = []*debug.Module{{Path: depPath, Version: "v1.0.0", Replace: &debug.Module{Path: "../dep", Version: "(devel)"}}}
		}), query: depPath + ".Hello", status: StatusStale, reason: []string{"=> ../dep (local)"}},
		{name: "another Go version", bi: binaryInfo(func(bi *debug.BuildInfo) { bi.GoVersion = "go1.26.9" }), query: "errors.New",
			status: StatusStale, reason: []string{"standard library of go1.26.8, the binary was built with go1.26.9"}},
		{name: "another platform", bi: binaryInfo(setting("GOOS", "darwin")), query: ptr, status: StatusStale,
			reason: []string{"made for linux/amd64, the binary is built for darwin/amd64"}},
		{name: "other build tags", bi: binaryInfo(setting("-tags", "netgo")), query: depPath + ".Hello", status: StatusStale,
			reason: []string{`build tags none, the binary with "netgo"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := consistentCatalog(t, tt.bi, tt.edit)
			d := define(t, c, tt.query)
			cons := d.Consistency
			if cons.Status != tt.status {
				t.Fatalf("status %s, want %s: %+v", cons.Status, tt.status, cons)
			}
			for _, r := range tt.reason {
				if !strings.Contains(cons.Reason, r) {
					t.Errorf("reason %q lacks %q", cons.Reason, r)
				}
			}
			if tt.first != "" && (cons.FirstDifference == nil || cons.FirstDifference.Name != tt.first) {
				t.Errorf("first difference %+v, want %s", cons.FirstDifference, tt.first)
			}
			if tt.status == StatusMatch && (cons.Lines.Status != StatusMatch || cons.Version.Status != StatusMatch) {
				t.Errorf("match with checks %+v", cons)
			}
		})
	}
}

// TestConsistencyDamagedFile changes a snapshot file's content without
// changing its size: the definition read from it is marked stale.
func TestConsistencyDamagedFile(t *testing.T) {
	c := consistentCatalog(t, binaryInfo(), nil)
	fsys := c.opts.Snapshot.(fstest.MapFS)
	f := fsys["src/"+fixturePath+"/shapes.go.txt"]
	f.Data = []byte(strings.Replace(string(f.Data), "doubles", "triples", 1))
	d := define(t, c, "main.(*T).Ptr")
	if d.Consistency.Status != StatusStale || !strings.Contains(d.Consistency.Reason, "does not match the sha256") {
		t.Errorf("damaged file: %+v", d.Consistency)
	}
	if d := define(t, c, "main.main"); d.Consistency.Status != StatusMatch {
		t.Errorf("undamaged file: %+v", d.Consistency)
	}
}

// TestConsistencyLocalReplace: a dependency replaced by a local directory
// on both sides has no version to compare; with agreeing lines it is
// unverified, with moved lines stale.
func TestConsistencyLocalReplace(t *testing.T) {
	bi := binaryInfo(func(bi *debug.BuildInfo) {
		bi.Deps = []*debug.Module{{Path: depPath, Version: "v0.0.0-00010101000000-000000000000", Replace: &debug.Module{Path: "../dep", Version: "(devel)"}}}
	})
	c := consistentCatalog(t, bi, nil)
	c.opts.Snapshot = withModule(t, c.opts.Snapshot.(fstest.MapFS), codesnap.Module{Path: depPath,
		Version: "v0.0.0-00010101000000-000000000000", Replace: "../dep", Local: true})
	d := define(t, c, depPath+".Hello")
	if d.Consistency.Status != StatusUnverified || !strings.Contains(d.Consistency.Reason, "replaced by the local directory ../dep") {
		t.Errorf("local replace: %+v", d.Consistency)
	}
	c = consistentCatalog(t, bi, shift(depPath+".Hello", 3))
	c.opts.Snapshot = withModule(t, c.opts.Snapshot.(fstest.MapFS), codesnap.Module{Path: depPath,
		Version: "v0.0.0-00010101000000-000000000000", Replace: "../dep", Local: true})
	if d := define(t, c, depPath+".Hello"); d.Consistency.Status != StatusStale {
		t.Errorf("local replace, moved: %+v", d.Consistency)
	}
}

// withModule replaces the module of the same path in the manifest of fsys.
func withModule(t *testing.T, fsys fstest.MapFS, m codesnap.Module) fstest.MapFS {
	t.Helper()
	var man codesnap.Manifest
	if err := json.Unmarshal(fsys[codesnap.ManifestName].Data, &man); err != nil {
		t.Fatal(err)
	}
	for i := range man.Modules {
		if man.Modules[i].Path == m.Path {
			man.Modules[i] = m
		}
	}
	data, err := json.Marshal(man)
	if err != nil {
		t.Fatal(err)
	}
	fsys[codesnap.ManifestName] = &fstest.MapFile{Data: data}
	return fsys
}
