package mcptest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
	"github.com/embedmcp/mcp/tasks"
)

// TestClientPerRequestErrors: under 2026-07-28 some JSON-RPC errors come
// with an HTTP status other than 200 (an unknown method: 404); Do returns
// them in the Response, with the status, and the error of an unknown tool
// (200) reaches CallTool as the error the wire says.
func TestClientPerRequestErrors(t *testing.T) {
	c := mcptest.NewClient(t, mcp.NewServer(mcp.NewToolSet(), mcp.AllowAll(), nil),
		&mcptest.ClientOptions{ProtocolVersion: mcp.Version20260728})
	r, err := c.Do("no/such/method", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Error == nil || r.Error.Code != mcp.CodeMethodNotFound || r.Status != http.StatusNotFound {
		t.Errorf("unknown method: status %d, error %v; want -32601 with 404", r.Status, r.Error)
	}
	if _, err := c.CallTool("nosuchtool", nil); !errors.Is(err, mcp.ErrUnknownTool) {
		t.Errorf("CallTool of an unknown tool: %v, want mcp.ErrUnknownTool", err)
	}
}

// TestClientCapabilities: the capabilities a client declares reach the
// server, in _meta from 2026-07-28 on: a task-only tool runs as a task for
// a client that declares the Tasks extension, and is refused to one that
// does not.
func TestClientCapabilities(t *testing.T) {
	ts := mcp.NewToolSet()
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "job", Description: "A job.", TaskSupport: mcp.TaskRequired},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("done"), nil })); err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(ts, mcp.AllowAll(), nil)
	for _, tc := range []struct {
		name string
		caps map[string]any
		task bool
	}{
		{"declared", map[string]any{"extensions": map[string]any{tasks.Extension: map[string]any{}}}, true},
		{"none", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mcptest.NewClient(t, s, &mcptest.ClientOptions{ProtocolVersion: mcp.Version20260728, Capabilities: tc.caps})
			r, err := c.Do("tools/call", map[string]any{"name": "job"})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Error == nil && strings.Contains(string(r.Result), `"resultType":"task"`); got != tc.task {
				t.Errorf("a task: %v, want %v (%d %s %v)", got, tc.task, r.Status, r.Result, r.Error)
			}
			if !tc.task && (r.Error == nil || r.Status != http.StatusBadRequest) {
				t.Errorf("without the extension: %d %v, want the error with 400", r.Status, r.Error)
			}
		})
	}
}
