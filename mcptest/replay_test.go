package mcptest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// cannedProtocol answers every request with one body.
type cannedProtocol struct {
	mcp.Protocol
	body string
}

func (c cannedProtocol) Handle(context.Context, mcp.Caller, []byte) (int, []byte) {
	return 200, []byte(c.body)
}

func writeScenario(t *testing.T, dir, tool, name, text string) *Scenario {
	t.Helper()
	path := filepath.Join(dir, tool, name+".txtar")
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	s, err := ReadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReplayReportsAChangedAnswer(t *testing.T) {
	srv := exampleServer(t, mcp.AllowAll(), nil)
	s := writeScenario(t, t.TempDir(), "add", "sum", `Sum
-- request --
{"a": 2, "b": 3}
-- response --
{
  "content": [{"type": "text", "text": "{\"meta\":{\"serverMs\":\"<timing>\"},\"sum\":6}"}],
  "structuredContent": {"meta": {"serverMs": "<timing>"}, "sum": 6}
}
`)
	diff, err := s.replay(t, srv, &ReplayOptions{Mask: ownMask})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`-    "sum": 6`, `+    "sum": 5`, `-      "text": "{\"meta\":{\"serverMs\":\"<timing>\"},\"sum\":6}",`} {
		if !strings.Contains(diff, want+"\n") {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, "serverMs") && !strings.Contains(diff, `\"serverMs\":\"<timing>\"`) {
		t.Errorf("an unmasked timing shows in the diff:\n%s", diff)
	}
	// Without the mask the timing itself is a difference.
	diff, err = s.replay(t, srv, nil)
	if err != nil || !strings.Contains(diff, `+      "serverMs": 0`) {
		t.Errorf("unmasked diff (%v):\n%s", err, diff)
	}
}

func TestReplayUpdate(t *testing.T) {
	dir := t.TempDir()
	srv := exampleServer(t, mcp.GrantsAuthorizer{}, nil)
	text := "Echo as a guest\nnotes\n-- caller --\n{\"principal\": \"guest\"}\n-- request --\n{\"text\":\"hi\"}\n"
	s := writeScenario(t, dir, "echo", "guest", text)
	if _, err := s.replay(t, srv, nil); err == nil || !strings.Contains(err.Error(), "-update") {
		t.Errorf("no response section: err = %v, want a hint to run -update", err)
	}
	if _, err := s.replay(t, srv, &ReplayOptions{Update: true}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.Path)
	want := text + "-- response --\n{\n  \"error\": {\n    \"code\": -32602,\n    \"data\": {\n      \"reason\": \"unknownTool\",\n      \"tool\": \"echo\"\n    },\n    \"message\": \"Unknown tool: echo\"\n  }\n}\n"
	if string(data) != want {
		t.Errorf("updated file:\n%s\nwant:\n%s", data, want)
	}
	s2, err := ReadScenario(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if diff, err := s2.replay(t, srv, nil); diff != "" || err != nil {
		t.Errorf("replay after update: %v\n%s", err, diff)
	}
	// Replaying with the right caller changes the answer; update rewrites
	// only the response section.
	opts := &ReplayOptions{Update: true}
	s2.Caller = &mcp.Caller{Principal: "guest", Grants: []string{"examples.read"}}
	if _, err := s2.replay(t, srv, opts); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(s.Path)
	if !strings.HasPrefix(string(data), text) || !strings.Contains(string(data), `"text": "hi"`) {
		t.Errorf("rewritten file:\n%s", data)
	}
}

func TestReplayFixturesAndRPC(t *testing.T) {
	dir := t.TempDir()
	s := writeScenario(t, dir, "_protocol", "ping", "-- fixture --\nsmall\n-- request --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- response --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"from\":\"small\"}}\n")
	if !s.IsRPC() {
		t.Fatal("IsRPC = false")
	}
	main := cannedProtocol{body: `{"jsonrpc":"2.0","id":1,"result":{"from":"main"}}`}
	if _, err := s.replay(t, main, nil); err == nil || !strings.Contains(err.Error(), `unknown fixture "small"`) {
		t.Errorf("missing fixture: %v", err)
	}
	small := cannedProtocol{body: `{"jsonrpc":"2.0","id":1,"result":{"from":"small"}}`}
	diff, err := s.replay(t, main, &ReplayOptions{Fixtures: map[string]mcp.Protocol{"small": small}})
	if err != nil || diff != "" {
		t.Errorf("fixture replay: %v\n%s", err, diff)
	}
}

func TestReadScenarioErrors(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"unknown-section": "-- request --\n{}\n-- answer --\n{}\n",
		"twice":           "-- request --\n{}\n-- request --\n{}\n",
		"no-request":      "-- response --\n{}\n",
		"bad-caller":      "-- caller --\n{\"principle\": \"x\"}\n-- request --\n{}\n",
		"bad-request":     "-- request --\n{\n",
		"bad-response":    "-- request --\n{}\n-- response --\nnope\n",
	} {
		path := filepath.Join(dir, "tool", name+".txtar")
		os.MkdirAll(filepath.Dir(path), 0o777)
		os.WriteFile(path, []byte(text), 0o666)
		if _, err := ReadScenario(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want an error naming the file", name, err)
		}
	}
	if _, err := ReadScenarios(dir); err == nil {
		t.Error("ReadScenarios hid the broken files")
	}
	s := writeScenario(t, t.TempDir(), "my_tool", "a-b_c", "-- request --\n{}\n")
	if s.Tool != "my_tool" || s.Name != "a-b_c" || s.Title != "a b c" || s.Caller != nil {
		t.Errorf("scenario = %+v", s)
	}
}
