package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/embedmcp/mcp"
)

const token = "interop-secret-token"

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sum struct {
	Sum float64 `json:"sum"`
}

// testServer is embedmcp behind httptest with a bearer token, recording the
// JSON-RPC methods it receives in order.
type testServer struct {
	*httptest.Server
	tools *mcp.ToolSet

	mu      sync.Mutex
	methods []string
}

func (s *testServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.methods...)
}

func newTestServer(t *testing.T, versions []string) *testServer {
	t.Helper()
	ts := mcp.NewToolSet()
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo the text unchanged.", Permission: "demo.echo"},
		func(_ context.Context, _ *mcp.Request, in echoArgs) (echoArgs, error) { return in, nil }))
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "add", Description: "Add two numbers.", Permission: "demo.math"},
		func(_ context.Context, _ *mcp.Request, in addArgs) (sum, error) { return sum{in.A + in.B}, nil }))
	must(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "fail", Description: "Always fails.", Permission: "demo.echo"},
		func(context.Context, *mcp.Request) (*mcp.Result, error) {
			return nil, errors.New("the disk is full")
		})))
	must(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "secret", Description: "Not for this caller.", Permission: "admin.secret"},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("x"), nil })))
	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "interop", Version: "1.0.0", Versions: versions})
	h := mcp.NewHandler(server, &mcp.HandlerOptions{
		Authenticator: mcp.StaticTokens(map[string]mcp.Caller{token: {Principal: "interop", Grants: []string{"demo.*"}}}),
	})
	s := &testServer{tools: ts}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &m)
			s.mu.Lock()
			s.methods = append(s.methods, m.Method)
			s.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		} else {
			s.mu.Lock()
			s.methods = append(s.methods, r.Method)
			s.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// mustAdd fails t when AddTool fails: mustAdd(t)(mcp.AddTool(...)).
func mustAdd(t *testing.T) func(mcp.Tool, error) {
	return func(_ mcp.Tool, err error) { must(t, err) }
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func legacyOnly() []string {
	return []string{mcp.Version20250326, mcp.Version20250618, mcp.Version20251125}
}

// expectEra checks the order of the first methods the server saw: a
// default client probes server/discover; it initializes only when the
// server is legacy-only or the client is pinned to a legacy revision.
func expectEra(t *testing.T, seen []string, pinned, serverModern bool) {
	t.Helper()
	discover, initialize := indexOf(seen, "server/discover"), indexOf(seen, "initialize")
	switch {
	case pinned:
		if discover >= 0 || initialize != 0 {
			t.Errorf("a pinned client must initialize first and never probe; saw %v", seen)
		}
	case serverModern:
		if discover != 0 || initialize >= 0 {
			t.Errorf("against a dual-era server the client must stay modern (discover, no initialize); saw %v", seen)
		}
	default:
		if discover != 0 || initialize != 1 {
			t.Errorf("against a legacy-only server the probe must fail and the client fall back to initialize; saw %v", seen)
		}
	}
}

func context0(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}
