package codetools_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/viewdata"
	"github.com/embedmcp/mcp/internal/viewkit"
	"github.com/embedmcp/mcp/testsupport/shop"
)

// sourceView is the view data of code_definition, as docs/views.md says.
type sourceView struct {
	View    string   `json:"view"`
	ID      string   `json:"id"`
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Lines   []string `json:"lines"`
	Tokens  [][4]int `json:"tokens"`
	Classes []string `json:"classes"`
	Links   []struct {
		Line, Col, Len int
		ID, How        string
	} `json:"links"`
	More bool `json:"more"`
	Next int  `json:"next"`
}

// The definition view's page file names the shared parts by their markers
// only; the view served carries each of them (theme, bridge, source
// renderer) exactly once.
func TestDefinitionViewAssembled(t *testing.T) {
	page, err := os.ReadFile("views/definition.html")
	if err != nil {
		t.Fatal(err)
	}
	if err := viewkit.CheckSource(string(page)); err != nil {
		t.Errorf("views/definition.html: %v", err)
	}
	views := codetools.Views()
	if len(views) != 1 || views[0].URI != codetools.DefinitionViewURI {
		t.Fatalf("Views: %d views, want the definition view alone", len(views))
	}
	html := views[0].HTML
	if err := viewkit.CheckPage(html); err != nil {
		t.Error(err)
	}
	for _, p := range viewkit.Parts() {
		if strings.Count(html, p.Text) != 1 {
			t.Errorf("the definition view carries the %s %d times, want once", p.Name, strings.Count(html, p.Text))
		}
	}
}

// viewCall calls code_definition over a ToolSet that Register filled and
// returns the result's text and structured content and its view data.
func viewCall(t *testing.T, args string) (model int, v sourceView) {
	t.Helper()
	ts := mcp.NewToolSet()
	if err := codetools.Register(ts, shop.Catalog("shopd")); err != nil {
		t.Fatal(err)
	}
	if view, ok := ts.LookupView(codetools.DefinitionViewURI); !ok || !strings.HasPrefix(view.HTML, "<!DOCTYPE html>") {
		t.Fatal("Register did not add the definition view")
	} else if outsideURL.MatchString(view.HTML) || len(view.HTML) > mcp.MaxViewBytes {
		t.Errorf("the definition view is not a self-contained document: %q", outsideURL.FindString(view.HTML))
	}
	tool, _ := ts.Lookup(codetools.DefinitionToolName)
	if tool.Info().View != codetools.DefinitionViewURI {
		t.Errorf("code_definition names %q", tool.Info().View)
	}
	srv := mcp.NewServer(ts, mcp.AllowAll(), nil)
	res, err := srv.CallTool(context.Background(), mcp.NewRequest(mcp.Caller{}, codetools.DefinitionToolName, json.RawMessage(args)))
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	raw, err := json.Marshal(res.Meta[viewdata.MetaKey])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	model = len(sc)
	for _, c := range res.Content {
		model += len(c.Text)
	}
	t.Logf("%s: the model reads %d bytes; the view data is %d bytes", args, model, len(raw))
	return model, v
}

// outsideURL finds what would make a view load from another origin: a
// src, href or action attribute, a CSS url() or @import, a fetch of an
// absolute URL. (Namespace names such as SVG's are not fetched.)
var outsideURL = regexp.MustCompile(`(?i)((src|href|action)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?\s*(https?:)?//|@import|fetch\(\s*["'` + "`" + `]\s*(https?:)?//|new\s+WebSocket)`)

// at returns the text a span of the view names (columns in UTF-16 units;
// the shop's source is ASCII).
func at(v sourceView, line, col, n int) string {
	if line >= len(v.Lines) || col+n > len(v.Lines[line]) {
		return "<out of range>"
	}
	return v.Lines[line][col : col+n]
}

func TestDefinitionViewLinksCalls(t *testing.T) {
	_, v := viewCall(t, `{"name":"`+shop.Checkout+`.Price"}`)
	if v.View != "source" || v.ID != shop.Checkout+".Price" || v.Line == 0 || len(v.Lines) < 3 || !strings.HasSuffix(v.File, "checkout.go") {
		t.Fatalf("view data %+v", v)
	}
	got := map[string]string{}
	for _, l := range v.Links {
		got[l.ID] = l.How + " " + at(v, l.Line, l.Col, l.Len) + " line " + itoa(v.Line+l.Line)
	}
	for id, want := range map[string]string{
		shop.Checkout + ".Price":          "declaration Price line 27",
		shop.Basket + ".Basket.Total":     "call Total line 31",
		shop.Checkout + ".Discount.Apply": "dynamic Apply line 33",
	} {
		if got[id] != want {
			t.Errorf("link to %s: %q, want %q (all: %v)", id, got[id], want, got)
		}
	}
	kinds := map[string]bool{}
	for _, tk := range v.Tokens {
		kinds[v.Classes[tk[3]]+" "+at(v, tk[0], tk[1], tk[2])] = true
	}
	if !kinds["keyword func"] || !kinds["keyword return"] {
		t.Errorf("tokens lack the keywords: %v", kinds)
	}
}

// A chunk after the first knows its first line, and links its calls.
func TestDefinitionViewLaterChunk(t *testing.T) {
	_, whole := viewCall(t, `{"name":"`+shop.Checkout+`.Price"}`)
	off := len(whole.Lines[0]) + 1 + len(whole.Lines[1]) + 1 // two lines on
	_, v := viewCall(t, `{"name":"`+shop.Checkout+`.Price","offset":`+itoa(off)+`}`)
	if v.Line != whole.Line+2 || v.Lines[0] != whole.Lines[2] {
		t.Errorf("chunk at %d: line %d %q, want %d %q", off, v.Line, v.Lines[0], whole.Line+2, whole.Lines[2])
	}
	if len(v.Links) == 0 {
		t.Error("the later chunk links no call")
	}
	_, first := viewCall(t, `{"name":"`+shop.Checkout+`.Price","maxCharacters":20}`)
	if !first.More || first.Next != 20 {
		t.Errorf("a first chunk of 20: more %v next %d", first.More, first.Next)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
