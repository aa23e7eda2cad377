package codetools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/embedmcp/mcp/internal/codesnap"
)

func TestFileBounds(t *testing.T) {
	var long strings.Builder
	long.WriteString("package main\n\n")
	for i := 3; i <= 1000; i++ {
		fmt.Fprintf(&long, "// line %d\n", i)
	}
	wide := "package main\n\nvar Wide = `" + strings.Repeat("é", 40<<10) + "`\n"
	var bulky strings.Builder
	bulky.WriteString("package main\n\n")
	for i := 3; i <= 300; i++ {
		fmt.Fprintf(&bulky, "// %d %s\n", i, strings.Repeat("x", 200))
	}
	c := newFixtureCatalog(t, "", map[string]string{"long.go": long.String(), "wide.go": wide, "bulky.go": bulky.String()})
	addOtherFile(t, c.opts.Snapshot.(fstest.MapFS), fixturePath, "blob.s", "TEXT ·f(SB)\x00\x01\n")
	ctx := context.Background()

	// 400 lines at most; nextArguments continue where the answer stopped.
	f, err := c.File(ctx, FileQuery{Path: "long.go"})
	if err != nil {
		t.Fatal(err)
	}
	if f.StartLine != 1 || f.EndLine != MaxFileLines || !f.More || f.NextArguments == nil || f.NextArguments.StartLine != MaxFileLines+1 ||
		f.TotalLines != 1000 || strings.Count(f.Text, "\n") != MaxFileLines {
		t.Errorf("long.go: lines %d-%d of %d, more %v, next %+v", f.StartLine, f.EndLine, f.TotalLines, f.More, f.NextArguments)
	}
	next, err := c.File(ctx, *f.NextArguments)
	if err != nil || !strings.HasPrefix(next.Text, "// line 401\n") {
		t.Fatalf("next page: %v", err)
	}
	last, err := c.File(ctx, FileQuery{Path: "long.go", StartLine: 990})
	if err != nil || last.EndLine != 1000 || last.More || last.NextArguments != nil {
		t.Errorf("last lines: %+v %v", last, err)
	}

	// 32 KiB at most, in whole lines.
	b, err := c.File(ctx, FileQuery{Path: "bulky.go", StartLine: 1, EndLine: 300})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Text) > MaxFileBytes || !b.More || b.EndLine >= 300 || !strings.HasSuffix(b.Text, "\n") || b.NextArguments.EndLine != 300 {
		t.Errorf("bulky.go: %d bytes, lines %d-%d, more %v", len(b.Text), b.StartLine, b.EndLine, b.More)
	}

	// A line longer than an answer is cut on a character boundary.
	w, err := c.File(ctx, FileQuery{Path: "wide.go", StartLine: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !w.LineCut || w.EndLine != 3 || len(w.Text) > MaxFileBytes || !strings.HasSuffix(w.Text, "é") {
		t.Errorf("wide.go: cut %v, lines %d-%d, %d bytes", w.LineCut, w.StartLine, w.EndLine, len(w.Text))
	}

	if _, err := c.File(ctx, FileQuery{Path: "blob.s"}); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "binary") {
		t.Errorf("a file with NUL bytes: %v", err)
	}
}

// addOtherFile adds a file other than Go to package pkg of a test snapshot.
func addOtherFile(t *testing.T, fsys fstest.MapFS, pkg, name, content string) {
	t.Helper()
	var man codesnap.Manifest
	if err := json.Unmarshal(fsys[codesnap.ManifestName].Data, &man); err != nil {
		t.Fatal(err)
	}
	loc := "src/" + pkg + "/" + name + codesnap.SourceSuffix
	fsys[loc] = &fstest.MapFile{Data: []byte(content)}
	sum := sha256.Sum256([]byte(content))
	for i := range man.Packages {
		if man.Packages[i].ImportPath == pkg {
			man.Packages[i].OtherFiles = append(man.Packages[i].OtherFiles,
				codesnap.File{Name: name, Path: loc, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(content))})
		}
	}
	data, err := json.Marshal(man)
	if err != nil {
		t.Fatal(err)
	}
	fsys[codesnap.ManifestName] = &fstest.MapFile{Data: data}
}

func TestDefinitionListPages(t *testing.T) {
	var src strings.Builder
	src.WriteString("package main\n\n")
	for i := range 120 {
		fmt.Fprintf(&src, "// F%03d is function %d.\nfunc F%03d() {}\n\n", i, i, i)
	}
	c := newFixtureCatalog(t, "", map[string]string{"many.go": src.String()})
	var ids []string
	offset := 0
	for range 5 {
		d, err := c.Definition(context.Background(), DefinitionQuery{Name: fixturePath, ListOffset: offset})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Declarations) > maxListed {
			t.Fatalf("%d declarations in one answer", len(d.Declarations))
		}
		for _, it := range d.Declarations {
			if strings.HasPrefix(it.ID, fixturePath+".F") {
				ids = append(ids, it.ID)
			}
		}
		if d.NextListOffset == nil {
			break
		}
		offset = *d.NextListOffset
	}
	if len(ids) != 120 || ids[0] != fixturePath+".F000" || ids[119] != fixturePath+".F119" {
		t.Errorf("paged declarations: %d, first %v", len(ids), ids[:min(3, len(ids))])
	}
}

