package mcp_test

// No panic escapes: a panic in a tool, a ToolMiddleware or a Middleware
// fails that call (or task) with -32603, is logged once with its stack,
// and the process goes on serving — on every path a call takes.

import (
	"bytes"
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
	"github.com/embedmcp/mcp/tasks"
)

const panicSecret = "panic-value-7f3a"

// panicServer serves "ok", "boom" (the tool panics) and "mwboom" (a
// ToolMiddleware panics on it), all of which may run as tasks; a
// Middleware panics on a tools/call of "mboom" and on every
// subscriptions/listen. Its log is returned.
func panicServer(t *testing.T) (*mcp.Server, *bytes.Buffer) {
	t.Helper()
	logs := &bytes.Buffer{}
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{w: logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts := mcp.NewToolSet()
	ok := func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("fine"), nil }
	hostileMust(t, ts.Register(
		mcp.NewRawTool(mcp.ToolInfo{Name: "ok", Description: "Fine.", TaskSupport: mcp.TaskOptional}, ok),
		mcp.NewRawTool(mcp.ToolInfo{Name: "echo", Description: "Fine."}, ok),
		mcp.NewRawTool(mcp.ToolInfo{Name: "mwboom", Description: "Its middleware panics.", TaskSupport: mcp.TaskOptional}, ok),
		mcp.NewRawTool(mcp.ToolInfo{Name: "mboom", Description: "Its Middleware panics.", TaskSupport: mcp.TaskOptional}, ok),
		mcp.NewRawTool(mcp.ToolInfo{Name: "boom", Description: "Panics.", TaskSupport: mcp.TaskOptional},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { panic(panicSecret) }),
	))
	s := mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Logger: logger,
		ToolMiddleware: []mcp.ToolMiddleware{func(ctx context.Context, req *mcp.Request, next mcp.ToolHandler) (*mcp.Result, error) {
			if req.Name == "mwboom" {
				m := map[string]map[string]int{}
				m[req.Name]["x"] = 1 // assignment to entry in nil map
			}
			return next(ctx, req)
		}},
		Middleware: []mcp.Middleware{func(ctx context.Context, msg *mcp.Message, next mcp.MessageHandler) mcp.Outcome {
			if msg.Name == "mboom" || msg.Method == "subscriptions/listen" {
				panic(panicSecret)
			}
			return next(ctx, msg)
		}},
	})
	return s, logs
}

// stacks counts the stacks logged.
func stacks(logs *bytes.Buffer) int { return strings.Count(logs.String(), "[running]") }

// wantPanicError checks a JSON-RPC response is -32603 for id, with
// nothing of the panic.
func wantPanicError(t *testing.T, what string, resp []byte, id string) {
	t.Helper()
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || r.Error == nil || r.Error.Code != mcp.CodeInternalError ||
		(id != "" && string(r.ID) != id) {
		t.Fatalf("%s: want -32603 for id %s, got %s", what, id, resp)
	}
	if bytes.Contains(resp, []byte(panicSecret)) || bytes.Contains(resp, []byte("goroutine")) {
		t.Fatalf("%s: the answer shows the panic: %s", what, resp)
	}
}

