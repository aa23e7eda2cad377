package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

// readTimeoutServer serves h with an http.Server whose ReadTimeout is d.
func readTimeoutServer(h http.Handler, d time.Duration) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadTimeout = d
	srv.Start()
	return srv
}

// TestSlowBodyServerReadTimeout: where the http.Server's ReadTimeout is
// shorter than BodyTimeout, it is the body's deadline (the Handler sets
// none of its own): a body still incomplete then is answered 408, naming
// ReadTimeout, and its connection closed.
func TestSlowBodyServerReadTimeout(t *testing.T) {
	t.Parallel()
	var entered atomic.Int64
	h := mcp.NewHandler(mcp.NewServer(nil, mcp.AllowAll(), nil), nil) // BodyTimeout 30s
	srv := readTimeoutServer(countEntered(h, &entered), 300*time.Millisecond)
	defer srv.Close()
	conns := slowBodyAttack(t, strings.TrimPrefix(srv.URL, "http://"), &entered, 5, 1<<20)
	defer closeAll(conns)
	expectTimedOut(t, conns, "http.Server.ReadTimeout")
}

// TestServerReadTimeoutLongCall: once the body is read, neither the
// server's ReadTimeout nor anything the Handler set ends a call that runs
// longer, answered as JSON or as an SSE stream.
func TestServerReadTimeoutLongCall(t *testing.T) {
	t.Parallel()
	ts := mcp.NewToolSet()
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "slow", Description: "Answers after a while."},
		func(ctx context.Context, req *mcp.Request, in struct{}) (struct {
			Done bool `json:"done"`
		}, error) {
			req.Progress(0, 1, "started")
			select {
			case <-time.After(600 * time.Millisecond):
			case <-ctx.Done():
				return struct {
					Done bool `json:"done"`
				}{}, ctx.Err()
			}
			return struct {
				Done bool `json:"done"`
			}{true}, nil
		}))
	srv := readTimeoutServer(mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), nil), nil), 200*time.Millisecond)
	defer srv.Close()
	for _, accept := range []string{"application/json", "application/json, text/event-stream"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"p"}}}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("Accept %q: %v", accept, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(got), `{\"done\":true}`) {
			t.Fatalf("Accept %q: %d %v %s, want the call's answer", accept, resp.StatusCode, err, got)
		}
	}
}
