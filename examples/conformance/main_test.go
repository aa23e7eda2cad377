package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	server, err := newServer(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	mux, _ := newMux(server, slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// rpc posts body and returns the status and the JSON-RPC messages of the
// answer: one for a JSON answer, every event of an SSE stream.
func rpc(t *testing.T, srv *httptest.Server, body string, hdr map[string]string) (int, []map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msgs []map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Fatalf("event %q: %v", data, err)
				}
				msgs = append(msgs, m)
			}
		}
		return resp.StatusCode, msgs
	}
	b, _ := io.ReadAll(resp.Body)
	if len(b) > 0 {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("body %q: %v", b, err)
		}
		msgs = append(msgs, m)
	}
	return resp.StatusCode, msgs
}

// callResult calls a tool under 2025-11-25 and returns the final result.
func callResult(t *testing.T, srv *httptest.Server, name string) map[string]any {
	t.Helper()
	status, msgs := rpc(t, srv, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`"}}`,
		map[string]string{"Mcp-Protocol-Version": mcp.Version20251125})
	if status != 200 || len(msgs) == 0 {
		t.Fatalf("%s: status %d, %v", name, status, msgs)
	}
	res, ok := msgs[len(msgs)-1]["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s: no result: %v", name, msgs[len(msgs)-1])
	}
	return res
}

func content(t *testing.T, res map[string]any) []map[string]any {
	t.Helper()
	items, _ := res["content"].([]any)
	var out []map[string]any
	for _, it := range items {
		out = append(out, it.(map[string]any))
	}
	if len(out) == 0 {
		t.Fatalf("no content in %v", res)
	}
	return out
}

// TestToolsList: every tool the suite's scenarios call is listed, with a
// description, and the 2020-12 schema keeps the keywords the
// json-schema-2020-12 scenario looks for.
func TestToolsList(t *testing.T) {
	srv := newTestServer(t)
	_, msgs := rpc(t, srv, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	tools := map[string]map[string]any{}
	for _, x := range msgs[0]["result"].(map[string]any)["tools"].([]any) {
		tool := x.(map[string]any)
		if d, _ := tool["description"].(string); d == "" {
			t.Errorf("tool %v has no description", tool["name"])
		}
		tools[tool["name"].(string)] = tool
	}
	for _, name := range []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_error_handling", "test_tool_with_progress", "test_tool_with_logging",
		"json_schema_2020_12_tool", "test_header_param", "test_missing_capability", "test_logging_tool",
		"test_streaming_elicitation", "test_trigger_tool_change", "echo"} {
		if tools[name] == nil {
			t.Errorf("tool %s not listed", name)
		}
	}
	s := tools["json_schema_2020_12_tool"]["inputSchema"].(map[string]any)
	if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" || s["additionalProperties"] != false ||
		s["allOf"] == nil || s["if"] == nil || s["then"] == nil || s["else"] == nil {
		t.Errorf("2020-12 keywords lost: %v", s)
	}
	if a, _ := s["$defs"].(map[string]any)["address"].(map[string]any); a["$anchor"] != "addressDef" {
		t.Errorf("$defs.address.$anchor lost: %v", s["$defs"])
	}
	hp := tools["test_header_param"]["inputSchema"].(map[string]any)["properties"].(map[string]any)["region"].(map[string]any)
	if hp["x-mcp-header"] != "Region" {
		t.Errorf("x-mcp-header lost: %v", hp)
	}
}

