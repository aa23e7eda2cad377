package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest/internal/examples"
)

// exampleServer serves ownTools plus a list tool (non-object output) and a
// tool that logs.
func exampleServer(t *testing.T, az mcp.Authorizer, opts *mcp.Options) *mcp.Server {
	ts := ownTools(t)
	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "letters", Description: "Splits a word.", Permission: "examples.read"},
		func(_ context.Context, _ *mcp.Request, in struct {
			Word string `json:"word"`
		}) ([]string, error) {
			return strings.Split(in.Word, ""), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	_, err = mcp.AddTool(ts, mcp.ToolInfo{Name: "chatty", Description: "Logs, then answers.", Permission: "examples.log"},
		func(_ context.Context, req *mcp.Request, _ struct{}) (map[string]any, error) {
			if err := req.Log(mcp.LevelInfo, "chatty", "working"); err != nil {
				return nil, err
			}
			return map[string]any{"done": true}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return mcp.NewServer(ts, az, opts)
}

func TestClientInProcess(t *testing.T) {
	srv := exampleServer(t, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "ex", Version: "9.9", PageSize: 1})
	c := NewClient(t, srv, &ClientOptions{Caller: Caller("alice", "examples.read")})

	init, err := c.Initialize()
	if err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != mcp.Version20251125 || init.ServerInfo.Name != "ex" || init.ServerInfo.Version != "9.9" {
		t.Errorf("initialize = %+v", init)
	}

	tools, err := c.ListTools() // one tool per page: the pages are followed
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if want := []string{"add", "echo", "letters"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v (chatty needs examples.log)", names, want)
	}
	if !strings.Contains(string(tools[0].InputSchema), `"a"`) || tools[0].Annotations == nil || tools[0].Annotations.IdempotentHint == nil {
		t.Errorf("add descriptor = %+v", tools[0])
	}

	sum := Call[examples.AddOut](t, c, "add", map[string]any{"a": 2, "b": 40})
	if sum.Sum != 42 {
		t.Errorf("sum = %v", sum.Sum)
	}
	if got := Call[[]string](t, c, "letters", map[string]string{"word": "abc"}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("letters = %q (the result wrapper should be removed)", got)
	}

	res, err := c.CallTool("echo", `{"text":"hi"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(ResultText(res), `"text":"hi"`) || res.StructuredContent == nil {
		t.Errorf("echo result = %+v", res)
	}
	res, err = c.CallTool("echo", map[string]any{"text": 5})
	if err != nil || !res.IsError || !strings.Contains(ResultText(res), "/text") {
		t.Errorf("echo with a number: %+v, %v; want an isError result naming /text", res, err)
	}

	for _, name := range []string{"chatty", "nope"} {
		_, err = c.CallTool(name, nil)
		var rpc *mcp.Error
		if !errors.As(err, &rpc) || rpc.Code != mcp.CodeInvalidParams || rpc.Message != "Unknown tool: "+name {
			t.Errorf("calling %s: err = %v, want Unknown tool", name, err)
		}
	}

	status, body := c.Raw(`{"jsonrpc":"2.0","id":1,`)
	if status != http.StatusBadRequest || !strings.Contains(string(body), `-32700`) {
		t.Errorf("raw malformed body: %d %s", status, body)
	}
	r, err := c.Do("no/such/method", nil)
	if err != nil || r.Error == nil || r.Error.Code != mcp.CodeMethodNotFound {
		t.Errorf("unknown method: %+v, %v", r, err)
	}
}

func TestClientNotifications(t *testing.T) {
	srv := exampleServer(t, mcp.AllowAll(), nil)
	var mu sync.Mutex
	var got []string
	c := NewClient(t, srv, &ClientOptions{Notify: func(method string, params json.RawMessage) {
		mu.Lock()
		got = append(got, method+" "+string(params))
		mu.Unlock()
	}})
	out := Call[map[string]bool](t, c, "chatty", nil)
	if !out["done"] {
		t.Errorf("chatty = %v", out)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "notifications/message ") || !strings.Contains(got[0], `"working"`) {
		t.Errorf("notifications = %q", got)
	}
}

// captureProtocol records what a client hands to a Protocol.
type captureProtocol struct {
	mcp.Protocol
	caller mcp.Caller
	body   []byte
}

func (p *captureProtocol) Handle(ctx context.Context, c mcp.Caller, body []byte) (int, []byte) {
	p.caller, p.body = c, body
	return p.Protocol.Handle(ctx, c, body)
}

func TestClientModernRequests(t *testing.T) {
	// The Exchange cannot be read back from ctx; check what reaches the tool.
	var seen mcp.Request
	ts := mcp.NewToolSet()
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "probe", Description: "d", Permission: "p"},
		func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
			seen = *req
			return mcp.TextResult("ok"), nil
		})); err != nil {
		t.Fatal(err)
	}
	p := &captureProtocol{Protocol: mcp.NewServer(ts, mcp.AllowAll(), nil)}
	c := NewClient(t, p, &ClientOptions{Caller: Caller("bob", "g"), ProtocolVersion: mcp.Version20260728})
	if _, err := c.CallTool("probe", map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	if p.caller.Principal != "bob" || !slices.Equal(p.caller.Grants, []string{"g"}) {
		t.Errorf("caller = %+v", p.caller)
	}
	var msg struct {
		Params struct {
			Name      string                     `json:"name"`
			Arguments map[string]int             `json:"arguments"`
			Meta      map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(p.body, &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Params.Name != "probe" || msg.Params.Arguments["x"] != 1 ||
		string(msg.Params.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` ||
		msg.Params.Meta["io.modelcontextprotocol/clientInfo"] == nil {
		t.Errorf("request body = %s", p.body)
	}
	if seen.ProtocolVersion != mcp.Version20260728 || string(seen.Arguments) != `{"x":1}` {
		t.Errorf("the tool saw version %q, arguments %s", seen.ProtocolVersion, seen.Arguments)
	}
	h := c.header("tools/call", "probe")
	if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != "probe" || h.Get("MCP-Protocol-Version") != mcp.Version20260728 {
		t.Errorf("headers = %v", h)
	}
}
