package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
	"github.com/embedmcp/mcp/tasks"
)

// Fixtures of the task tests: a client that speaks 2026-07-28 to a Server
// in process, and tools that run as tasks.

const (
	tasksCaps   = `{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}`
	noTasksCaps = `{"elicitation":{}}`
)

// taskReply is a decoded response.
type taskReply struct {
	ID     string `json:"-"` // the request's id
	Status int
	Raw    string
	Result map[string]any
	Error  *taskError
}

// taskError is a JSON-RPC error of a taskReply.
type taskError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

// str returns a string member of the result.
func (r taskReply) str(key string) string { s, _ := r.Result[key].(string); return s }

// taskClient calls a Server under 2026-07-28 as one caller with the given
// client capabilities: through an mcptest.Client, or, when ctx is set,
// straight through Handle under ctx (a transport of the test's own).
type taskClient struct {
	t      *testing.T
	s      mcp.Protocol
	caller mcp.Caller
	caps   string
	ctx    context.Context
}

func newTaskClient(t *testing.T, s mcp.Protocol, principal string) *taskClient {
	return &taskClient{t: t, s: s, caller: mcp.Caller{Principal: principal}, caps: tasksCaps}
}

// client is the mcptest.Client of c's caller and capabilities.
func (c *taskClient) client() *mcptest.Client {
	var caps map[string]any
	if err := json.Unmarshal([]byte(c.caps), &caps); err != nil {
		c.t.Fatal(err)
	}
	return mcptest.NewClient(c.t, c.s, &mcptest.ClientOptions{Caller: c.caller, ProtocolVersion: mcp.Version20260728, Capabilities: caps})
}

// body is a request of method whose params hold members (JSON object
// members, without braces) and the 2026-07-28 _meta.
func (c *taskClient) body(method, members string) []byte {
	if members != "" {
		members += ","
	}
	return []byte(`{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + members +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":` + c.caps + `}}}`)
}

func (c *taskClient) do(method, members string) taskReply {
	c.t.Helper()
	if c.ctx == nil {
		resp, err := c.client().Do(method, json.RawMessage("{"+members+"}"))
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		r := taskReply{Status: resp.Status}
		if resp.Error != nil {
			r.Error = &taskError{Code: resp.Error.Code, Message: resp.Error.Message}
			r.Error.Data, _ = resp.Error.Data.(map[string]any)
		} else if err := json.Unmarshal(resp.Result, &r.Result); err != nil {
			c.t.Fatalf("%s: the result is not an object: %v: %s", method, err, resp.Result)
		}
		raw, _ := json.Marshal(struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result,omitempty"`
			Error  *taskError      `json:"error,omitempty"`
		}{resp.ID, resp.Result, r.Error})
		r.ID = string(resp.ID)
		r.Raw = string(raw)
		return r
	}
	status, body := c.s.Handle(c.ctx, c.caller, c.body(method, members))
	r := taskReply{ID: "7", Status: status, Raw: string(body)}
	if err := json.Unmarshal(body, &r); err != nil {
		c.t.Fatalf("%s: response is not JSON: %v: %s", method, err, body)
	}
	return r
}

func (c *taskClient) call(tool, args string) taskReply {
	c.t.Helper()
	return c.do("tools/call", `"name":"`+tool+`","arguments":`+args)
}

func (c *taskClient) get(id string) taskReply {
	c.t.Helper()
	return c.do("tasks/get", `"taskId":"`+id+`"`)
}

// start calls tool and returns the ID of the task it created.
func (c *taskClient) start(tool, args string) string {
	c.t.Helper()
	r := c.call(tool, args)
	if r.str("resultType") != "task" || r.str("taskId") == "" {
		c.t.Fatalf("%s did not create a task: %s", tool, r.Raw)
	}
	return r.str("taskId")
}

// wait polls tasks/get until the task's status is want or final.
func (c *taskClient) wait(id string, want tasks.Status) taskReply {
	c.t.Helper()
	var r taskReply
	var st tasks.Status
	if !eventually(10*time.Second, func() bool {
		r = c.get(id)
		st = tasks.Status(r.str("status"))
		return r.Error != nil || st == want || st.Terminal()
	}) {
		c.t.Fatalf("task %s still %s after 10s, want %s", id, st, want)
	}
	if st != want {
		c.t.Fatalf("task %s: want %s, got %s", id, want, r.Raw)
	}
	return r
}

// gate is a tool body that blocks until released or cancelled, and
// reports how its context ended.
type gate struct {
	started chan struct{}
	release chan string
	ended   chan error
}

func newGate() *gate {
	return &gate{started: make(chan struct{}, 64), release: make(chan string, 64), ended: make(chan error, 64)}
}

func (g *gate) run(ctx context.Context, _ *mcp.Request) (*mcp.Result, error) {
	g.started <- struct{}{}
	select {
	case text := <-g.release:
		return mcp.TextResult(text), nil
	case <-ctx.Done():
		g.ended <- context.Cause(ctx)
		return nil, ctx.Err()
	}
}

// awaitStart waits for the gate's tool to start.
func (g *gate) awaitStart(t *testing.T) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool did not start")
	}
}

