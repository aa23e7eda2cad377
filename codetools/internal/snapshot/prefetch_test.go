package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// TestReadDeclsPrefetch: over a compressed snapshot of 40 files of
// different sizes, ReadDecls gets every file's content right and finds
// each one read ahead.
func TestReadDeclsPrefetch(t *testing.T) {
	man := codesnap.Manifest{Format: codesnap.Format, MainPackage: "example.com/p",
		Modules: []codesnap.Module{{Path: "example.com/p", Main: true}}}
	pkg := codesnap.Package{ImportPath: "example.com/p", Name: "p", Module: "example.com/p"}
	fsys := fstest.MapFS{}
	var srcs []codeindex.Source
	want := map[string]string{}
	for i := range 40 {
		name := fmt.Sprintf("f%02d.go", i)
		src := fmt.Sprintf("package p\n\n// F%d is documented.\nfunc F%d() { _ = %q }\n", i, i, strings.Repeat("x", (i*7919)%3000))
		p := "src/example.com/p/" + name + codesnap.SourceSuffix
		sum := sha256.Sum256([]byte(src))
		pkg.Files = append(pkg.Files, codesnap.File{Name: name, Path: p, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(src))})
		fsys[p+codesnap.CompressedSuffix] = &fstest.MapFile{Data: gz(t, src)}
		srcs = append(srcs, codeindex.Source{Path: p, Name: name, Src: []byte(src)})
		want[fmt.Sprintf("F%d", i)] = fmt.Sprintf("F%d is documented.", i)
	}
	man.Packages = []codesnap.Package{pkg}
	index, err := codeindex.Build(srcs)
	if err != nil {
		t.Fatal(err)
	}
	fsys[codesnap.IndexName+codesnap.CompressedSuffix] = &fstest.MapFile{Data: gz(t, string(index))}
	data, _ := json.Marshal(man)
	fsys[codesnap.ManifestName] = &fstest.MapFile{Data: data}

	s, err := Open(fsys, Interner{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hits, misses := -1, -1
	s.onPrefetch = func(h, m int) { hits, misses = h, m }
	got := map[string]string{}
	err = s.ReadDecls(func(int) {}, func(fi int32, d codeindex.Decl, src []byte) {
		if d.DocEnd > d.DocStart {
			got[d.Name] = strings.TrimSpace(strings.TrimPrefix(string(src[d.DocStart:d.DocEnd]), "//"))
		}
	})
	if err != nil || s.Warning != nil {
		t.Fatal(err, s.Warning)
	}
	for name, doc := range want {
		if got[name] != doc {
			t.Errorf("%s: doc %q, want %q", name, got[name], doc)
		}
	}
	if hits != 40 || misses != 0 {
		t.Errorf("%d files read ahead, %d not, want 40 and 0", hits, misses)
	}
}
