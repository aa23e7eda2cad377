package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

func post(t *testing.T, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("not JSON (%d): %s", resp.StatusCode, raw)
		}
	}
	return resp.StatusCode, out
}

func start(t *testing.T, token string) string {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	server, catalog, con, err := newServer(logger, os.DirFS(snapshotDir(t)), authenticator(config{token: token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = con.Close() })
	mux, _ := newMux(server, catalog, con, config{token: token}, logger)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func call(t *testing.T, url, token, tool, args string) map[string]any {
	t.Helper()
	status, out := post(t, url, token, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
	if status != 200 || out["error"] != nil {
		t.Fatalf("%s: %d %v", tool, status, out)
	}
	res := out["result"].(map[string]any)
	if res["isError"] == true {
		t.Fatalf("%s: tool error %v", tool, res["content"])
	}
	return res["structuredContent"].(map[string]any)
}

func TestCodeServerReadsItsOwnSource(t *testing.T) {
	url := start(t, "")
	hits := call(t, url, "", "code_search", `{"query":"mounts the MCP handler"}`)
	results := hits["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("the snapshot's doc comment of newMux was not found: %v", hits)
	}
	first := results[0].(map[string]any)
	if first["id"] != "github.com/embedmcp/mcp/examples/codeserver.newMux" || first["at"] != "main.go:"+strconv.Itoa(lineOf(t, "func newMux(")) {
		t.Errorf("first hit = %v", first)
	}
	def := call(t, url, "", "code_definition", `{"name":"main.newMux","detail":"provenance"}`)
	src := definitionSource(t, url, "main.newMux")
	if !strings.HasPrefix(src, "// newMux mounts the MCP handler at /mcp.\nfunc newMux(") || def["linked"] != true {
		t.Errorf("definition of main.newMux = %q (linked %v)", src, def["linked"])
	}
	// The snapshot's copy is the file this test was built from.
	disk, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(disk, []byte(strings.TrimSuffix(src, "\n"))) {
		t.Errorf("the generated snapshot does not hold main.go as it is")
	}
}

// TestCodeServerBeforeGenerate serves from a fresh clone's snapshot
// directory, which holds only its README: the code tools answer from the
// binary and say that no snapshot was generated yet, and the health check
// names the command.
func TestCodeServerBeforeGenerate(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	fresh := fstest.MapFS{"README.md": {Data: []byte("This directory holds the source snapshot.\n")}}
	server, catalog, con, err := newServer(logger, fresh, authenticator(config{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = con.Close() })
	mux, _ := newMux(server, catalog, con, config{}, logger)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	url := srv.URL + "/mcp"
	def := call(t, url, "", "code_definition", `{"name":"main.newMux"}`)
	if def["source"] != "runtime" || def["linked"] != true {
		t.Errorf("definition of main.newMux without a snapshot: source %v, linked %v", def["source"], def["linked"])
	}
	if lim, _ := def["limitations"].(string); !strings.Contains(lim, "no snapshot generated yet") {
		t.Errorf("limitations %q do not say that no snapshot was generated yet", lim)
	}
	health := call(t, url, "", "runtime_health", `{}`)
	if text := fmt.Sprint(health); !strings.Contains(text, "go generate ./examples/codeserver") {
		t.Errorf("runtime_health does not name the command: %s", text)
	}
}

func TestCodeServerTools(t *testing.T) {
	url := start(t, "")
	if got := call(t, url, "", "echo", `{"text":"héllo"}`)["text"]; got != "héllo" {
		t.Errorf("echo = %v", got)
	}
	if got := call(t, url, "", "add", `{"a":2,"b":40}`)["sum"]; got != 42.0 {
		t.Errorf("add = %v", got)
	}
	_, out := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var names []string
	for _, tool := range out["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	for _, want := range []string{"add", "code_definition", "code_search", "count", "echo", "runtime_build", "runtime_goroutines",
		"runtime_health", "runtime_logs", "runtime_metrics", "runtime_profile", "runtime_vars"} {
		if !contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
}

func TestCodeServerToken(t *testing.T) {
	url := start(t, "s3cret")
	if status, _ := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", status)
	}
	if status, _ := post(t, url, "wrong", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusUnauthorized {
		t.Errorf("wrong token: status %d, want 401", status)
	}
	if status, out := post(t, url, "s3cret", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != 200 || out["result"] == nil {
		t.Errorf("right token: %d %v", status, out)
	}
}

// lineOf returns the line of main.go that starts with prefix.
func lineOf(t *testing.T, prefix string) int {
	t.Helper()
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("main.go has no line %q", prefix)
	return 0
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// definitionSource returns the source code_definition answers for name: the
// second text block of its answer.
func definitionSource(t *testing.T, url, name string) string {
	t.Helper()
	_, out := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code_definition","arguments":{"name":`+strconv.Quote(name)+`}}}`)
	content, _ := out["result"].(map[string]any)["content"].([]any)
	if len(content) != 2 {
		t.Fatalf("code_definition %s: %d content blocks, want the listing and the source: %v", name, len(content), out)
	}
	src, _ := content[1].(map[string]any)["text"].(string)
	return src
}