// askTool asks for input twice, then answers with what it learnt.
func askTool(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
	if _, ok := req.InputResponse("again"); ok {
		return mcp.TextResult(fmt.Sprintf("done; state %s; task %t", req.State(), req.TaskID() != "")), nil
	}
	name, ok1 := req.InputResponse("name")
	confirm, ok2 := req.InputResponse("confirm")
	if !ok1 || !ok2 {
		return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{
			"name":    mcp.Elicitation("Name?", schema),
			"confirm": mcp.Elicitation("Sure?", schema),
		}, State: []byte("r1")}
	}
	return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{"again": mcp.Elicitation(
		"Again? ("+string(name)+" "+string(confirm)+")", schema)}, State: []byte("r2")}
}

// preTool gathers the user's name before its task starts (Validate asks
// through a multi round-trip request), then greets in the task.
type preTool struct{ info mcp.ToolInfo }

func (p *preTool) Info() *mcp.ToolInfo { return &p.info }
func (p *preTool) Validate(_ context.Context, req *mcp.Request) error {
	if _, ok := req.InputResponse("user_name"); !ok {
		return &mcp.InputRequired{Requests: map[string]mcp.InputRequest{"user_name": mcp.Elicitation("Name?",
			map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}})}}
	}
	return nil
}
func (p *preTool) Execute(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
	raw, _ := req.InputResponse("user_name")
	var r struct {
		Content struct{ Name string } `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	return mcp.TextResult("Hello, " + r.Content.Name + " (task " + req.TaskID() + ")"), nil
}

// taskTools registers the tools of the task tests; slow runs g.
func taskTools(t *testing.T, g *gate) *mcp.ToolSet {
	t.Helper()
	ts := mcp.NewToolSet()
	raw := func(name string, support mcp.TaskSupport, fn func(context.Context, *mcp.Request) (*mcp.Result, error)) mcp.Tool {
		return mcp.NewRawTool(mcp.ToolInfo{Name: name, Description: name, Permission: "tasks." + name, TaskSupport: support}, fn)
	}
	err := ts.Register(
		raw("slow", mcp.TaskOptional, g.run),
		raw("must", mcp.TaskRequired, func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("ok"), nil }),
		raw("sync", mcp.TaskNever, func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("now"), nil }),
		raw("boom", mcp.TaskOptional, func(context.Context, *mcp.Request) (*mcp.Result, error) {
			return nil, &mcp.Error{Code: -32050, Message: "quota exceeded", Data: map[string]any{"retryAfter": 3}}
		}),
		raw("oops", mcp.TaskOptional, func(context.Context, *mcp.Request) (*mcp.Result, error) { return nil, errors.New("disk full") }),
		raw("panics", mcp.TaskOptional, func(context.Context, *mcp.Request) (*mcp.Result, error) { panic("kaboom") }),
		raw("big", mcp.TaskOptional, func(context.Context, *mcp.Request) (*mcp.Result, error) {
			return mcp.TextResult(strings.Repeat("x", 4096)), nil
		}),
		raw("ask", mcp.TaskOptional, askTool),
		&preTool{info: mcp.ToolInfo{Name: "pre", Description: "pre", Permission: "tasks.pre", TaskSupport: mcp.TaskRequired}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// taskFixture serves the task tests' tools with opts (which may be nil),
// and returns the Server, a client as alice, and the gate of slow.
func taskFixture(t *testing.T, opts *mcp.Options) (*mcp.Server, *taskClient, *gate) {
	t.Helper()
	g := newGate()
	s := mcp.NewServer(taskTools(t, g), grantsAll, opts)
	return s, newTaskClient(t, s, "alice"), g
}

// grantsAll lets every caller use the task tests' tools, except callers
// named "nogrants".
var grantsAll = mcp.AuthorizerFunc(func(_ context.Context, c mcp.Caller, _ string) bool { return c.Principal != "nogrants" })

// failingStore is a tasks.Store that is down.
type failingStore struct{}

var errStoreDown = errors.New("connection refused")

func (failingStore) Create(context.Context, *tasks.Record, time.Duration) error {
	return errStoreDown
}
func (failingStore) Get(context.Context, string) (*tasks.Record, error)       { return nil, errStoreDown }
func (failingStore) Swap(context.Context, *tasks.Record, time.Duration) error { return errStoreDown }
func (failingStore) Renew(context.Context, string, []string, time.Duration) ([]string, error) {
	return nil, errStoreDown
}
func (failingStore) Watch(func(tasks.Change)) func() { return func() {} }

// countingStore counts the operations on a store.
type countingStore struct {
	tasks.Store
	mu  sync.Mutex
	ops map[string]int
}

func (c *countingStore) count(op string) {
	c.mu.Lock()
	if c.ops == nil {
		c.ops = map[string]int{}
	}
	c.ops[op]++
	c.mu.Unlock()
}

func (c *countingStore) Create(ctx context.Context, r *tasks.Record, l time.Duration) error {
	c.count("create")
	return c.Store.Create(ctx, r, l)
}

func (c *countingStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	c.count("get")
	return c.Store.Get(ctx, id)
}

func (c *countingStore) Swap(ctx context.Context, r *tasks.Record, l time.Duration) error {
	c.count("swap")
	return c.Store.Swap(ctx, r, l)
}
