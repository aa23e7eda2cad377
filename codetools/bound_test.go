package codetools

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// boundModule is a module of boundSnapshot: n functions in one package,
// linked (in the function table) or not.
type boundModule struct {
	path   string
	n      int
	linked bool
}

// boundSnapshot returns a snapshot of mods (the first one the main module)
// and the function table of their linked functions.
func boundSnapshot(tb testing.TB, mods []boundModule) (fstest.MapFS, []index.RuntimeFunc) {
	tb.Helper()
	man := codesnap.Manifest{MainPackage: mods[0].path, GOOS: "linux", GOARCH: "amd64"}
	var funcs []index.RuntimeFunc
	var files []srcFile
	given := map[string][]codeindex.Decl{}
	for mi, m := range mods {
		man.Modules = append(man.Modules, codesnap.Module{Path: m.path, Main: mi == 0})
		var b strings.Builder
		b.WriteString("package p\n\n")
		decls := []codeindex.Decl{{Kind: codeindex.Package, Line: 1, EndLine: 1, End: int32(len("package p"))}}
		line := 3
		for i := range m.n {
			body := fmt.Sprintf("func F%d(x int) int {\n\treturn x * 2\n}", i)
			off := int32(b.Len())
			decls = append(decls, codeindex.Decl{Kind: codeindex.Func, Name: fmt.Sprintf("F%d", i), Line: int32(line),
				EndLine: int32(line + 2), Start: off, End: off + int32(len(body))})
			b.WriteString(body + "\n\n")
			if m.linked {
				funcs = append(funcs, index.RuntimeFunc{Name: fmt.Sprintf("%s/p.F%d", m.path, i),
					File: "/build/" + m.path + "/p/p.go", Line: line, MinLine: int32(line + 1), MaxLine: int32(line + 1)})
			}
			line += 4
		}
		files = append(files, srcFile{m.path + "/p", "p.go", b.String()})
		given[m.path+"/p/p.go"] = decls
	}
	return makeIndexedSnapshot(tb, man, files, given), funcs
}

// TestEntryBoundOrder checks the order in which Options.MaxEntries keeps
// entries: registered, the main module (here sorting last by id), then
// linked functions of other modules, then the rest; and that a dropped
// name is answered as dropped, never as unknown or not linked.
func TestEntryBoundOrder(t *testing.T) {
	mods := []boundModule{
		{path: "zz.example/host", n: 300, linked: true},
		{path: "aa.example/unlinked", n: 400},
		{path: "mm.example/linked", n: 400, linked: true},
	}
	fsys, funcs := boundSnapshot(t, mods)
	var logs bytes.Buffer
	bi := &debug.BuildInfo{GoVersion: "go1.26", Path: mods[0].path, Main: debug.Module{Path: mods[0].path, Version: "(devel)"}}
	const max = 900
	c := NewCatalog(&Options{Snapshot: fsys, BuildInfo: bi, MaxEntries: max,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Docs:   []Doc{{Name: "doc:runbook", Documentation: "how to restart the gateway"}}})
	c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{Funcs: funcs}, nil }
	x, err := c.index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Entries) != max || !x.cov.Truncated || x.cov.DroppedEntries != len(x.dropped) || len(x.dropped) == 0 {
		t.Fatalf("entries %d, truncated %v, dropped %d (%d ids)", len(x.Entries), x.cov.Truncated, x.cov.DroppedEntries, len(x.dropped))
	}
	count := map[string]int{}
	for i := range x.Entries {
		for _, m := range mods {
			if strings.HasPrefix(x.Entries[i].ID, m.path) {
				count[m.path]++
			}
		}
	}
	// Each module has n functions and a package entry; the registered
	// document comes first, so the linked module loses the rest.
	if count["zz.example/host"] != 301 || count["mm.example/linked"] != 401 || count["aa.example/unlinked"] != max-1-301-401 {
		t.Errorf("kept per module: %v", count)
	}
	if _, ok := x.Lookup("doc:runbook"); !ok {
		t.Error("the registered document was dropped")
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), fmt.Sprintf("dropped=%d", len(x.dropped))) {
		t.Errorf("start log does not warn of the dropped entries:\n%s", logs.String())
	}
	res, err := c.Search(ctx, SearchQuery{Query: "F399"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Coverage.Truncated || !strings.Contains(res.Listing(), fmt.Sprintf("%d left out by its bound", len(x.dropped))) {
		t.Errorf("search answer does not say entries were left out: %+v\n%s", res.Coverage, res.Listing())
	}
	for _, id := range x.dropped {
		_, err := c.Definition(ctx, DefinitionQuery{Name: id})
		if !errors.Is(err, ErrDroppedName) || errors.Is(err, ErrUnknownName) || strings.Contains(err.Error(), "not linked") {
			t.Fatalf("Definition(%q) = %v, want ErrDroppedName", id, err)
		}
		// (This snapshot holds no references, which References says
		// first; it must not call the name unknown either.)
		_, err = c.References(ctx, ReferencesQuery{Name: id, Relation: "callers"})
		if err == nil || errors.Is(err, ErrUnknownName) || strings.Contains(err.Error(), "not linked") {
			t.Fatalf("References(%q) = %v", id, err)
		}
	}
	// A stack-trace spelling of a dropped function is recognised too.
	if _, err := c.Definition(ctx, DefinitionQuery{Name: x.dropped[0] + "(0x1)"}); !errors.Is(err, ErrDroppedName) {
		t.Errorf("stack-trace name of a dropped function: %v", err)
	}
	// retainedBytes counts the search index beside the sources.
	st, err := c.Warm(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if base := x.base.retained(); x.Index.Size() < uint64(len(x.Hay)) || st.RetainedBytes < base+x.Index.Size() {
		t.Errorf("retainedBytes %d, want ≥ sources %d + search index %d", st.RetainedBytes, base, x.Index.Size())
	}
	// A name nobody has stays unknown.
	if _, err := c.Definition(ctx, DefinitionQuery{Name: "aa.example/unlinked/p.Nope"}); !errors.Is(err, ErrUnknownName) {
		t.Errorf("unknown name: %v", err)
	}
}

// TestNoBoundAtServiceSize checks that with the default bound a catalog
// far above the former 50 000 entries keeps every declaration and every
// linked function, whatever its module path sorts as.
func TestNoBoundAtServiceSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 60 000-entry catalog")
	}
	mods := []boundModule{
		{path: "zz.example/host", n: 2000, linked: true},
		{path: "aa.example/big", n: 30000},
		{path: "mm.example/linked", n: 28000, linked: true},
	}
	fsys, funcs := boundSnapshot(t, mods)
	bi := &debug.BuildInfo{GoVersion: "go1.26", Path: mods[0].path, Main: debug.Module{Path: mods[0].path, Version: "(devel)"}}
	c := NewCatalog(&Options{Snapshot: fsys, BuildInfo: bi})
	c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{Funcs: funcs}, nil }
	x, err := c.index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if x.cov.Truncated || len(x.Entries) != 60000+3 {
		t.Fatalf("entries %d, truncated %v", len(x.Entries), x.cov.Truncated)
	}
	for _, name := range []string{"zz.example/host/p.F1999", "mm.example/linked/p.F27999", "aa.example/big/p.F29999"} {
		d := define(t, c, name)
		if name != "aa.example/big/p.F29999" && !d.Linked {
			t.Errorf("%s: not linked: %s", name, d.LinkedEvidence)
		}
	}
	res, err := c.Search(ctx, SearchQuery{Query: "F27999"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].Name != "mm.example/linked/p.F27999" {
		t.Errorf("search F27999: %+v", res.Results)
	}
}
