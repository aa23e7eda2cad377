package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestCallPathDepth: a tools/call over HTTP reaches the tool on the
// goroutine of Handler.ServeHTTP, through one frame per step (Handle,
// handleOne, answer, dispatch, callTool, execute, run, the tool's
// Execute): no goroutine hop, no wrapper that only calls the next.
func TestCallPathDepth(t *testing.T) {
	const maxFrames = 9 // from Handler.ServeHTTP to the tool's Execute, both counted
	var path []string
	ts := mcp.NewToolSet()
	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "depth", Description: "Report the call path."},
		func(ctx context.Context, req *mcp.Request, in struct{}) (struct{}, error) {
			pc := make([]uintptr, 64)
			frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)]) // from the tool's caller
			for {
				f, more := frames.Next()
				path = append(path, f.Function)
				if strings.HasSuffix(f.Function, "mcp.(*Handler).ServeHTTP") || !more {
					break
				}
			}
			return struct{}{}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	h := mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), nil), nil)
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"depth","arguments":{},"_meta":{`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
			`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},`+
			`"io.modelcontextprotocol/clientCapabilities":{}}}}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "tools/call")
	r.Header.Set("Mcp-Name", "depth")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK || len(path) == 0 {
		t.Fatalf("tools/call answered %d %s; the tool saw %d frames", w.Code, w.Body, len(path))
	}
	if !strings.HasSuffix(path[len(path)-1], "mcp.(*Handler).ServeHTTP") {
		t.Fatalf("the tool does not run on ServeHTTP's goroutine:\n%s", strings.Join(path, "\n"))
	}
	if len(path) > maxFrames {
		t.Errorf("%d frames from Handler.ServeHTTP to the tool, want at most %d:\n%s", len(path), maxFrames, strings.Join(path, "\n"))
	}
}
