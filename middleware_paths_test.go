package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
	"github.com/google/jsonschema-go/jsonschema"
)

// The ToolMiddleware promise (see mcp.ToolMiddleware), held on every path a
// tools/call takes: a call the Server runs reaches the middleware exactly
// once, after its arguments were validated, and the middleware sees its
// outcome — invalid arguments, a tool's error and a panic included —
// whether the call is answered at once, in a batch, over stdio, through
// CallTool, or runs as a task; a task-only tool called without the Tasks
// extension is refused before and never reaches it.

// mwSeen records what a ToolMiddleware saw, one entry per call.
type mwSeen struct {
	mu   sync.Mutex
	seen []string // tool:outcome
}

func (r *mwSeen) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seen
	r.seen = nil
	return s
}

func (r *mwSeen) middleware(ctx context.Context, req *mcp.Request, next mcp.ToolHandler) (*mcp.Result, error) {
	res, err := next(ctx, req)
	outcome := "ok"
	var ae *mcp.ArgumentError
	switch {
	case errors.As(err, &ae):
		outcome = "invalid"
	case errors.Is(err, mcp.ErrToolPanic):
		outcome = "panic"
	case err != nil:
		outcome = "error: " + err.Error()
	case res.IsError:
		outcome = "isError"
	}
	r.mu.Lock()
	r.seen = append(r.seen, req.Name+":"+outcome)
	r.mu.Unlock()
	return res, err
}

// mwPathServer serves a tool per TaskSupport ("never", "optional",
// "required"); each takes {"mode": "ok" | "fail" | "panic"}.
func mwPathServer(t *testing.T) (*mcp.Server, *mwSeen) {
	t.Helper()
	rec := &mwSeen{}
	schema := &jsonschema.Schema{}
	hostileMust(t, json.Unmarshal([]byte(`{"type":"object","properties":{"mode":{"type":"string","enum":["ok","fail","panic"]}},"required":["mode"]}`), schema))
	run := func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
		var in struct{ Mode string }
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, err
		}
		switch in.Mode {
		case "fail":
			return nil, errors.New("the tool failed")
		case "panic":
			panic("tool panic")
		}
		return mcp.TextResult("ran"), nil
	}
	ts := mcp.NewToolSet()
	for name, support := range map[string]mcp.TaskSupport{"never": mcp.TaskNever, "optional": mcp.TaskOptional, "required": mcp.TaskRequired} {
		hostileMust(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: name, Description: "Runs.", InputSchema: schema, TaskSupport: support}, run)))
	}
	s := mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{ToolMiddleware: []mcp.ToolMiddleware{rec.middleware},
		Logger: slog.New(slog.DiscardHandler)})
	return s, rec
}

