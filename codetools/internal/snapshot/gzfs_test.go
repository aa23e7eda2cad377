package snapshot

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCompressedFS: a file stored compressed reads as its content under
// its plain name, with its size; a plain file reads as it is; a file
// absent in both forms is fs.ErrNotExist; a corrupt one is an error.
func TestCompressedFS(t *testing.T) {
	long := strings.Repeat("package p\n\nfunc F() {}\n", 1000)
	fsys := NewFS(fstest.MapFS{
		"src/p/a.go.txt.gz": {Data: gz(t, long)},
		"src/p/b.go.txt":    {Data: []byte("plain")},
		"bad.txt.gz":        {Data: []byte("not gzip")},
	})
	for name, want := range map[string]string{"src/p/a.go.txt": long, "src/p/b.go.txt": "plain"} {
		data, err := fs.ReadFile(fsys, name)
		if err != nil || string(data) != want {
			t.Errorf("ReadFile(%s) = %d bytes, %v", name, len(data), err)
		}
		fi, err := fs.Stat(fsys, name)
		if err != nil || fi.Size() != int64(len(want)) {
			t.Errorf("Stat(%s) = %v, %v", name, fi, err)
		}
		in, err := Inflate(fsys, name)
		if err != nil || string(in) != want {
			t.Errorf("Inflate(%s) = %d bytes, %v", name, len(in), err)
		}
	}
	if _, err := fsys.Open("missing.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := fs.ReadFile(fsys, "bad.txt"); err == nil {
		t.Error("a corrupt compressed file reads without error")
	}
	// Read twice through the cache; a stream read after does not disturb it.
	a1, _ := Inflate(fsys, "src/p/a.go.txt")
	f, err := fsys.Open("src/p/a.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 9)
	if _, err := io.ReadFull(f, part); err != nil || string(part) != "package p" {
		t.Errorf("read from cache: %q %v", part, err)
	}
	f.Close()
	if a2, _ := Inflate(fsys, "src/p/a.go.txt"); &a1[0] != &a2[0] {
		t.Error("the second Inflate inflated again")
	}
}

// TestCompressedCacheBound: the cache keeps at most cacheFiles files.
func TestCompressedCacheBound(t *testing.T) {
	m := fstest.MapFS{}
	for i := range cacheFiles * 2 {
		m["f"+string(rune('A'+i%26))+strings.Repeat("x", i/26)+".gz"] = &fstest.MapFile{Data: gz(t, "content")}
	}
	g := NewFS(m).(*gzFS)
	for name := range m {
		if _, err := Inflate(g, strings.TrimSuffix(name, ".gz")); err != nil {
			t.Fatal(err)
		}
	}
	if len(g.cache) != cacheFiles || len(g.order) != cacheFiles || g.size != cacheFiles*len("content") {
		t.Errorf("cache holds %d files (%d in order, %d bytes), bound %d", len(g.cache), len(g.order), g.size, cacheFiles)
	}
}
