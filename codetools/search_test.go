package codetools

import (
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// A catalog of three scopes: the main module example.com/app, a dependency
// module example.com/lib and, from the function table, the standard
// library.
var rankedSources = map[string]map[string]string{
	"example.com/app": {"main.go": `// Command app serves requests.
package main

// Server handles requests.
type Server struct{}

// Handle serves one request.
func (s *Server) Handle() {}

// HandleFunc registers a handler function.
func HandleFunc() {}

// checkBearerToken verifies the bearer token of a request.
func checkBearerToken() bool { return true }

// MaxBodyBytes is the maximum size of a request body.
const MaxBodyBytes = 1 << 20

func main() {}

// prehandle runs before Handle.
func prehandle() {
	_ = 1
	_ = 2
}

var (
	// first is grouped.
	first = 1
	// second is grouped too.
	second = 2
)

func Verify() {}
`},
	"example.com/app/internal/auth": {"auth.go": `// Package auth checks tokens.
package auth

// Token is a bearer token.
type Token string

// Verify checks a token against the configured secret.
func Verify(t Token) bool { return t != "" }
`},
	"example.com/lib": {"lib.go": `// Package lib is a library with a Handle.
package lib

// Handle is the library's handle.
func Handle() {}

// Handler handles things.
type Handler interface{ Handle() }

// handleOne is unexported.
func handleOne() {}
`},
}

func rankedCatalog(t testing.TB) *Catalog {
	t.Helper()
	man := codesnap.Manifest{MainPackage: "example.com/app", GOOS: "linux", GOARCH: "amd64",
		Modules: []codesnap.Module{{Path: "example.com/app", Main: true}, {Path: "example.com/lib", Version: "v1.2.0"}}}
	var files []srcFile
	for _, pkg := range slices.Sorted(maps.Keys(rankedSources)) {
		for _, name := range slices.Sorted(maps.Keys(rankedSources[pkg])) {
			files = append(files, srcFile{pkg, name, rankedSources[pkg][name]})
		}
	}
	fsys := makeSnapshot(t, man, files)
	bi := &debug.BuildInfo{GoVersion: "go1.26", Path: "example.com/app", Main: debug.Module{Path: "example.com/app"},
		Deps: []*debug.Module{{Path: "example.com/lib", Version: "v1.2.0"}}}
	c := NewCatalog(&Options{Snapshot: fsys, BuildInfo: bi, Server: "app"})
	c.loadRuntime = func() (*index.RuntimeTable, error) {
		return &index.RuntimeTable{Funcs: []index.RuntimeFunc{
			{Name: "main.(*Server).Handle", File: "/build/app/main.go", Line: 8},
			{Name: "main.prehandle", File: "/build/app/main.go", Line: 22},
			{Name: "example.com/app/internal/auth.Verify", File: "/build/app/internal/auth/auth.go", Line: 8},
			{Name: "net/http.Handle", File: "/usr/local/go/src/net/http/server.go", Line: 2700},
			{Name: "net/http.(*ServeMux).Handle", File: "/usr/local/go/src/net/http/server.go", Line: 2650},
			{Name: "crypto/tls.(*Conn).Handshake", File: "/usr/local/go/src/crypto/tls/conn.go", Line: 1500},
			{Name: "crypto/tls.(*Conn).handshakeContext", File: "/usr/local/go/src/crypto/tls/conn.go", Line: 1520},
		}}, nil
	}
	c.SetTools([]ToolDoc{{Name: "token_check", Description: "Checks a bearer token."}})
	return c
}

func searchOK(t *testing.T, c *Catalog, q SearchQuery) *SearchResult {
	t.Helper()
	res, err := c.Search(ctx, q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return res
}

func ids(res *SearchResult) []string {
	var out []string
	for _, h := range res.Results {
		out = append(out, h.Name)
	}
	return out
}

// Literal matches are ranked by tier (exact name, prefix, word of the
// name, substring, id, documentation), then main module, other modules,
// standard library, then shorter ids.
func TestLiteralRanking(t *testing.T) {
	c := rankedCatalog(t)
	res := searchOK(t, c, SearchQuery{Query: "Handle", Scope: "all"})
	want := []string{
		"example.com/app.(*Server).Handle", // exact, main
		"example.com/lib.Handle",           // exact, deps
		"example.com/lib.Handler.Handle",   // exact, deps, an interface method
		"net/http.Handle",                  // exact, std
		"net/http.(*ServeMux).Handle",      // exact, std, longer
		"example.com/app.HandleFunc",       // prefix, main
		"example.com/lib.Handler",          // prefix, deps
		"example.com/lib.handleOne",        // prefix, other case
		"example.com/app.prehandle",        // substring of the name
		"example.com/app.Server",           // its documentation, main
		"example.com/lib",                  // the package's documentation, deps
	}
	if got := ids(res); !slices.Equal(got, want) {
		t.Errorf("Handle ranks\n%q\nwant\n%q", got, want)
	}
	if res.Match != MatchLiteral || res.Scope != "all" || res.Total != len(want) {
		t.Errorf("match %s scope %s total %d", res.Match, res.Scope, res.Total)
	}
	// The same query in the default scope leaves the standard library out.
	res = searchOK(t, c, SearchQuery{Query: "handle"})
	if got := ids(res); res.Scope != "main+deps" || slices.Contains(got, "net/http.Handle") || got[0] != "example.com/app.(*Server).Handle" {
		t.Errorf("default scope: %s %q", res.Scope, got)
	}
	// A word of a name at a case change.
	res = searchOK(t, c, SearchQuery{Query: "Func"})
	if got := ids(res); len(got) == 0 || got[0] != "example.com/app.HandleFunc" {
		t.Errorf("Func: %q", got)
	}
	// Paging returns the same order.
	var paged []string
	for off := 0; ; {
		r := searchOK(t, c, SearchQuery{Query: "Handle", Scope: "all", Limit: 2, Offset: off})
		paged = append(paged, ids(r)...)
		if !r.More {
			if r.NextOffset != nil {
				t.Error("nextOffset on the last page")
			}
			break
		}
		off = *r.NextOffset
	}
	if !slices.Equal(paged, want) {
		t.Errorf("paged %q", paged)
	}
	if r := searchOK(t, c, SearchQuery{Query: "Handle", Offset: 1000}); len(r.Results) != 0 || r.More || r.Total == 0 {
		t.Errorf("offset past the end: %+v", r)
	}
}

// Between equal matches of one scope, a function linked into the binary
// comes before one that is not, then the shorter id.
func TestLinkedFirst(t *testing.T) {
	c := rankedCatalog(t)
	res := searchOK(t, c, SearchQuery{Query: "Verify", Kind: "func"})
	if got := ids(res); !slices.Equal(got, []string{"example.com/app/internal/auth.Verify", "example.com/app.Verify"}) {
		t.Errorf("Verify: %q", got)
	}
}

// Qualified names, main. names and stack-trace frames match as exact.
func TestQualifiedNames(t *testing.T) {
	c := rankedCatalog(t)
	for q, want := range map[string]string{
		"(*Server).Handle":                    "example.com/app.(*Server).Handle",
		"Server.Handle":                       "example.com/app.(*Server).Handle",
		"main.(*Server).Handle":               "example.com/app.(*Server).Handle",
		"main.HandleFunc":                     "example.com/app.HandleFunc",
		"app.HandleFunc":                      "example.com/app.HandleFunc",
		"lib.Handle":                          "example.com/lib.Handle",
		"auth.Verify":                         "example.com/app/internal/auth.Verify",
		"example.com/lib.Handle":              "example.com/lib.Handle",
		"main.(*Server).Handle(0xc000010000)": "example.com/app.(*Server).Handle",
	} {
		res := searchOK(t, c, SearchQuery{Query: q})
		if got := ids(res); len(got) == 0 || got[0] != want || res.Match != MatchLiteral {
			t.Errorf("%s: %s %q, want %s first", q, res.Match, got, want)
		}
	}
}

// Several words, or a word that matches nothing literally, are ranked as
// terms over names, documentation, packages and file names.
func TestTermSearch(t *testing.T) {
	c := rankedCatalog(t)
	for q, want := range map[string]string{
		"where is the bearer token checked": "example.com/app.checkBearerToken",
		"max body size":                     "example.com/app.MaxBodyBytes",
		"verify tokens":                     "example.com/app/internal/auth.Verify",
	} {
		res := searchOK(t, c, SearchQuery{Query: q, Limit: 3})
		if got := ids(res); res.Match != MatchTerms || len(got) == 0 || got[0] != want {
			t.Errorf("%q: %s %q, want %s first", q, res.Match, got, want)
		}
	}
	// A single word without a literal match falls back to terms, and says so.
	res := searchOK(t, c, SearchQuery{Query: "maximums"})
	if got := ids(res); res.Match != MatchTerms || len(got) == 0 || got[0] != "example.com/app.MaxBodyBytes" || res.Note == "" {
		t.Errorf("maximums: %s %q %q", res.Match, got, res.Note)
	}
	// Registered tools are found too.
	res = searchOK(t, c, SearchQuery{Query: "check bearer token", Kind: "tool"})
	if got := ids(res); !slices.Equal(got, []string{"tool:token_check"}) {
		t.Errorf("tools: %q", got)
	}
}

// Nothing in main+deps: the standard library answers, with a note; an
// explicit scope is never widened.
func TestScopeWidening(t *testing.T) {
	c := rankedCatalog(t)
	res := searchOK(t, c, SearchQuery{Query: "Handshake"})
	if got := ids(res); res.Scope != "all" || res.Note == "" || len(got) != 2 || got[0] != "crypto/tls.(*Conn).Handshake" {
		t.Errorf("widened: %s %q %q", res.Scope, res.Note, got)
	}
	res = searchOK(t, c, SearchQuery{Query: "Handshake", Scope: "main"})
	if res.Total != 0 || res.Scope != "main" || res.Note != "" {
		t.Errorf("explicit scope widened: %+v", res)
	}
	res = searchOK(t, c, SearchQuery{Query: "handshake", Scope: "std", Kind: "method"})
	if res.Total != 2 {
		t.Errorf("std methods: %q", ids(res))
	}
}

func TestFilters(t *testing.T) {
	c := rankedCatalog(t)
	for _, tt := range []struct {
		q    SearchQuery
		want []string
	}{
		{SearchQuery{Query: "handle", Kind: "type"}, []string{"example.com/lib.Handler", "example.com/app.Server"}},
		{SearchQuery{Query: "Handle", Kind: "func, type"}, []string{"example.com/lib.Handle", "example.com/app.HandleFunc", "example.com/lib.Handler", "example.com/lib.handleOne", "example.com/app.prehandle", "example.com/app.Server"}},
		{SearchQuery{Query: "handle", Package: "example.com/lib"}, []string{"example.com/lib.Handle", "example.com/lib.Handler.Handle", "example.com/lib.Handler", "example.com/lib.handleOne", "example.com/lib"}},
		{SearchQuery{Query: "verify", Package: "auth"}, []string{"example.com/app/internal/auth.Verify"}},
		{SearchQuery{Query: "verify", Package: "internal/auth"}, []string{"example.com/app/internal/auth.Verify"}},
		{SearchQuery{Query: "verify", Package: "example.com/app"}, []string{"example.com/app/internal/auth.Verify", "example.com/app.Verify"}},
		{SearchQuery{Query: "verify", Package: "example.com/ap"}, nil},
		{SearchQuery{Query: "handle", Scope: "deps", Kind: "func"}, []string{"example.com/lib.Handle", "example.com/lib.handleOne"}},
	} {
		if got := ids(searchOK(t, c, tt.q)); !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %q, want %q", tt.q, got, tt.want)
		}
	}
}

// A file name answers its declarations in line order; file:line, as a
// stack trace prints it, the declaration that encloses the line.
func TestFileQueries(t *testing.T) {
	c := rankedCatalog(t)
	res := searchOK(t, c, SearchQuery{Query: "main.go"})
	want := []string{"example.com/app.Server", "example.com/app.(*Server).Handle", "example.com/app.HandleFunc",
		"example.com/app.checkBearerToken", "example.com/app.MaxBodyBytes", "example.com/app.main",
		"example.com/app.prehandle", "example.com/app.first", "example.com/app.second", "example.com/app.Verify"}
	if got := ids(res); res.Match != MatchFile || !slices.Equal(got, want) {
		t.Errorf("main.go: %s %q", res.Match, got)
	}
	src := rankedSources["example.com/app"]["main.go"]
	line := func(s string) int { return strings.Count(src[:strings.Index(src, s)], "\n") + 1 }
	for q, want := range map[string]string{
		fmt.Sprintf("main.go:%d", line("_ = 2")):                         "example.com/app.prehandle",
		fmt.Sprintf("/build/app/main.go:%d +0x1d", line("_ = 1")):        "example.com/app.prehandle",
		fmt.Sprintf("app/main.go:%d:3", line("func (s *Server) Handle")): "example.com/app.(*Server).Handle",
		fmt.Sprintf("main.go:%d", line("second = 2")):                    "example.com/app.second",
		fmt.Sprintf("main.go:%d", line("// prehandle runs")):             "example.com/app.prehandle",
		fmt.Sprintf("/usr/local/go/src/crypto/tls/conn.go:%d", 1510):     "crypto/tls.(*Conn).Handshake",
		"/go/pkg/mod/example.com/lib@v1.2.0/lib.go:5":                    "example.com/lib.Handle",
	} {
		res := searchOK(t, c, SearchQuery{Query: q, Scope: "all"})
		if got := ids(res); res.Match != MatchFile || !slices.Equal(got, []string{want}) {
			t.Errorf("%s: %s %q, want %s", q, res.Match, got, want)
		}
	}
	// A file of no entry falls back to a literal search.
	if res := searchOK(t, c, SearchQuery{Query: "nowhere.go"}); res.Match == MatchFile {
		t.Errorf("nowhere.go: %+v", res)
	}
}

func TestSearchArgumentErrors(t *testing.T) {
	c := rankedCatalog(t)
	huge := strings.Repeat("x", 64<<10)
	for _, tt := range []struct {
		q    SearchQuery
		want []string // the message holds each
	}{
		{SearchQuery{}, []string{"query must not be empty"}},
		{SearchQuery{Query: " \t\n"}, []string{"query must not be empty"}},
		{SearchQuery{Query: huge}, []string{"65536 bytes", "at most 1000"}},
		{SearchQuery{Query: "a\x00b"}, []string{"NUL"}},
		{SearchQuery{Query: "\xff"}, []string{"UTF-8"}},
		{SearchQuery{Query: "PK\x03\x04\x14"}, []string{"control character U+0003 at byte 2", "binary"}},
		{SearchQuery{Query: "x", Kind: "fields"}, []string{`unknown kind "fields"`, "doc, field"}},
		{SearchQuery{Query: "x", Kind: "class"}, []string{`unknown kind "class"`, "func, method, type, const, var, package, tool, doc"}},
		{SearchQuery{Query: "x", Kind: huge}, []string{"unknown kind", "func, method, type"}},
		{SearchQuery{Query: "x", Scope: "everything"}, []string{`unknown scope "everything"`, "main, deps, std, all or routes"}},
		{SearchQuery{Query: "x", Scope: huge}, []string{"unknown scope", "main, deps, std, all or routes"}},
		{SearchQuery{Query: "x", Package: huge}, []string{"package must be"}},
		{SearchQuery{Query: "x", Limit: -1}, []string{"limit -1"}},
		{SearchQuery{Query: "x", Limit: 101}, []string{"1..100"}},
		{SearchQuery{Query: "x", Offset: -1}, []string{"offset -1"}},
	} {
		_, err := c.Search(ctx, tt.q)
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%.40q: err = %v", tt.q.Query, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%.40q: %q lacks %q", tt.q.Query, err, w)
			}
		}
		if len(err.Error()) > 400 {
			t.Errorf("%.40q: a %d-byte error echoes the input", tt.q.Query, len(err.Error()))
		}
	}
}

