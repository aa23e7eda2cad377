package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

func newTestServer(t *testing.T, cfg config) *httptest.Server {
	t.Helper()
	server, err := newServer(slog.New(slog.DiscardHandler), cfg.pageSize)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler, _ = newMux(server, cfg, "http://"+srv.Listener.Addr().String(), slog.New(slog.DiscardHandler))
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, token, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// result decodes a JSON response's result.structuredContent.
func result(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var r struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Error != nil || r.Result.IsError {
		t.Fatalf("call failed: %+v", r)
	}
	if err := json.Unmarshal(r.Result.StructuredContent, v); err != nil {
		t.Fatal(err)
	}
}

func call(name, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

func TestEchoAndAdd(t *testing.T) {
	srv := newTestServer(t, config{})
	var echo echoIO
	text := "Grüße, \"MCP\"\n\t<b>&</b> \u2028"
	in, _ := json.Marshal(echoIO{text})
	result(t, post(t, srv.URL+"/mcp", "", call("echo", string(in))), &echo)
	if echo.Text != text {
		t.Errorf("echo returned %q, want %q", echo.Text, text)
	}
	var sum addOut
	result(t, post(t, srv.URL+"/mcp", "", call("add", `{"a":0.5,"b":-2}`)), &sum)
	if sum.Sum != -1.5 {
		t.Errorf("add returned %v, want -1.5", sum.Sum)
	}
	resp := post(t, srv.URL+"/mcp", "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	b, _ := io.ReadAll(resp.Body)
	for _, name := range []string{`"echo"`, `"add"`, `"countdown"`} {
		if !strings.Contains(string(b), name) {
			t.Errorf("tools/list lacks %s: %s", name, b)
		}
	}
}

// TestPageSize: with -page-size 3, tools/list answers the four tools in
// two pages, the second reached with the first's nextCursor.
func TestPageSize(t *testing.T) {
	srv := newTestServer(t, config{pageSize: 3})
	page := func(cursor string) (names []string, next string) {
		t.Helper()
		params := `{}`
		if cursor != "" {
			c, _ := json.Marshal(cursor)
			params = `{"cursor":` + string(c) + `}`
		}
		resp := post(t, srv.URL+"/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+params+`}`)
		var r struct {
			Result struct {
				Tools      []struct{ Name string } `json:"tools"`
				NextCursor string                  `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		for _, tool := range r.Result.Tools {
			names = append(names, tool.Name)
		}
		return names, r.Result.NextCursor
	}
	first, next := page("")
	if len(first) != 3 || next == "" {
		t.Fatalf("first page: %v, nextCursor %q; want 3 tools and a cursor", first, next)
	}
	second, last := page(next)
	if len(second) != 1 || last != "" {
		t.Fatalf("second page: %v, nextCursor %q; want 1 tool and no cursor", second, last)
	}
	if err := run(context.Background(), []string{"-page-size", "-1"}, nil, io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "-page-size") {
		t.Errorf("run -page-size -1: %v, want an error naming -page-size", err)
	}
}

func TestToken(t *testing.T) {
	srv := newTestServer(t, config{token: "let-me-in", issuer: "https://auth.example.com"})
	resp := post(t, srv.URL+"/mcp", "", call("echo", `{"text":"x"}`))
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a token: %d", resp.StatusCode)
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	metaURL := srv.URL + "/.well-known/oauth-protected-resource"
	if !strings.Contains(challenge, `resource_metadata="`+metaURL+`"`) {
		t.Fatalf("challenge %q", challenge)
	}
	if resp := post(t, srv.URL+"/mcp", "wrong", call("echo", `{"text":"x"}`)); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("with a wrong token: %d", resp.StatusCode)
	}
	var echo echoIO
	result(t, post(t, srv.URL+"/mcp", "let-me-in", call("echo", `{"text":"x"}`)), &echo)
	if echo.Text != "x" {
		t.Fatalf("echo %q", echo.Text)
	}
	mresp, err := http.Get(metaURL)
	if err != nil {
		t.Fatal(err)
	}
	defer mresp.Body.Close()
	var md mcp.ResourceMetadata
	if err := json.NewDecoder(mresp.Body).Decode(&md); err != nil {
		t.Fatal(err)
	}
	if md.Resource != srv.URL+"/mcp" || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != "https://auth.example.com" {
		t.Fatalf("metadata %+v", md)
	}
}

// TestCountdownStreams: with a progress token, the countdown's progress
// arrives as SSE events before the result.
func TestCountdownStreams(t *testing.T) {
	srv := newTestServer(t, config{})
	resp := post(t, srv.URL+"/mcp", "",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"countdown","arguments":{"from":3},"_meta":{"progressToken":"c"}}}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	var methods []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m struct {
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatal(err)
		}
		if m.Result != nil {
			methods = append(methods, "result")
			if !strings.Contains(string(m.Result), "lift-off") {
				t.Errorf("result %s", m.Result)
			}
			continue
		}
		methods = append(methods, m.Method)
	}
	want := "notifications/progress notifications/progress notifications/progress notifications/message result"
	if got := strings.Join(methods, " "); got != want {
		t.Fatalf("events: %s\nwant: %s", got, want)
	}
}

func TestCountdownBounds(t *testing.T) {
	srv := newTestServer(t, config{})
	resp := post(t, srv.URL+"/mcp", "", call("countdown", `{"from":11}`))
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"isError":true`) || !strings.Contains(string(b), "between 1 and 10") {
		t.Fatalf("countdown 11: %s", b)
	}
}

func TestRunStdio(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
` + call("echo", `{"text":"over stdio"}`) + "\n")
	var out, errs strings.Builder
	if err := run(context.Background(), []string{"-stdio"}, in, &out, &errs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"2025-11-25"`) || !strings.Contains(lines[1], `"structuredContent":{"text":"over stdio"}`) {
		t.Fatalf("stdout:\n%s", out.String())
	}
}

// listenRequest is a 2026-07-28 subscriptions/listen request.
func listenRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen",`+
		`"params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", mcp.Version20260728)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	return req
}

// TestRunHTTP: the server answers, and stops at once when its context
// ends, even with a listen stream open.
func TestRunHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, nil, pw, io.Discard); pw.Close() }()
	br := bufio.NewReader(pr)
	first, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(first), "MCP server listening on ")
	if !ok {
		t.Fatalf("first line %q", first)
	}
	go io.Copy(io.Discard, br)
	var echo echoIO
	result(t, post(t, url, "", call("echo", `{"text":"hi"}`)), &echo)
	if echo.Text != "hi" {
		t.Fatalf("echo %q", echo.Text)
	}
	// An open subscriptions/listen stream must not hold up the shutdown.
	listen := listenRequest(t, url)
	resp, err := http.DefaultClient.Do(listen)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ack, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("listen: %d %q %v", resp.StatusCode, ack, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not stop")
	}
}

// modern posts a 2026-07-28 request declaring the Tasks extension, with
// the headers that revision requires, and decodes the result.
func modern(t *testing.T, url, method, name, members string) map[string]any {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + members + `,"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Error != nil {
		t.Fatalf("%s: %v %v", method, err, r.Error)
	}
	return r.Result
}

// TestReportRunsAsTask: for a client that declares the Tasks extension,
// report answers with a task at once, and tasks/get returns the report.
func TestReportRunsAsTask(t *testing.T) {
	srv := newTestServer(t, config{})
	start := time.Now()
	created := modern(t, srv.URL+"/mcp", "tools/call", "report", `"name":"report","arguments":{"seconds":1}`)
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("report did not answer with a task at once: %v", created)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got := modern(t, srv.URL+"/mcp", "tasks/get", id, `"taskId":"`+id+`"`)
		if got["status"] == "completed" {
			sc := got["result"].(map[string]any)["structuredContent"].(map[string]any)
			if sc["taskId"] != id || sc["lines"].(float64) < 5 {
				t.Errorf("report: %v", sc)
			}
			return
		}
		if got["status"] != "working" || time.Now().After(deadline) {
			t.Fatalf("task: %v", got)
		}
	}
}