// mwCallBody is a tools/call of tool with args; under 2026-07-28 its _meta
// carries the revision and the client's capabilities (with or without the
// Tasks extension), which earlier revisions ignore.
func mwCallBody(id int, tool, args, version string, tasks bool) string {
	caps := noTasksCaps
	if tasks {
		caps = tasksCaps
	}
	meta := `"io.modelcontextprotocol/clientCapabilities":` + caps
	if version == mcp.Version20260728 {
		meta += `,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}`
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{%s}}}`,
		id, tool, args, meta)
}

func TestToolMiddlewareEveryPath(t *testing.T) {
	s, rec := mwPathServer(t)
	stdio := startStdio(t, s, nil)
	type transport struct {
		name     string
		version  string
		batch    bool
		stdio    bool
		callTool bool
	}
	transports := []transport{
		{name: "http", version: mcp.Version20251125},
		{name: "http", version: mcp.Version20260728},
		{name: "batch", version: mcp.Version20250326, batch: true},
		{name: "stdio", version: mcp.Version20250326, stdio: true},
		{name: "stdio", version: mcp.Version20260728, stdio: true},
		{name: "CallTool", version: mcp.Version20260728, callTool: true},
	}
	cases := []struct{ args, want string }{
		{`{"mode":"ok"}`, "ok"},
		{`{"mode":1}`, "invalid"},
		{`{}`, "invalid"},
		{`{"mode":"fail"}`, "isError"},
		{`{"mode":"panic"}`, "panic"},
	}
	id := 0
	for _, tr := range transports {
		for _, tasks := range []bool{false, true} {
			for _, tool := range []string{"never", "optional", "required"} {
				for _, c := range cases {
					id++
					name := fmt.Sprintf("%s %s tasks=%v %s %s", tr.name, tr.version, tasks, tool, c.args)
					if tr.callTool && tasks {
						continue // CallTool runs no task
					}
					// A task is made when the tool allows one, the call is made
					// under 2026-07-28 by a client declaring the extension
					// (over any transport that carries its _meta), and the
					// arguments are valid.
					modernTasks := tasks && tr.version == mcp.Version20260728 && !tr.callTool
					asTask := tool != "never" && modernTasks && c.want != "invalid"
					refused := tool == "required" && !modernTasks && !tr.callTool
					var answer string
					switch {
					case tr.callTool:
						req := mcp.NewRequest(mcp.Caller{Principal: "local"}, tool, json.RawMessage(c.args))
						req.ProtocolVersion = tr.version
						res, err := s.CallTool(context.Background(), req)
						answer = fmt.Sprintf("%+v %v", res, err)
					case tr.stdio:
						stdio.send(t, mwCallBody(id, tool, c.args, tr.version, tasks))
						answer = stdio.recv(t)
					case tr.batch:
						_, b := s.Handle(context.Background(), mcp.Caller{Principal: "local"},
							[]byte("["+mwCallBody(id, tool, c.args, tr.version, tasks)+`,{"jsonrpc":"2.0","id":0,"method":"ping"}]`))
						answer = string(b)
					default:
						ctx := mcp.ContextWithExchange(context.Background(), &mcp.Exchange{ProtocolVersion: tr.version})
						_, b := s.Handle(ctx, mcp.Caller{Principal: "local"}, []byte(mwCallBody(id, tool, c.args, tr.version, tasks)))
						answer = string(b)
					}
					want := []string{tool + ":" + c.want}
					switch {
					case refused:
						if !strings.Contains(answer, `"code":-32021`) && !strings.Contains(answer, `"code":-32603`) {
							t.Errorf("%s: a task-only tool without the extension: %s", name, answer)
						}
						want = nil
					case asTask:
						if !strings.Contains(answer, `"resultType":"task"`) {
							t.Errorf("%s: no task made: %s", name, answer)
							continue
						}
						waitTask(t, s, answer, name)
					}
					if got := rec.take(); strings.Join(got, " ") != strings.Join(want, " ") {
						t.Errorf("%s: the middleware saw %q, want %q (answer %s)", name, got, want, answer)
					}
				}
			}
		}
	}
}

// waitTask waits until the task created by answer has finished: its
// middleware has returned by then.
func waitTask(t *testing.T, s *mcp.Server, answer, name string) {
	t.Helper()
	var created struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &created); err != nil || created.Result.TaskID == "" {
		t.Fatalf("%s: no task ID in %s", name, answer)
	}
	c := newTaskClient(t, s, "local")
	if !eventually(10*time.Second, func() bool {
		switch st := c.get(created.Result.TaskID).str("status"); st {
		case string(tasks.Completed), string(tasks.Failed):
			return true
		case string(tasks.Working):
			return false
		default:
			t.Fatalf("%s: task status %q", name, st)
			return false
		}
	}) {
		t.Fatalf("%s: the task did not finish", name)
	}
}

// TestToolMiddlewareResumedTask: a task resumed by tasks/update runs its
// whole path again in the task (validation, then the middleware around the
// tool): the middleware sees each run once, the request for input and the
// outcome of the resumed run.
func TestToolMiddlewareResumedTask(t *testing.T) {
	rec := &mwSeen{}
	ts := mcp.NewToolSet()
	hostileMust(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "ask", Description: "Asks a name.", TaskSupport: mcp.TaskRequired},
		func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
			if _, ok := req.InputResponse("name"); !ok {
				return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{
					"name": mcp.Elicitation("Your name?", map[string]any{"type": "object"})}}
			}
			return mcp.TextResult("hello"), nil
		})))
	s := mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{ToolMiddleware: []mcp.ToolMiddleware{rec.middleware},
		Logger: slog.New(slog.DiscardHandler)})
	c := newTaskClient(t, s, "alice")
	id := c.start("ask", `{}`)
	c.wait(id, tasks.InputRequired)
	if got := rec.take(); len(got) != 1 || !strings.HasPrefix(got[0], "ask:error: mcp: input required") {
		t.Errorf("the first run: the middleware saw %q, want the request for input once", got)
	}
	if r := c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"name#1":{"action":"accept","content":{"name":"Ada"}}}`); r.Error != nil {
		t.Fatalf("tasks/update: %s", r.Raw)
	}
	c.wait(id, tasks.Completed)
	if got := rec.take(); strings.Join(got, " ") != "ask:ok" {
		t.Errorf("the resumed run: the middleware saw %q, want [ask:ok]", got)
	}
}