func callBody(id, tool string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

func TestPanicSynchronous(t *testing.T) {
	s, logs := panicServer(t)
	c := newTaskClient(t, s, "alice")
	c.caps = noTasksCaps
	for i, tool := range []string{"boom", "mwboom", "mboom"} {
		r := c.call(tool, `{}`)
		wantPanicError(t, tool+" (2026-07-28)", []byte(r.Raw), r.ID)
		_, resp := s.Handle(context.Background(), mcp.Caller{}, []byte(callBody("3", tool)))
		wantPanicError(t, tool+" (2025-03-26)", resp, "3")
		if n := stacks(logs); n != 2*(i+1) {
			t.Fatalf("after %s: %d stacks logged, want one per panic (%d)", tool, n, 2*(i+1))
		}
		if r := c.call("ok", `{}`); r.Error != nil {
			t.Fatalf("ok after %s: %s", tool, r.Raw)
		}
	}
	if !strings.Contains(logs.String(), panicSecret) {
		t.Error("the log should have the panic value")
	}
}

func TestPanicBatch(t *testing.T) {
	s, logs := panicServer(t)
	body := "[" + callBody("1", "ok") + "," + callBody("2", "boom") + "," + callBody("3", "mwboom") + "," + callBody("4", "mboom") + "]"
	status, resp := s.Handle(context.Background(), mcp.Caller{}, []byte(body))
	var out []json.RawMessage
	if err := json.Unmarshal(resp, &out); err != nil || status != 200 || len(out) != 4 {
		t.Fatalf("batch: %d %s", status, resp)
	}
	if !bytes.Contains(out[0], []byte(`"fine"`)) {
		t.Errorf("ok in a batch with panics: %s", out[0])
	}
	for i, id := range []string{"2", "3", "4"} {
		wantPanicError(t, "batch element "+id, out[i+1], id)
	}
	if n := stacks(logs); n != 3 {
		t.Errorf("%d stacks logged, want 3", n)
	}
}

// TestPanicTask: the task goroutine recovers what the call path does; a
// panicking ToolMiddleware fails the task instead of killing the process
// ("created by (*Server).launch").
func TestPanicTask(t *testing.T) {
	s, logs := panicServer(t)
	c := newTaskClient(t, s, "alice")
	for _, tool := range []string{"boom", "mwboom"} {
		id := c.start(tool, `{}`)
		r := c.wait(id, tasks.Failed)
		if strings.Contains(r.Raw, panicSecret) {
			t.Errorf("%s: the task shows the panic: %s", tool, r.Raw)
		}
		if e, _ := r.Result["error"].(map[string]any); e == nil || e["code"] != float64(mcp.CodeInternalError) {
			t.Errorf("%s: failed task's error %s, want -32603", tool, r.Raw)
		}
	}
	r := c.call("mboom", `{}`) // the Middleware runs before the task is made
	wantPanicError(t, "mboom as a task", []byte(r.Raw), r.ID)
	if n := stacks(logs); n != 3 {
		t.Errorf("%d stacks logged, want 3", n)
	}
	if id := c.start("ok", `{}`); c.wait(id, tasks.Completed).Error != nil {
		t.Error("ok after panicking tasks")
	}
}

// panicProtocol is a Protocol of one's own that panics on "explode".
type panicProtocol struct{ mcp.Protocol }

func (p panicProtocol) Handle(ctx context.Context, c mcp.Caller, body []byte) (int, []byte) {
	if bytes.Contains(body, []byte("explode")) {
		panic(panicSecret)
	}
	return p.Protocol.Handle(ctx, c, body)
}

func TestPanicStdio(t *testing.T) {
	s, logs := panicServer(t)
	var stdioLogs bytes.Buffer
	c := startStdio(t, panicProtocol{s}, &mcp.StdioOptions{
		Logger: slog.New(slog.NewJSONHandler(&lockedWriter{w: &stdioLogs}, nil))})
	for i, tool := range []string{"boom", "mwboom", "mboom", "explode"} {
		id := string(rune('1' + i))
		c.send(t, callBody(id, tool))
		wantPanicError(t, tool+" over stdio", []byte(c.recv(t)), id)
		c.send(t, callBody("9", "ok"))
		if got := c.recv(t); !strings.Contains(got, `"fine"`) {
			t.Fatalf("ok after %s over stdio: %s", tool, got)
		}
	}
	if n, m := stacks(logs), stacks(&stdioLogs); n != 3 || m != 1 {
		t.Errorf("stacks logged: %d by the Server, %d by ServeStdio; want 3 and 1", n, m)
	}
}

func TestPanicListen(t *testing.T) {
	s, logs := panicServer(t)
	srv := httptest.NewServer(mcp.NewHandler(s, nil))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp := postListen(ctx, t, srv.URL, "subscriptions/listen")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("listen with a panicking Middleware: %d %s", resp.StatusCode, b)
	}
	wantPanicError(t, "listen", b, "")
	if n := stacks(logs); n != 1 {
		t.Errorf("%d stacks logged, want 1", n)
	}
	if status, body := echoPost(t, srv.URL); status != 200 || strings.Contains(body, `"error"`) {
		t.Fatalf("a call after the listen's panic: %d %s", status, body)
	}
}