// handler types of the route test.
type statusHandler struct{}

func (*statusHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}

type items struct{}

func (items) list(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Items", r.URL.Path)
	w.WriteHeader(http.StatusAccepted)
}

func serveDelay(w http.ResponseWriter, _ *http.Request) {}

func TestServeMuxRoutes(t *testing.T) {
	c := NewCatalog(nil) // the function table of this test binary
	mux := NewServeMux(c, nil)
	mux.HandleFunc("GET /delay/{n}", serveDelay)
	mux.Handle("/status", &statusHandler{})
	mux.HandleFunc("GET /items/", items{}.list)
	mux.HandleFunc("POST /items/{id}/tags/{$}", func(w http.ResponseWriter, _ *http.Request) {})
	mux.Handle("/static/", http.StripPrefix("/static/", http.NotFoundHandler()))
	const pkg = "github.com/embedmcp/mcp/codetools"
	for _, tc := range []struct{ query, scope, want, route string }{
		{"GET /delay/3", "", pkg + ".serveDelay", "GET /delay/{n}"},
		{"/delay/3", "", pkg + ".serveDelay", "GET /delay/{n}"},
		{"HEAD /delay/3", "", pkg + ".serveDelay", "GET /delay/{n}"},
		{"/status", "", pkg + ".(*statusHandler).ServeHTTP", "/status"},
		{"/items/a/b", "", pkg + ".items.list", "GET /items/"},
		{"POST /items/7/tags/", "", pkg + ".TestServeMuxRoutes", "POST /items/{id}/tags/{$}"},
		{"delay", "routes", pkg + ".serveDelay", "GET /delay/{n}"},
		{"serveDelay", "routes", pkg + ".serveDelay", "GET /delay/{n}"},
		{"/static/app.js", "", "net/http.StripPrefix", "/static/"},
	} {
		res, err := c.Search(context.Background(), SearchQuery{Query: tc.query, Scope: tc.scope})
		if err != nil {
			t.Fatal(err)
		}
		if res.Match != MatchRoute || len(res.Results) == 0 || res.Results[0].Name != tc.want || res.Results[0].Route != tc.route {
			t.Errorf("%q: match %s, %+v", tc.query, res.Match, res.Results)
		}
	}
	// The closure's own line is given.
	res, _ := c.Search(context.Background(), SearchQuery{Query: "POST /items/7/tags/"})
	if len(res.Results) == 0 || !strings.HasPrefix(res.Results[0].At, "navbounds_test.go:") {
		t.Errorf("closure route at %+v", res.Results)
	}
	// The mux serves as an http.ServeMux does.
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	if rec.Code != http.StatusNoContent {
		t.Errorf("GET /status: %d", rec.Code)
	}
	// Bad routes are refused, and add nothing.
	for _, r := range []Route{{Pattern: "", Handler: http.NotFoundHandler()}, {Pattern: "/x"},
		{Pattern: strings.Repeat("/x", 600), Handler: http.NotFoundHandler()}} {
		if err := c.AddRoutes(r, Route{Pattern: "/ok", Code: "x.y"}); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%.40v: %v", r, err)
		}
	}
	if res, _ := c.Search(context.Background(), SearchQuery{Query: "/ok", Scope: "routes"}); res.Total != 0 {
		t.Errorf("a refused batch added routes: %+v", res.Results)
	}
}

// TestRuntimeImportGraph: a host that links codetools links neither the
// analysis of the snapshot generator (golang.org/x/tools, go/types) nor
// the generator itself.
func TestRuntimeImportGraph(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "golang.org/x/tools") || dep == "go/types" || strings.HasSuffix(dep, "/internal/coderefs") ||
			strings.HasSuffix(dep, "/navcheck") {
			t.Errorf("codetools imports %s", dep)
		}
	}
}

// TestSnapshotWithoutReferences: a snapshot of an earlier mcpsnapshot has
// no references; code_references says to regenerate it, the other tools
// work, and a type's definition says what it cannot list.
func TestSnapshotWithoutReferences(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	ctx := context.Background()
	_, err := c.References(ctx, ReferencesQuery{Name: "main.main", Relation: "callers"})
	if err == nil || !strings.Contains(err.Error(), "regenerate") || errors.Is(err, ErrInvalidArgument) {
		t.Errorf("references without a references section: %v", err)
	}
	if _, err := c.File(ctx, FileQuery{Path: "main.go"}); err != nil {
		t.Error(err)
	}
	d, err := c.Definition(ctx, DefinitionQuery{Name: fixturePath + ".T"})
	if err != nil || len(d.Methods) == 0 || !strings.Contains(d.Limitations, "not the interfaces it implements") {
		t.Errorf("a type without references: %+v %v", d, err)
	}
	runtimeOnly := NewCatalog(nil)
	if _, err := runtimeOnly.References(ctx, ReferencesQuery{Name: "main.main", Relation: "callers"}); err == nil ||
		!strings.Contains(err.Error(), "no source snapshot") {
		t.Errorf("references without a snapshot: %v", err)
	}
}
