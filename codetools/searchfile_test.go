package codetools

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// withSearchFile returns a copy of fsys holding the search file that
// mcpsnapshot would write for src.
func withSearchFile(t *testing.T, fsys, src fstest.MapFS, cut int) fstest.MapFS {
	t.Helper()
	data, err := index.WriteSearchFile(src)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case cut > 0:
		data = data[:len(data)-cut]
	case cut < 0:
		data[len(data)/3] ^= 0x55 // a byte in the declarations
	}
	out := maps.Clone(fsys)
	out[codesnap.SearchName] = &fstest.MapFile{Data: data}
	return out
}

// searchFileCatalog returns a catalog over snap and the fixture's
// function table, with docs registered.
func searchFileCatalog(t *testing.T, snap fstest.MapFS, docs []Doc) *Catalog {
	c := NewCatalog(&Options{Snapshot: snap, BuildInfo: fixtureBuildInfo(""), Docs: docs,
		Server: "test", Now: func() time.Time { return time.Unix(1700000000, 0) }})
	funcs := fixtureRuntime(t)
	c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{Funcs: funcs}, nil }
	return c
}

// TestSearchFile: a catalog over a snapshot with its search file
// (documentation and term index built by mcpsnapshot) answers searches
// as one that builds them from the source; a search file of another
// snapshot, or a damaged one, is not used, says why, and changes no
// answer; a registered document on a declaration makes the catalog index
// that declaration anew.
func TestSearchFile(t *testing.T) {
	plain := fixtureSnapshot(t, nil)
	other := fixtureSnapshot(t, map[string]string{"extra.go": "package main\n\n// Extra adds a pointer receiver.\nfunc Extra() {}\n"})
	queries := []string{"pointer receiver", "Ptr", "value", "helper", "generic list push", "map", "shapes", "sub",
		"onlyInBinary", "Println", "doubles"}
	registered := []Doc{{Name: fixturePath + ".(*T).Ptr", Documentation: "Ptr scales the shape by a factor of two."}}
	cases := []struct {
		name    string
		snap    fstest.MapFS
		docs    []Doc
		used    bool
		wantErr error
	}{
		{"served", withSearchFile(t, plain, plain, 0), nil, true, nil},
		{"stale", withSearchFile(t, plain, other, 0), nil, false, index.ErrStaleSearch},
		{"truncated", withSearchFile(t, plain, plain, 7), nil, false, index.ErrBadSearch},
		{"damaged", withSearchFile(t, plain, plain, -1), nil, false, index.ErrBadSearch},
		{"registered", withSearchFile(t, plain, plain, 0), registered, false, nil},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := searchFileCatalog(t, plain, tc.docs)
			got := searchFileCatalog(t, tc.snap, tc.docs)
			for _, q := range queries {
				for _, scope := range []string{"", "all"} {
					a, err := want.Search(ctx, SearchQuery{Query: q, Scope: scope})
					if err != nil {
						t.Fatal(err)
					}
					b, err := got.Search(ctx, SearchQuery{Query: q, Scope: scope})
					if err != nil {
						t.Fatal(err)
					}
					if a.Listing() != b.Listing() {
						t.Errorf("%q (scope %q):\nwithout a search file\n%s\nwith it\n%s", q, scope, a.Listing(), b.Listing())
					}
				}
			}
			x, err := got.index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			w, err := want.index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(x.Search.ByName, w.Search.ByName) {
				t.Errorf("name order %v, want %v", x.Search.ByName, w.Search.ByName)
			}
			if x.base.SnapshotErr != nil {
				t.Errorf("snapshot error %v", x.base.SnapshotErr)
			}
			if !errors.Is(x.base.SearchErr, tc.wantErr) || (tc.wantErr == nil) != (x.base.SearchErr == nil) {
				t.Errorf("search file error %v, want %v", x.base.SearchErr, tc.wantErr)
			}
			if served := x.Search.Terms.Parts() == 2; served != tc.used {
				t.Errorf("the search file's term index served: %v, want %v", served, tc.used)
			}
		})
	}
}

// TestSearchFileDamage: a search file damaged anywhere, its checksum
// made to match, never makes the catalog panic: it is refused, or read
// as it says, and every query is answered.
func TestSearchFileDamage(t *testing.T) {
	plain := fixtureSnapshot(t, nil)
	good, err := index.WriteSearchFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	table := crc32.MakeTable(crc32.Castagnoli)
	ctx := context.Background()
	step := max(1, len(good)/150)
	for pos := 30; pos < len(good)-4; pos += step {
		data := slices.Clone(good)
		data[pos] ^= 0x5a
		body := data[:len(data)-4]
		binary.LittleEndian.PutUint32(data[len(body):], crc32.Checksum(body, table))
		snap := maps.Clone(plain)
		snap[codesnap.SearchName] = &fstest.MapFile{Data: data}
		c := searchFileCatalog(t, snap, nil)
		for _, q := range []string{"pointer receiver", "Ptr", "helper"} {
			if _, err := c.Search(ctx, SearchQuery{Query: q}); err != nil {
				t.Fatalf("byte %d damaged: %q: %v", pos, q, err)
			}
		}
		if _, err := c.Definition(ctx, DefinitionQuery{Name: fixturePath + ".(*T).Ptr"}); err != nil && !errors.Is(err, ErrUnknownName) {
			t.Fatalf("byte %d damaged: definition: %v", pos, err)
		}
	}
}
