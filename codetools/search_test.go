package codetools

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestSearch(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	// Case-insensitive literal match over documentation.
	res, err := c.Search(ctx, SearchQuery{Query: "PTR DOUBLES"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || len(res.Results) != 1 || res.Results[0].Name != fixturePath+".(*T).Ptr" {
		t.Fatalf("doc search = %+v", res.Results)
	}
	h := res.Results[0]
	if h.Kind != KindMethod || h.Source != SourceSnapshot || h.Package != fixturePath || !h.Linked ||
		h.File != fixturePath+"/shapes.go" || h.Line == 0 || h.Doc != "Ptr doubles N; it has a pointer receiver." {
		t.Errorf("hit = %+v", h)
	}
	// Literal: regexp metacharacters are not special.
	if res, _ := c.Search(ctx, SearchQuery{Query: "(*t).ptr"}); res.Total != 1 {
		t.Errorf("literal (*t).ptr total = %d", res.Total)
	}
	if res, _ := c.Search(ctx, SearchQuery{Query: ".*"}); res.Total != 0 {
		t.Errorf(".* total = %d", res.Total)
	}
	// Paging over every entry of the fixture package.
	all, err := c.Search(ctx, SearchQuery{Query: fixturePath + ".", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total < 15 || all.More || len(all.Results) != all.Total {
		t.Fatalf("all: total=%d results=%d more=%v", all.Total, len(all.Results), all.More)
	}
	var paged []string
	for off := 0; ; {
		res, err := c.Search(ctx, SearchQuery{Query: fixturePath + ".", Limit: 4, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != all.Total {
			t.Fatalf("total changed: %d", res.Total)
		}
		for _, h := range res.Results {
			paged = append(paged, h.Name)
		}
		if !res.More {
			if res.NextOffset != nil {
				t.Fatal("nextOffset on last page")
			}
			break
		}
		if *res.NextOffset != off+4 {
			t.Fatalf("nextOffset = %d", *res.NextOffset)
		}
		off = *res.NextOffset
	}
	for i, h := range all.Results {
		if paged[i] != h.Name {
			t.Fatalf("page order differs at %d: %s vs %s", i, paged[i], h.Name)
		}
		if i > 0 && all.Results[i-1].Name >= h.Name {
			t.Fatalf("results not in id order: %s, %s", all.Results[i-1].Name, h.Name)
		}
		if !strings.Contains(strings.ToLower(h.Name+" "+h.Doc), fixturePath+".") {
			t.Errorf("non-matching hit %s", h.Name)
		}
	}
	// Offset past the end is an empty page.
	if res, _ := c.Search(ctx, SearchQuery{Query: "fixture", Offset: 1000}); len(res.Results) != 0 || res.More {
		t.Errorf("offset past end: %+v", res)
	}
	for _, q := range []SearchQuery{{}, {Query: "x", Limit: -1}, {Query: "x", Limit: 101}, {Query: "x", Offset: -1}, {Query: "a\x00"}} {
		if _, err := c.Search(ctx, q); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Search(%+v): err = %v", q, err)
		}
	}
}

func TestSearchCoverage(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	res, err := c.Search(ctx, SearchQuery{Query: "fixture"})
	if err != nil {
		t.Fatal(err)
	}
	cov := res.Coverage
	x, _ := c.index(ctx)
	var rt, snap, kinds int
	for _, e := range x.entries {
		if e.sources&srcRuntime != 0 {
			rt++
		}
		if e.sources&srcSnapshot != 0 {
			snap++
		}
		if e.kind == kConst {
			kinds++
		}
		if isAbs(e.file) || isAbs(e.rtFile) {
			t.Errorf("absolute path in %s: %q %q", e.id, e.file, e.rtFile)
		}
	}
	// Runtime entries: main, init.0, init.1, T.Value, (*T).Ptr, Map, (*List).Push, sub.Helper, onlyInBinary, fmt.Println.
	if cov.BySource[SourceRuntime] != 10 || rt != 10 || cov.BySource[SourceSnapshot] != snap || cov.ByKind[KindConst] != 5 || kinds != 5 {
		t.Errorf("coverage = %+v (runtime %d snapshot %d)", cov, rt, snap)
	}
	if cov.CatalogEntries != len(x.entries) || cov.MaxEntries != DefaultMaxEntries || cov.Truncated || !cov.Snapshot {
		t.Errorf("coverage = %+v", cov)
	}
	if fmt.Sprint(cov.PackagesWithoutSource) != "[fmt]" || cov.PackagesWithoutSourceCount != 1 {
		t.Errorf("packagesWithoutSource = %v", cov.PackagesWithoutSource)
	}
}

func TestTruncation(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	c.max = 5
	c.SetTools([]ToolDoc{{Name: "zz_tool", Description: "a tool"}})
	if err := c.Register(Doc{Name: "zz notes", Documentation: "free text"}); err != nil {
		t.Fatal(err)
	}
	x, err := c.index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.entries) != 5 || !x.cov.Truncated || x.cov.DroppedEntries == 0 || x.cov.CatalogEntries != 5 {
		t.Fatalf("truncated index: %d entries, cov %+v", len(x.entries), x.cov)
	}
	// Registered entries are kept first, then snapshot entries by id;
	// runtime-only entries (fmt.Println, onlyInBinary) go first.
	var ids []string
	for _, e := range x.entries {
		ids = append(ids, e.id)
		if e.sources&(srcRegistered|srcSnapshot) == 0 {
			t.Errorf("runtime-only entry %s kept while snapshot entries were dropped", e.id)
		}
	}
	want := []string{"example.com/fixture", "example.com/fixture.(*List).Push", "example.com/fixture.(*T).Ptr", "tool:zz_tool", "zz notes"}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("kept %v, want %v", ids, want)
	}
}

func TestRegistered(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	c.SetTools([]ToolDoc{{Name: "code_search", Title: "Code search", Description: SearchToolDescription,
		InputSchema: []byte(SearchInputSchema)}})
	if err := c.Register(Doc{Name: "ns_returnredirect", Documentation: "Redirects the client.", Definition: "proc ns_returnredirect {url} {}"}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Search(ctx, SearchQuery{Query: "literal case-insensitive"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Results[0].Name != "tool:code_search" || res.Results[0].Kind != KindTool || res.Results[0].Source != SourceRegistered {
		t.Fatalf("tool search = %+v", res.Results)
	}
	d := define(t, c, "tool:code_search")
	if !strings.Contains(d.Definition, `"inputSchema": {`) || d.Source != SourceRegistered {
		t.Errorf("tool definition = %s", d.Definition)
	}
	if !strings.Contains(d.Definition, `"minimum": 1`) || !strings.HasPrefix(d.Documentation, "Code search. Search the Go code") {
		t.Errorf("tool definition/doc = %s / %s", d.Definition, d.Documentation)
	}
	d = define(t, c, "ns_returnredirect")
	if d.Kind != KindDoc || d.Definition != "proc ns_returnredirect {url} {}" || d.Documentation != "Redirects the client." {
		t.Errorf("registered doc = %+v", d)
	}
	// Replacing tools removes old tool entries.
	c.SetTools(nil)
	if _, err := c.Definition(ctx, DefinitionQuery{Name: "tool:code_search"}); !errors.Is(err, ErrUnknownName) {
		t.Errorf("after SetTools(nil): %v", err)
	}
	for _, bad := range []Doc{{}, {Name: "x", File: "/abs/path.go"}, {Name: "x", Kind: "bogus"}, {Name: "x", Line: -1}} {
		if err := c.Register(bad); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Register(%+v) = %v", bad, err)
		}
	}
	// Options.Docs errors are reported in coverage.
	c2 := NewCatalog(&Options{Docs: []Doc{{Name: "ok"}, {Name: ""}}, BuildInfo: fixtureBuildInfo("")})
	c2.loadRuntime = func() (*runtimeTable, error) { return nil, errors.New("no table") }
	res, err = c2.Search(ctx, SearchQuery{Query: "ok"})
	if err != nil || res.Coverage.RegisteredError == "" || res.Coverage.RuntimeError != "no table" || res.Total != 1 {
		t.Errorf("c2: err=%v cov=%+v", err, res.Coverage)
	}
}
