package mcptest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/embedmcp/mcp"
)

// testHandler is a minimal MCP handler: it serves p as the caller named by
// the Authorization header, answers tools/call of "stream" with an event
// stream, and records the headers of each request.
type testHandler struct {
	p       mcp.Protocol
	mu      sync.Mutex
	headers []http.Header
}

func (h *testHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.headers = append(h.headers, r.Header.Clone())
	h.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	caller := Caller(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), "examples.*")
	ctx := mcp.ContextWithExchange(r.Context(), &mcp.Exchange{ProtocolVersion: r.Header.Get("MCP-Protocol-Version"), Header: r.Header})
	if r.Header.Get("Mcp-Name") == "stream" || strings.Contains(string(body), `"name":"stream"`) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\n")
		fmt.Fprint(w, "data: \"params\":{\"progress\":1}}\n\n")
		fmt.Fprint(w, ": a comment\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sampling/createMessage\"}\n\n")
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &req)
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"streamed\"}]}}\n\n", req.ID)
		return
	}
	status, resp := h.p.Handle(ctx, caller, body)
	if len(resp) > 0 {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	w.Write(resp)
}

func TestServerClient(t *testing.T) {
	h := &testHandler{p: exampleServer(t, mcp.GrantsAuthorizer{}, nil)}
	s := NewHTTPServer(t, h)
	var notes []string
	c := s.MCPClient("/mcp", &ClientOptions{
		Header: http.Header{"Authorization": {"Bearer carol"}},
		Notify: func(m string, p json.RawMessage) { notes = append(notes, m+" "+string(p)) },
	})
	if _, err := c.Initialize(); err != nil {
		t.Fatal(err)
	}
	if got := Call[map[string]any](t, c, "add", map[string]int{"a": 1, "b": 2}); got["sum"] != 3.0 {
		t.Errorf("add = %v", got)
	}
	res, err := c.CallTool("stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ResultText(res) != "streamed" {
		t.Errorf("streamed result = %+v", res)
	}
	if len(notes) != 1 || notes[0] != `notifications/progress {"progress":1}` {
		t.Errorf("notifications = %q", notes)
	}
	status, body := c.Raw(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if status != http.StatusAccepted || len(body) != 0 {
		t.Errorf("notification: %d %q", status, body)
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	first, call := h.headers[0], h.headers[2]
	if first.Get("MCP-Protocol-Version") != "" {
		t.Errorf("initialize sent MCP-Protocol-Version %q", first.Get("MCP-Protocol-Version"))
	}
	for k, want := range map[string]string{
		"Content-Type":         "application/json",
		"Accept":               "application/json, text/event-stream",
		"Mcp-Protocol-Version": mcp.Version20251125,
		"Authorization":        "Bearer carol",
	} {
		if got := call.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if call.Get("Mcp-Method") != "" {
		t.Errorf("Mcp-Method sent under 2025-11-25")
	}
}

func TestServerClientModernHeaders(t *testing.T) {
	h := &testHandler{p: exampleServer(t, mcp.AllowAll(), nil)}
	c := NewHTTPServer(t, h).MCPClient("", &ClientOptions{ProtocolVersion: mcp.Version20260728})
	if _, err := c.CallTool("stream", nil); err != nil {
		t.Fatal(err)
	}
	got := h.headers[0]
	if got.Get("Mcp-Method") != "tools/call" || got.Get("Mcp-Name") != "stream" || got.Get("MCP-Protocol-Version") != mcp.Version20260728 {
		t.Errorf("headers = %v", got)
	}
}

func TestReadStreamWithoutResponse(t *testing.T) {
	_, err := readStream(strings.NewReader("data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n"), nil)
	if err == nil || !strings.Contains(err.Error(), "without a response") {
		t.Errorf("err = %v", err)
	}
}
