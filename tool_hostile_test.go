package mcp_test

// Hostile tools: tools that panic, hang, flood, or break their own output
// schema. Each is answered with a defined error, nothing of the tool's
// internals reaches the client, and the server keeps answering.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

const hostileSecret = "s3cr3t-panic-value-0xdeadbeef"

// hostileServer serves tools that misbehave, and a well-behaved echo, over
// a real loopback HTTP server. The log of the ToolSet and the Server is
// returned, to check what reached it.
func hostileServer(t *testing.T, opts *mcp.Options) (url string, logs *bytes.Buffer) {
	t.Helper()
	logs = &bytes.Buffer{}
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{w: logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts := mcp.NewToolSet()
	type text struct {
		Text string `json:"text"`
	}
	type small struct {
		N int `json:"n"`
	}
	outSchema, err := mcp.ParseSchema([]byte(`{"type":"object","properties":{"n":{"type":"integer","maximum":10}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo text."},
		func(_ context.Context, _ *mcp.Request, in text) (text, error) { return in, nil }))
	hostileMust(t, ts.Register(
		mcp.NewRawTool(mcp.ToolInfo{Name: "panic", Description: "Panics."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { panic(hostileSecret) }),
		mcp.NewRawTool(mcp.ToolInfo{Name: "panic_error", Description: "Panics with an error value."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) {
				panic(fmt.Errorf("wrapped %s", hostileSecret))
			}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "hang", Description: "Never returns before its deadline."},
			func(ctx context.Context, _ *mcp.Request) (*mcp.Result, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "flood", Description: "Returns 1 MiB of text."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) {
				return mcp.TextResult(strings.Repeat("A", 1<<20)), nil
			}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "raw_breaks_schema", Description: "Structured output outside its schema.", OutputSchema: outSchema},
			func(context.Context, *mcp.Request) (*mcp.Result, error) {
				return &mcp.Result{Content: []mcp.Content{mcp.TextContent(`{"n":99}`)}, StructuredContent: json.RawMessage(`{"n":99}`)}, nil
			}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "raw_bad_log", Description: "Logs raw data that is not JSON."},
			func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
				_ = req.Log(mcp.LevelError, "bad", json.RawMessage(`{"n":`))
				return mcp.TextResult("logged"), nil
			}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "raw_bad_json", Description: "Structured output that is not JSON."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) {
				return &mcp.Result{Content: []mcp.Content{mcp.TextContent("x")}, StructuredContent: json.RawMessage(`{"n":`)}, nil
			}),
	))
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "typed_breaks_schema", Description: "Typed output outside its schema.", OutputSchema: outSchema},
		func(context.Context, *mcp.Request, struct{}) (small, error) { return small{N: 99}, nil }))
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "validate_panics", Description: "Panics while validating."},
		func(context.Context, *mcp.Request, hostilePanicky) (text, error) { return text{"unreachable"}, nil }))

	o := mcp.Options{}
	if opts != nil {
		o = *opts
	}
	o.Logger = logger
	srv := httptest.NewServer(mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), &o), nil))
	t.Cleanup(srv.Close)
	return srv.URL, logs
}

// hostilePanicky panics when decoded from JSON, that is in the tool's
// Validate step.
type hostilePanicky struct{}

func (*hostilePanicky) UnmarshalJSON([]byte) error { panic(hostileSecret) }

// lockedWriter serialises writes of concurrent loggers into a buffer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(b)
}

func hostileMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// hostileAnswer is a decoded tools/call answer.
type hostileAnswer struct {
	Status int
	Raw    string
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
}

// hostileCall calls a tool over HTTP and checks the answer is one JSON-RPC
// response.
func hostileCall(t *testing.T, url, tool, version string) hostileAnswer {
	t.Helper()
	args := `{}`
	if tool == "echo" {
		args = `{"text":"hi"}`
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: the server did not answer: %v", tool, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := hostileAnswer{Status: resp.StatusCode, Raw: string(raw)}
	if !json.Valid(raw) {
		t.Fatalf("%s: answer is not valid JSON: %.300s", tool, raw)
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s: %v: %.300s", tool, err, raw)
	}
	if (a.Error == nil) == (a.Result == nil) {
		t.Fatalf("%s: want exactly one of result and error: %.300s", tool, raw)
	}
	return a
}

// hostileEchoStillWorks checks the server answers a normal call.
func hostileEchoStillWorks(t *testing.T, url string) {
	t.Helper()
	a := hostileCall(t, url, "echo", "")
	if a.Status != 200 || a.Result == nil || a.Result.IsError || len(a.Result.Content) != 1 || a.Result.Content[0].Text != `{"text":"hi"}` {
		t.Fatalf("echo after a hostile tool: %d %s", a.Status, a.Raw)
	}
}

func wantInternalError(t *testing.T, a hostileAnswer, tool string) {
	t.Helper()
	if a.Status != 200 || a.Error == nil || a.Error.Code != mcp.CodeInternalError || a.Error.Message != "Internal error" {
		t.Fatalf("%s: want 200 with -32603 \"Internal error\", got %d %s", tool, a.Status, a.Raw)
	}
}

// TestHostilePanic: a tool that panics (in Execute, or while its arguments
// are decoded) is answered with -32603 "Internal error" and nothing of the
// panic value; the log has the value and the stack.
func TestHostilePanic(t *testing.T) {
	url, logs := hostileServer(t, nil)
	for _, tool := range []string{"panic", "panic_error", "validate_panics"} {
		for _, version := range []string{"", mcp.Version20251125} {
			a := hostileCall(t, url, tool, version)
			wantInternalError(t, a, tool)
			if strings.Contains(a.Raw, hostileSecret) || strings.Contains(a.Raw, "goroutine") {
				t.Errorf("%s: the answer leaks the panic: %s", tool, a.Raw)
			}
			hostileEchoStillWorks(t, url)
		}
	}
	if !strings.Contains(logs.String(), hostileSecret) || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the log should have the panic value and its stack: %.500s", logs)
	}
}

// TestHostileHang: a tool that never returns on its own is stopped by
// Options.CallTimeout: the call is answered with an isError result naming
// the deadline, and the next request is served.
func TestHostileHang(t *testing.T) {
	url, _ := hostileServer(t, &mcp.Options{CallTimeout: 50 * time.Millisecond})
	a := hostileCall(t, url, "hang", "")
	if a.Status != 200 || a.Result == nil || !a.Result.IsError || !strings.Contains(a.Raw, "deadline exceeded") {
		t.Fatalf("hang: want an isError result naming the deadline, got %d %s", a.Status, a.Raw)
	}
	hostileEchoStillWorks(t, url)
}

// TestHostileFlood: a result over Options.MaxResultBytes becomes an isError
// result that names the cap, instead of a megabyte answer.
func TestHostileFlood(t *testing.T) {
	url, logs := hostileServer(t, &mcp.Options{MaxResultBytes: 64 << 10})
	a := hostileCall(t, url, "flood", "")
	if a.Status != 200 || a.Result == nil || !a.Result.IsError {
		t.Fatalf("flood: want an isError result, got %d %.300s", a.Status, a.Raw)
	}
	if len(a.Raw) > 4096 {
		t.Errorf("flood: the answer is %d bytes, the result should have been replaced", len(a.Raw))
	}
	msg := a.Result.Content[0].Text
	for _, want := range []string{"too large", "65536", "flood"} {
		if !strings.Contains(msg, want) {
			t.Errorf("flood: message %q does not mention %q", msg, want)
		}
	}
	if !strings.Contains(logs.String(), "size cap") {
		t.Errorf("the log should record the capped result: %.500s", logs)
	}
	hostileEchoStillWorks(t, url)

	// The default cap (4 MiB) lets the 1 MiB result through; a negative
	// cap disables it.
	for _, cap := range []int{0, -1} {
		url, _ := hostileServer(t, &mcp.Options{MaxResultBytes: cap})
		a := hostileCall(t, url, "flood", "")
		if a.Result == nil || a.Result.IsError || len(a.Result.Content[0].Text) != 1<<20 {
			t.Errorf("MaxResultBytes %d: the 1 MiB result should pass, got %.200s", cap, a.Raw)
		}
	}
}

// TestHostileBrokenOutput: a tool whose structured output breaks its own
// output schema, or is not JSON at all, is a bug in the tool: -32603, and
// the client never receives the bad output.
func TestHostileBrokenOutput(t *testing.T) {
	url, _ := hostileServer(t, nil)
	for _, tool := range []string{"typed_breaks_schema", "raw_breaks_schema", "raw_bad_json"} {
		t.Run(tool, func(t *testing.T) {
			a := hostileCall(t, url, tool, "")
			wantInternalError(t, a, tool)
			if strings.Contains(a.Raw, "99") {
				t.Errorf("%s: the invalid output reached the client: %s", tool, a.Raw)
			}
			hostileEchoStillWorks(t, url)
		})
	}
}

// TestHostileBadNotification: a tool that logs raw "JSON" that is not JSON
// cannot break the stream: every SSE event the client gets is JSON.
func TestHostileBadNotification(t *testing.T) {
	url, _ := hostileServer(t, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"raw_bad_log","arguments":{}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	final := resp.Header.Get("Content-Type") == "application/json" && json.Valid(raw) && strings.Contains(string(raw), `"logged"`)
	for _, line := range strings.Split(string(raw), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if !json.Valid([]byte(data)) {
			t.Errorf("an event is not JSON: %q", data)
		}
		final = final || strings.Contains(data, `"logged"`)
	}
	if !final {
		t.Errorf("the call's answer is missing: %s", raw)
	}
	hostileEchoStillWorks(t, url)
}
