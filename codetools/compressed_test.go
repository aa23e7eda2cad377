package codetools

import (
	"bytes"
	"compress/gzip"
	"context"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/embedmcp/mcp/internal/codesnap"
)

// compressSnapshot stores the index and the src/ files of fsys
// compressed, as mcpsnapshot writes them.
func compressSnapshot(t *testing.T, fsys fstest.MapFS) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	for name, f := range fsys {
		if name != codesnap.IndexName && !strings.HasPrefix(name, "src/") {
			out[name] = f
			continue
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(f.Data)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		out[name+codesnap.CompressedSuffix] = &fstest.MapFile{Data: b.Bytes()}
	}
	return out
}

// TestCompressedSnapshot: a catalog over a snapshot stored compressed
// answers searches, definitions and files as over the same snapshot
// stored plain.
func TestCompressedSnapshot(t *testing.T) {
	plain := fixtureSnapshot(t, nil)
	zipped := compressSnapshot(t, plain)
	if _, ok := zipped["src/"+fixturePath+"/shapes.go"+codesnap.SourceSuffix]; ok {
		t.Fatal("the fixture was not compressed")
	}
	ctx := context.Background()
	cats := [2]*Catalog{NewCatalog(&Options{Snapshot: plain}), NewCatalog(&Options{Snapshot: zipped})}
	var answers [2][]any
	for i, c := range cats {
		res, err := c.Search(ctx, SearchQuery{Query: "pointer receiver"})
		if err != nil {
			t.Fatal(err)
		}
		def, err := c.Definition(ctx, DefinitionQuery{Name: fixturePath + ".(*T).Ptr"})
		if err != nil {
			t.Fatal(err)
		}
		def.ObservedAt = 0 // the time of the answer: the two may fall in different seconds
		file, err := c.File(ctx, FileQuery{Path: "shapes.go", StartLine: 1, EndLine: 400})
		if err != nil {
			t.Fatal(err)
		}
		again, err := c.File(ctx, FileQuery{Path: "shapes.go", StartLine: 3, EndLine: 5})
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Warm(ctx)
		if err != nil {
			t.Fatal(err)
		}
		answers[i] = []any{res.Listing(), def, file, again, st.SnapshotError}
	}
	if answers[0][4] != "" || answers[1][4] != "" {
		t.Fatalf("snapshot errors: %q %q", answers[0][4], answers[1][4])
	}
	if !strings.Contains(answers[1][2].(*FileText).Text, "Ptr doubles N") {
		t.Errorf("compressed file text:\n%s", answers[1][2].(*FileText).Text)
	}
	for j := range answers[0] {
		if !reflect.DeepEqual(answers[0][j], answers[1][j]) {
			t.Errorf("answer %d differs:\nplain      %+v\ncompressed %+v", j, answers[0][j], answers[1][j])
		}
	}
}