// TestContentTools: the results the content scenarios check.
func TestContentTools(t *testing.T) {
	srv := newTestServer(t)
	if c := content(t, callResult(t, srv, "test_simple_text")); c[0]["type"] != "text" || c[0]["text"] != simpleText {
		t.Errorf("simple text: %v", c)
	}

	img := content(t, callResult(t, srv, "test_image_content"))[0]
	if img["type"] != "image" || img["mimeType"] != "image/png" {
		t.Errorf("image: %v", img)
	}
	raw, err := base64.StdEncoding.DecodeString(img["data"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
		t.Errorf("image data is not a PNG: %v", err)
	}

	audio := content(t, callResult(t, srv, "test_audio_content"))[0]
	if audio["type"] != "audio" || audio["mimeType"] != "audio/wav" {
		t.Errorf("audio: %v", audio)
	}
	raw, err = base64.StdEncoding.DecodeString(audio["data"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 44 || string(raw[:4]) != "RIFF" || string(raw[8:12]) != "WAVE" || string(raw[36:40]) != "data" {
		t.Errorf("audio data is not a WAV file: % x", raw)
	}

	res := content(t, callResult(t, srv, "test_embedded_resource"))[0]["resource"].(map[string]any)
	if res["uri"] != "test://embedded-resource" || res["mimeType"] != "text/plain" || res["text"] != embeddedText {
		t.Errorf("embedded resource: %v", res)
	}

	mixed := content(t, callResult(t, srv, "test_multiple_content_types"))
	var types []string
	for _, c := range mixed {
		types = append(types, c["type"].(string))
	}
	if strings.Join(types, ",") != "text,image,resource" {
		t.Errorf("mixed content types %v", types)
	}
	if r := mixed[2]["resource"].(map[string]any); r["mimeType"] != "application/json" || r["text"] != mixedJSON {
		t.Errorf("mixed resource: %v", r)
	}

	bad := callResult(t, srv, "test_error_handling")
	if bad["isError"] != true || content(t, bad)[0]["text"] != errorText {
		t.Errorf("error tool: %v", bad)
	}
}

// TestProgress: three progress notifications on the call's SSE stream,
// echoing the token with its JSON type, then the result.
func TestProgress(t *testing.T) {
	srv := newTestServer(t)
	for _, token := range []string{`7`, `"progress-test-1"`} {
		_, msgs := rpc(t, srv, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":`+token+`}}}`,
			map[string]string{"Mcp-Protocol-Version": mcp.Version20251125})
		if len(msgs) != 4 || msgs[3]["result"] == nil {
			t.Fatalf("token %s: want 3 notifications and a result, got %v", token, msgs)
		}
		var want any
		must(t, json.Unmarshal([]byte(token), &want))
		last := -1.0
		for _, m := range msgs[:3] {
			p := m["params"].(map[string]any)
			if m["method"] != "notifications/progress" || p["progressToken"] != want || p["total"] != 100.0 {
				t.Errorf("token %s: notification %v", token, m)
			}
			if got := p["progress"].(float64); got < last {
				t.Errorf("progress went down: %v after %v", got, last)
			} else {
				last = got
			}
		}
	}
}

// TestLogging: three notifications/message on the call's stream.
func TestLogging(t *testing.T) {
	srv := newTestServer(t)
	_, msgs := rpc(t, srv, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_tool_with_logging","arguments":{}}}`,
		map[string]string{"Mcp-Protocol-Version": mcp.Version20251125})
	n := 0
	for _, m := range msgs {
		if m["method"] == "notifications/message" {
			n++
		}
	}
	if n != 3 || msgs[len(msgs)-1]["result"] == nil {
		t.Errorf("want 3 log messages and a result, got %v", msgs)
	}
}

// modernCall is a 2026-07-28 tools/call with its headers.
func modernCall(t *testing.T, srv *httptest.Server, name, caps string) (int, []map[string]any) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"` + name + `","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	return rpc(t, srv, body, map[string]string{"Mcp-Protocol-Version": mcp.Version20260728,
		"Mcp-Method": "tools/call", "Mcp-Name": name})
}

// TestMissingCapability: test_missing_capability refuses a client without
// the sampling capability with -32021 and HTTP 400.
func TestMissingCapability(t *testing.T) {
	srv := newTestServer(t)
	status, msgs := modernCall(t, srv, "test_missing_capability", `{}`)
	e, _ := msgs[0]["error"].(map[string]any)
	if status != 400 || e == nil || e["code"] != float64(mcp.CodeMissingClientCapability) {
		t.Fatalf("status %d, %v", status, msgs)
	}
	if _, ok := e["data"].(map[string]any)["requiredCapabilities"].(map[string]any)["sampling"].(map[string]any); !ok {
		t.Errorf("requiredCapabilities does not name sampling: %v", e)
	}
	status, msgs = modernCall(t, srv, "test_missing_capability", `{"sampling":{}}`)
	if status != 200 || msgs[0]["result"] == nil {
		t.Errorf("with sampling declared: status %d, %v", status, msgs)
	}
}

// TestNoLogWithoutLevel: a 2026-07-28 request that names no log level gets
// no log messages.
func TestNoLogWithoutLevel(t *testing.T) {
	srv := newTestServer(t)
	_, msgs := modernCall(t, srv, "test_logging_tool", `{}`)
	if len(msgs) != 1 || msgs[0]["result"] == nil {
		t.Errorf("want only the result, got %v", msgs)
	}
}

// TestTriggerToolChange: the trigger adds test_dynamic_tool, then removes it.
func TestTriggerToolChange(t *testing.T) {
	ts := mcp.NewToolSet()
	must(t, registerTools(ts))
	n := ts.Len()
	for i, want := range []int{n + 1, n} {
		if _, err := toggleDynamic(ts); err != nil {
			t.Fatal(err)
		}
		if got := ts.Len(); got != want {
			t.Errorf("after toggle %d: %d tools, want %d", i+1, got, want)
		}
	}
}

// TestDNSRebinding: a foreign Host on the loopback listener is refused.
func TestDNSRebinding(t *testing.T) {
	srv := newTestServer(t)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(init))
	req.Host = "evil.example.com"
	req.Header.Set("Origin", "http://evil.example.com")
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("evil Host: status %d, want 403", resp.StatusCode)
	}
	if status, _ := rpc(t, srv, init, nil); status != 200 {
		t.Errorf("loopback Host: status %d", status)
	}
}

// TestRunStdio: -stdio serves the tools on stdin/stdout.
func TestRunStdio(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}` + "\n")
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"-stdio"}, in, &out, &errs); err != nil {
		t.Fatalf("run: %v (%s)", err, errs.String())
	}
	if !strings.Contains(out.String(), `"structuredContent":{"text":"hi"}`) {
		t.Errorf("stdout: %s", out.String())
	}
}

// TestRunBadArgs: stray arguments are an error, not ignored.
func TestRunBadArgs(t *testing.T) {
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"-stdio", "extra"}, strings.NewReader(""), &out, &errs); err == nil {
		t.Error("no error for a stray argument")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