// The answer counts the catalog and lists its packages only when asked.
func TestSearchCoverage(t *testing.T) {
	c := rankedCatalog(t)
	res := searchOK(t, c, SearchQuery{Query: "handle"})
	cov := res.Coverage
	x, _ := c.index(ctx)
	if cov.Entries != len(x.Entries) || cov.Main+cov.Deps+cov.Std != cov.Entries || cov.Std != 4 || cov.Deps != 5 ||
		cov.Packages != 5 || cov.Truncated || cov.NoSnapshot {
		t.Errorf("coverage = %+v", cov)
	}
	if res.PackageList != nil {
		t.Error("package list without asking")
	}
	res = searchOK(t, c, SearchQuery{Query: "handle", Packages: true, Scope: "all"})
	var got []string
	for _, p := range res.PackageList {
		got = append(got, fmt.Sprintf("%s %s %d %v", p.Path, p.Scope, p.Entries, p.Source))
	}
	want := []string{"example.com/app main 11 true", "example.com/app/internal/auth main 3 true",
		"example.com/lib deps 5 true", "crypto/tls std 2 false", "net/http std 2 false"}
	if !slices.Equal(got, want) {
		t.Errorf("packages\n%q\nwant\n%q", got, want)
	}
}

// The text listing holds each hit's id (as package and rest), kind,
// file:line and first documentation sentence, and is short.
func TestListing(t *testing.T) {
	c := rankedCatalog(t)
	res := searchOK(t, c, SearchQuery{Query: "Handle", Limit: 3})
	text := res.Listing()
	want := "9 matches, next offset 3.\n" +
		"example.com/app.(*Server).Handle main.go:8 - serves one request.\n" +
		"example.com/lib.Handle func lib.go:5 - is the library's handle.\n" +
		"lib.Handler.Handle lib.go:8"
	if text != want {
		t.Errorf("listing\n%s\nwant\n%s", text, want)
	}
	// A package's first hit names it in full, its later hits shortly;
	// after the package itself, every hit is short. The short names are
	// names code_definition resolves.
	pkgFirst := (&SearchResult{Match: MatchLiteral, Scope: "main+deps", Total: 2, Results: []SearchHit{
		{Name: "example.com/app", Kind: KindPackage, pkg: "example.com/app"},
		{Name: "example.com/app.HandleFunc", Kind: KindFunc, pkg: "example.com/app"},
	}}).Listing()
	if want := "2 matches.\nexample.com/app package\napp.HandleFunc func"; pkgFirst != want {
		t.Errorf("listing\n%s\nwant\n%s", pkgFirst, want)
	}
	for _, name := range []string{"app.(*Server).Handle", "lib.Handle", "app.HandleFunc"} {
		if _, err := c.Definition(ctx, DefinitionQuery{Name: name}); err != nil {
			t.Errorf("Definition(%q): %v", name, err)
		}
	}
	// Packages of the same last element keep their full paths.
	two := (&SearchResult{Match: MatchLiteral, Scope: "all", Total: 2, Results: []SearchHit{
		{Name: "a.com/x/util.F", Kind: KindFunc, pkg: "a.com/x/util"},
		{Name: "b.com/y/util.G", Kind: KindFunc, pkg: "b.com/y/util"},
	}}).Listing()
	if !strings.Contains(two, "\na.com/x/util.F func\nb.com/y/util.G func") {
		t.Errorf("clashing packages:\n%s", two)
	}
	none := searchOK(t, c, SearchQuery{Query: "zzyzx"}).Listing()
	if !strings.HasPrefix(none, "No match in main+deps.") || strings.Contains(none, "catalog") {
		t.Errorf("zero-hit listing: %s", none)
	}
	for _, c := range [][4]string{
		{"net/http.(*ServeMux).Handle", "net/http", "net/http", "(*ServeMux).Handle"},
		{"gopkg.in/yaml.v3.Unmarshal", "gopkg.in/yaml.v3", "gopkg.in/yaml.v3", "Unmarshal"},
		{"tool:x", "", "", "tool:x"},
		{"notes", "example.com/app", "", "notes"},
	} {
		if p, rest := splitID(c[0], c[1]); p != c[2] || rest != c[3] {
			t.Errorf("splitID(%q, %q) = %q, %q", c[0], c[1], p, rest)
		}
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
	if len(x.Entries) != 5 || !x.cov.Truncated || x.cov.DroppedEntries == 0 || x.cov.Entries != 5 {
		t.Fatalf("truncated index: %d entries, cov %+v", len(x.Entries), x.cov)
	}
	// Registered entries are kept first, then those of the main module
	// (all of the fixture's), shorter ids first; fmt.Println goes.
	var ids []string
	for _, e := range x.Entries {
		ids = append(ids, e.ID)
	}
	want := []string{"example.com/fixture", "example.com/fixture.Map", "example.com/fixture.T", "tool:zz_tool", "zz notes"}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("kept %v, want %v", ids, want)
	}
}

