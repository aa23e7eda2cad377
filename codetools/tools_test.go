package codetools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

// callTool runs one tools/call through a real Server and decodes the result.
func callTool(t *testing.T, s *mcp.Server, caller mcp.Caller, version, name, args string) (result map[string]any, rpcErr map[string]any) {
	t.Helper()
	ctx := context.Background()
	if version != "" {
		ctx = mcp.ContextWithExchange(ctx, &mcp.Exchange{ProtocolVersion: version})
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	status, resp := s.Handle(ctx, caller, []byte(body))
	if status != 200 {
		t.Fatalf("status %d: %s", status, resp)
	}
	var r struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatal(err)
	}
	return r.Result, r.Error
}

func codeServer(t *testing.T) (*mcp.Server, *mcp.ToolSet) {
	t.Helper()
	ts := mcp.NewToolSet()
	if err := Register(ts, NewCatalog(&Options{Server: "catalog-server"})); err != nil {
		t.Fatal(err)
	}
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), ts
}

var reader = mcp.Caller{Principal: "ops", Grants: []string{"diagnostics.*"}, Server: "web-1"}

func TestToolsAreGatedByPermission(t *testing.T) {
	s, _ := codeServer(t)
	_, e := callTool(t, s, mcp.Caller{Principal: "guest"}, "", SearchToolName, `{"query":"x"}`)
	if e == nil || e["message"] != "Unknown tool: code_search" {
		t.Fatalf("caller without %s must not see code_search, got %v", Permission, e)
	}
	res, e := callTool(t, s, reader, "", SearchToolName, `{"query":"TestToolsAreGatedByPermission"}`)
	if e != nil {
		t.Fatalf("granted caller: %v", e)
	}
	sc := res["structuredContent"].(map[string]any)
	hits := sc["results"].([]any)
	if len(hits) != 1 || hits[0].(map[string]any)["id"] != "github.com/embedmcp/mcp/codetools.TestToolsAreGatedByPermission" {
		t.Errorf("search for this test's own function: %v", hits)
	}
}

func TestToolsArgumentErrors(t *testing.T) {
	s, _ := codeServer(t)
	cases := []struct{ tool, args, want string }{
		{SearchToolName, `{"query":"x","limit":0}`, "/limit"},
		{SearchToolName, `{"query":"x","limit":101}`, "/limit"},
		{SearchToolName, `{"query":"x","offset":-1}`, "/offset"},
		{SearchToolName, `{}`, "query"},
		{DefinitionToolName, `{"name":"x","maxCharacters":32769}`, "/maxCharacters"},
		{DefinitionToolName, `{"name":"x","extra":1}`, "extra"},
	}
	for _, c := range cases {
		// 2025-11-25: an isError result a model can act on.
		res, e := callTool(t, s, reader, mcp.Version20251125, c.tool, c.args)
		if e != nil || res["isError"] != true {
			t.Errorf("%s %s: want isError result, got %v %v", c.tool, c.args, res, e)
			continue
		}
		text := res["content"].([]any)[0].(map[string]any)["text"].(string)
		if !strings.Contains(text, c.want) {
			t.Errorf("%s %s: message %q does not name %s", c.tool, c.args, text, c.want)
		}
		// Earlier revisions: -32602.
		_, e = callTool(t, s, reader, mcp.Version20250618, c.tool, c.args)
		if e == nil || e["code"] != float64(mcp.CodeInvalidParams) {
			t.Errorf("%s %s under 2025-06-18: want -32602, got %v", c.tool, c.args, e)
		}
	}
}

func TestDefinitionUnknownNameSuggestsSearch(t *testing.T) {
	s, _ := codeServer(t)
	res, e := callTool(t, s, reader, "", DefinitionToolName, `{"name":"no/such.Thing"}`)
	if e != nil || res["isError"] != true {
		t.Fatalf("want a tool error, got %v %v", res, e)
	}
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(text, `"no/such.Thing"`) || !strings.Contains(text, "code_search") {
		t.Errorf("message %q must name the id and suggest code_search", text)
	}
}

func TestRegisteredToolsFollowTheToolSet(t *testing.T) {
	s, ts := codeServer(t)
	find := func(q string) int {
		res, e := callTool(t, s, reader, "", SearchToolName, `{"query":"`+q+`"}`)
		if e != nil {
			t.Fatal(e)
		}
		return int(res["structuredContent"].(map[string]any)["total"].(float64))
	}
	if n := find("tool:code_definition"); n != 1 {
		t.Errorf("tool:code_definition found %d times, want 1", n)
	}
	late := mcp.NewRawTool(mcp.ToolInfo{Name: "zz_late_tool", Description: "Registered later."},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult(""), nil })
	if err := ts.Register(late); err != nil {
		t.Fatal(err)
	}
	deadline := 200
	for find("tool:zz_late_tool") != 1 {
		if deadline--; deadline == 0 {
			t.Fatal("a tool registered later never appeared in code_search")
		}
		waitABit()
	}
	res, e := callTool(t, s, reader, "", DefinitionToolName, `{"name":"tool:zz_late_tool"}`)
	if e != nil || res["isError"] == true {
		t.Fatalf("definition of a tool: %v %v", res, e)
	}
	if def := sourceBlock(t, res); !strings.Contains(def, "Registered later.") {
		t.Errorf("tool definition lacks its description: %q", def)
	}
}

// waitABit yields to the ToolSet's watcher goroutine.
func waitABit() { time.Sleep(5 * time.Millisecond) }

// TestAnswersMarkSourceAsUntrusted: like nsmcp, the code tools tell the
// model that documentation and source are data, not instructions.
func TestAnswersMarkSourceAsUntrusted(t *testing.T) {
	if !strings.Contains(searchToolDescription, "untrusted") {
		t.Error("code_search's description must call documentation untrusted")
	}
	s, _ := codeServer(t)
	res, e := callTool(t, s, reader, "", DefinitionToolName, `{"name":"github.com/embedmcp/mcp/codetools.TestAnswersMarkSourceAsUntrusted","detail":"provenance"}`)
	if e != nil || !strings.Contains(res["structuredContent"].(map[string]any)["limitations"].(string), "untrusted data") {
		t.Errorf("code_definition limitations must call source untrusted: %v %v", res, e)
	}

	// The navigation tools quote source lines: their answers say so too.
	c := newFixtureCatalog(t, "", nil)
	f, err := c.File(context.Background(), FileQuery{Path: "main.go"})
	if err != nil || !strings.Contains(f.Limitations, "untrusted data") {
		t.Errorf("code_file limitations must call source untrusted: %+v %v", f, err)
	}
	if !strings.Contains(referencesLimitations, "untrusted data") {
		t.Error("code_references limitations must call the source lines untrusted")
	}
}

// sourceBlock returns the source chunk of a code_definition answer: its
// second text block.
func sourceBlock(t *testing.T, res map[string]any) string {
	t.Helper()
	content, _ := res["content"].([]any)
	if len(content) != 2 {
		t.Fatalf("code_definition answer has %d content blocks, want the listing and the source: %v", len(content), res)
	}
	text, _ := content[1].(map[string]any)["text"].(string)
	return text
}
