package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

// TestHTTPCancelledNotification: under 2025-11-25 a client gives up on a
// call by posting notifications/cancelled (a disconnect is not a
// cancellation in that revision); the call it names stops. A cancellation
// from another principal, for an unknown id, or naming two calls in
// flight with the same id stops nothing.
func TestHTTPCancelledNotification(t *testing.T) {
	type waitIn struct {
		Key string `json:"key"`
	}
	type waitOut struct {
		Done bool `json:"done"`
	}
	started := make(chan string, 4)
	stopped := make(chan string, 4)
	ts := mcp.NewToolSet()
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "wait", Description: "Wait until cancelled.", Permission: "t.wait"},
		func(ctx context.Context, _ *mcp.Request, in waitIn) (waitOut, error) {
			started <- in.Key
			select {
			case <-ctx.Done():
				stopped <- in.Key
				return waitOut{}, ctx.Err()
			case <-time.After(5 * time.Second):
				return waitOut{Done: true}, nil
			}
		}); err != nil {
		t.Fatal(err)
	}
	who := func(p string) mcp.Caller { return mcp.Caller{Principal: p, Grants: []string{"t.*"}} }
	h := mcp.NewHandler(mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil),
		&mcp.HandlerOptions{Authenticator: mcp.StaticTokens(map[string]mcp.Caller{"a": who("alice"), "b": who("bob")})})
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(token, body string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Authorization", "Bearer "+token)
		return http.DefaultClient.Do(req)
	}
	call := func(token, id, key string) chan string {
		out := make(chan string, 1)
		go func() {
			resp, err := post(token, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"wait","arguments":{"key":"`+key+`"}}}`)
			if err != nil {
				out <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			out <- string(b)
		}()
		if got := <-started; got != key {
			t.Fatalf("started %q, want %q", got, key)
		}
		return out
	}
	cancel := func(token, id string) {
		t.Helper()
		resp, err := post(token, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"gave up"}}`)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("notifications/cancelled: status %d, want 202", resp.StatusCode)
		}
	}
	none := func(what string) {
		t.Helper()
		select {
		case key := <-stopped:
			t.Fatalf("%s stopped the call %q", what, key)
		case <-time.After(100 * time.Millisecond):
		}
	}

	first := call("a", `"req-1"`, "first")
	cancel("b", `"req-1"`) // bob's cancellation does not name alice's call
	none("another principal's cancellation")
	cancel("a", `"req-2"`)
	none("a cancellation of an unknown id")
	cancel("a", `"req-1"`)
	select {
	case key := <-stopped:
		if key != "first" {
			t.Fatalf("stopped %q, want first", key)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("notifications/cancelled did not stop the call it names")
	}
	if body := <-first; !strings.Contains(body, `"id":"req-1"`) {
		t.Errorf("the cancelled call's answer: %s", body)
	}

	// Numeric ids match however they are written; two calls with one id
	// from one principal and host cannot be told apart: neither stops.
	one, two := call("a", "7", "one"), call("a", "7", "two")
	cancel("a", "7.0")
	none("a cancellation naming two calls")
	three := call("a", "8", "three")
	cancel("a", "8.0")
	if key := <-stopped; key != "three" {
		t.Fatalf("stopped %q, want three", key)
	}
	<-three
	<-one
	<-two
}
