package codetools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// fixtureServer serves the code tools over the fixture catalog.
func fixtureServer(t *testing.T) *mcp.Server {
	t.Helper()
	ts := mcp.NewToolSet()
	if err := Register(ts, newFixtureCatalog(t, "", nil)); err != nil {
		t.Fatal(err)
	}
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil)
}

// TestDefinitionAnswerIsCompact: code_definition answers a header line a
// model reads and the source as a second block; the structured content
// carries no copy of the source and no provenance unless asked.
func TestDefinitionAnswerIsCompact(t *testing.T) {
	s := fixtureServer(t)
	res, e := callTool(t, s, reader, "", DefinitionToolName, `{"name":"main.(*T).Ptr"}`)
	if e != nil || res["isError"] == true {
		t.Fatalf("%v %v", res, e)
	}
	content := res["content"].([]any)
	header := content[0].(map[string]any)["text"].(string)
	source := sourceBlock(t, res)
	d := define(t, newFixtureCatalog(t, "", nil), "main.(*T).Ptr")
	if source != d.Definition {
		t.Errorf("second block = %q, want the source %q", source, d.Definition)
	}
	first, _, _ := strings.Cut(header, "\n")
	if !strings.HasPrefix(first, d.Name+" method ") || !strings.Contains(first, ".go:") || !strings.Contains(first, "untrusted") {
		t.Errorf("header line = %q", first)
	}
	if strings.HasPrefix(strings.TrimSpace(header), "{") {
		t.Errorf("text is JSON: %q", header)
	}
	sc := res["structuredContent"].(map[string]any)
	for _, k := range []string{"definition", "build", "snapshot", "limitations", "sources"} {
		if _, ok := sc[k]; ok {
			t.Errorf("compact structured content has %q: %v", k, sc)
		}
	}
	if sc["sha256"] != d.SHA256 || sc["name"] != d.Name {
		t.Errorf("structured content lost the hash or the id: %v", sc)
	}
	if c := sc["consistency"].(map[string]any); c["lines"] != nil || c["version"] != nil {
		t.Errorf("compact consistency carries its checks: %v", c)
	}

	full, e := callTool(t, s, reader, "", DefinitionToolName, `{"name":"main.(*T).Ptr","detail":"provenance"}`)
	if e != nil || full["isError"] == true {
		t.Fatalf("%v %v", full, e)
	}
	fc := full["structuredContent"].(map[string]any)
	for _, k := range []string{"build", "snapshot", "limitations", "sources"} {
		if _, ok := fc[k]; !ok {
			t.Errorf("detail provenance lacks %q", k)
		}
	}
	if c := fc["consistency"].(map[string]any); c["lines"] == nil || c["version"] == nil {
		t.Errorf("detail provenance consistency lacks its checks: %v", c)
	}
	a, _ := json.Marshal(sc)
	b, _ := json.Marshal(fc)
	if len(a) >= len(b) {
		t.Errorf("compact structured content %d bytes, full %d", len(a), len(b))
	}
}

// TestDetailArgument: an unknown detail is a correctable error naming the
// value that works, in every tool that takes it.
func TestDetailArgument(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	if _, err := c.Definition(ctx, DefinitionQuery{Name: "main.main", Detail: "everything"}); err == nil ||
		!strings.Contains(err.Error(), `"provenance"`) {
		t.Errorf("Definition: %v", err)
	}
	if _, err := c.References(ctx, ReferencesQuery{Name: "main.main", Relation: RelationCallers, Detail: "x"}); err == nil {
		t.Error("References accepted detail x")
	}
	if _, err := c.File(ctx, FileQuery{Path: "main.go", Detail: "x"}); err == nil {
		t.Error("File accepted detail x")
	}
	s := fixtureServer(t)
	res, e := callTool(t, s, reader, "", FileToolName, `{"path":"main.go","detail":"everything"}`)
	if e == nil && res["isError"] != true {
		t.Errorf("code_file accepted detail everything: %v", res)
	}
}

// TestNavigationAnswersLeaveOutStandingLimitations: code_references and
// code_file say their standing limitations only when asked.
func TestNavigationAnswersLeaveOutStandingLimitations(t *testing.T) {
	s := fixtureServer(t)
	r := References{Limitations: referencesLimitations}
	if r.trim(); r.Limitations != "" {
		t.Errorf("code_references keeps its standing limitations: %q", r.Limitations)
	}
	r = References{Limitations: referencesLimitations + " The function table could not be read."}
	if r.trim(); r.Limitations == "" {
		t.Error("code_references drops a missing source")
	}
	for _, c := range []struct{ tool, args string }{
		{FileToolName, `{"path":"main.go"}`},
	} {
		res, e := callTool(t, s, reader, "", c.tool, c.args)
		if e != nil || res["isError"] == true {
			t.Fatalf("%s: %v %v", c.tool, res, e)
		}
		if _, ok := res["structuredContent"].(map[string]any)["limitations"]; ok {
			t.Errorf("%s: compact answer has limitations", c.tool)
		}
		full, _ := callTool(t, s, reader, "", c.tool, strings.TrimSuffix(c.args, "}")+`,"detail":"provenance"}`)
		if l, _ := full["structuredContent"].(map[string]any)["limitations"].(string); !strings.Contains(l, "untrusted") {
			t.Errorf("%s: detail provenance lacks the limitations: %v", c.tool, full)
		}
	}
}