func TestRegistered(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	c.SetTools([]ToolDoc{{Name: "code_search", Title: "Code search", Description: searchToolDescription,
		InputSchema: []byte(searchInputSchema)}})
	if err := c.Register(Doc{Name: "ns_returnredirect", Documentation: "Redirects the client.", Definition: "proc ns_returnredirect {url} {}"}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Search(ctx, SearchQuery{Query: "(untrusted)"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Results[0].Name != "tool:code_search" || res.Results[0].Kind != KindTool {
		t.Fatalf("tool search = %+v", res.Results)
	}
	d := define(t, c, "tool:code_search")
	if !strings.Contains(d.Definition, `"inputSchema": {`) || d.Source != SourceRegistered {
		t.Errorf("tool definition = %s", d.Definition)
	}
	if !strings.Contains(d.Definition, `"minimum": 1`) || !strings.HasPrefix(d.Documentation, "Code search. Search this server's Go code") {
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
	c2.loadRuntime = func() (*index.RuntimeTable, error) { return nil, errors.New("no table") }
	res, err = c2.Search(ctx, SearchQuery{Query: "ok"})
	if err != nil || res.Coverage.RegisteredError == "" || res.Coverage.RuntimeError != "no table" || res.Total != 1 {
		t.Errorf("c2: err=%v cov=%+v", err, res.Coverage)
	}
}

// A hit's documentation is its first sentence, cut after a whole word.
func TestFirstSentence(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"serves one request. Then more.", "serves one request."},
		{"reports whether s is a host name as browsers accept it, without a port.", "reports whether s is a host name as browsers…"},
		{"is the unit in which request bodies are read: one chunk.", "is the unit in which request bodies are read…"},
		{"https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html", "https://docs.aws.amazon.com/AmazonS3/latest/u…"},
	} {
		got := firstSentence(tt.in, maxHitDoc)
		if got != tt.want || len(got) > maxHitDoc {
			t.Errorf("firstSentence(%q) = %q (%d bytes), want %q", tt.in, got, len(got), tt.want)
		}
	}
}
