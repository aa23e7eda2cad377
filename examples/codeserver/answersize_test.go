package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// answer is one measured tool answer: the bytes of its text blocks (as
// text) and of its structured content (as JSON).
type answer struct {
	text, structured int
	source           int // bytes of the source text a code_definition answer carries
	kind             string
	caveat           int // bytes of the stale line of a code_definition answer
	isError          bool
}

func measure(t *testing.T, url, method, params string) (raw []byte, a answer) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ = io.ReadAll(resp.Body)
	var out struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			Structured json.RawMessage `json:"structuredContent"`
			IsError    bool            `json:"isError"`
		} `json:"result"`
	}
	var kind struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %v: %s", method, params, err, raw)
	}
	for _, c := range out.Result.Content {
		a.text += len(c.Text)
	}
	a.structured = len(out.Result.Structured)
	json.Unmarshal(out.Result.Structured, &kind)
	a.kind = kind.Kind
	a.isError = out.Result.IsError
	if len(out.Result.Content) == 2 {
		a.source = len(out.Result.Content[1].Text)
		// A test binary is never the build the snapshot was made for, so
		// its answers always carry the stale line, which a service's do
		// not: it is not counted against the bound.
		for _, line := range strings.SplitAfter(out.Result.Content[0].Text, "\n") {
			if strings.HasPrefix(line, "source stale: ") {
				a.caveat += len(line)
			}
		}
	}
	return raw, a
}

// TestAnswerSizes prints what the tools of this example cost a client, the
// table docs/runtime.md shows, and holds the bounds: tools/list at most 16 KB,
// a function's code_definition at most 1.5 × its source + 600 bytes, no
// text block that is the JSON of the structured content.
func TestAnswerSizes(t *testing.T) {
	url := start(t, "")
	list, _ := measure(t, url, "tools/list", `{}`)
	var tl struct {
		Result struct{ Tools []json.RawMessage } `json:"result"`
	}
	json.Unmarshal(list, &tl)
	var b strings.Builder
	fmt.Fprintf(&b, "| answer | bytes: text + structured |\n|---|---|\n| tools/list (%d tools) | %d |\n", len(tl.Result.Tools), len(list))
	if len(list) > 16<<10 {
		t.Errorf("tools/list is %d bytes; at most %d", len(list), 16<<10)
	}
	for _, c := range []struct{ tool, args string }{
		{"code_search", `{"query":"where is the bearer token checked","limit":10}`},
		{"code_definition", `{"name":"main.newMux"}`},
		{"code_definition", `{"name":"github.com/embedmcp/mcp.(*Handler).ServeHTTP"}`},
		{"code_definition", `{"name":"github.com/embedmcp/mcp.NewHandler"}`},
		{"code_definition", `{"name":"github.com/embedmcp/mcp.Server"}`},
		{"code_references", `{"name":"main.newMux","relation":"callers"}`},
		{"code_file", `{"path":"examples/codeserver/main.go","startLine":1,"endLine":40}`},
		{"tool_detail", `{"tool":"code_search"}`},
		{"tool_catalogue", `{}`},
		{"runtime_profile", `{"kind":"heap"}`},
		{"runtime_goroutines", `{}`},
		{"runtime_metrics", `{}`},
		{"runtime_logs", `{}`},
		{"runtime_build", `{}`},
	} {
		raw, a := measure(t, url, "tools/call", `{"name":"`+c.tool+`","arguments":`+c.args+`}`)
		if a.isError {
			t.Errorf("%s %s: %s", c.tool, c.args, raw)
			continue
		}
		fmt.Fprintf(&b, "| %s `%s` | %d + %d |\n", c.tool, c.args, a.text, a.structured)
		if c.tool == "code_definition" && (a.kind == "func" || a.kind == "method") {
			if limit := a.source*3/2 + 600; a.text+a.structured-a.caveat > limit {
				t.Errorf("%s %s: %d bytes for %d of source; at most %d", c.tool, c.args, a.text+a.structured-a.caveat, a.source, limit)
			}
		}
		var res struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		json.Unmarshal(raw, &res)
		if len(res.Result.Content) > 0 && strings.HasPrefix(strings.TrimSpace(res.Result.Content[0].Text), "{") {
			t.Errorf("%s: the text is a JSON dump: %.80s", c.tool, res.Result.Content[0].Text)
		}
	}
	fmt.Printf("\nanswer sizes of examples/codeserver:\n\n%s\n", b.String())
}
