package enquiry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// answer is tool_detail's answer as a client decodes it, written
// independently of the package's types.
type answer struct {
	Status string `json:"status"`
	Match  string `json:"match"`
	Note   string `json:"note"`
	Tool   *struct {
		Name         string            `json:"name"`
		Title        string            `json:"title"`
		Description  string            `json:"description"`
		Category     string            `json:"category"`
		WhenToUse    string            `json:"whenToUse"`
		WhenNotToUse []string          `json:"whenNotToUse"`
		Details      string            `json:"details"`
		Examples     []json.RawMessage `json:"examples"`
		Workflows    []string          `json:"workflows"`
		ErrorCodes   []string          `json:"errorCodes"`
		InputSchema  json.RawMessage   `json:"inputSchema"`
		Parameters   []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			Required bool   `json:"required"`
			Enum     []any  `json:"enum"`
		} `json:"parameters"`
	} `json:"tool"`
	Candidates []struct {
		Name        string  `json:"name"`
		Description string  `json:"description"`
		Score       float64 `json:"score"`
		InputSchema any     `json:"inputSchema"`
	} `json:"candidates"`
	NextStep string `json:"nextStep"`
	Meta     struct {
		ServerMs *float64 `json:"serverMs"`
	} `json:"meta"`
}

// callRaw calls a tool through a Server, and returns
// the structured content with meta removed (for comparing answers) and the
// whole result.
func callRaw(t testing.TB, ts *mcp.ToolSet, az mcp.Authorizer, caller mcp.Caller, tool, args string) (map[string]any, *mcp.Result) {
	t.Helper()
	res, err := mcp.NewServer(ts, az, nil).CallTool(context.Background(), mcp.NewRequest(caller, tool, json.RawMessage(args)))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	if res.IsError {
		t.Fatalf("%s %s: error result %v", tool, args, res.Content)
	}
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok {
		t.Fatalf("%s: structured content is %T", tool, res.StructuredContent)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	// Every answer conforms to the tool's declared output schema.
	tl, _ := ts.Lookup(tool)
	info := tl.Info()
	if info.OutputSchema != nil || info.Guide == nil || info.Guide.OutputSchema == nil {
		t.Fatalf("%s: the output schema belongs in the guide (shown by tool_detail), not in tools/list", tool)
	}
	rs, err := info.Guide.OutputSchema.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: output schema: %v", tool, err)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(generic); err != nil {
		t.Fatalf("%s %s: answer breaks the output schema: %v\n%s", tool, args, err, raw)
	}
	// The text is for a model: lines, never the JSON of the structured content.
	if len(res.Content) != 1 || res.Content[0].Type != mcp.ContentText || res.Content[0].Text == "" ||
		strings.HasPrefix(res.Content[0].Text, "{") || len(res.Content[0].Text) >= len(raw) && len(raw) > 200 {
		t.Fatalf("%s: content is not a text rendering shorter than the structured content: %+v", tool, res.Content)
	}
	delete(m, "meta")
	return m, res
}

// detail calls tool_detail and decodes the answer.
func detail(t testing.TB, ts *mcp.ToolSet, az mcp.Authorizer, caller mcp.Caller, args string) answer {
	t.Helper()
	_, res := callRaw(t, ts, az, caller, DefaultDetailName, args)
	var a answer
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &a); err != nil {
		t.Fatal(err)
	}
	if a.Meta.ServerMs == nil {
		t.Fatalf("%s: no meta.serverMs", args)
	}
	return a
}

// asJSON is for failure messages.
func asJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
