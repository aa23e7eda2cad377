package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestValidToolName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"get_weather", true},
		{"diagnostics.code-read_v2", true},
		{"ABC.xyz-09_", true},
		{strings.Repeat("x", 128), true},
		{strings.Repeat("x", 129), false},
		{"", false},
		{"has space", false},
		{"slash/name", false},
		{"colon:name", false},
		{"café", false},
		{"名前", false},
		{"tab\t", false},
		{"nul\x00", false},
		{"star*", false},
		{"comma,", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidToolName(tt.name); got != tt.ok {
				t.Errorf("ValidToolName(%q) = %v, want %v", tt.name, got, tt.ok)
			}
			err := NewToolSet().Register(NewRawTool(ToolInfo{Name: tt.name}, nil))
			if tt.ok && err != nil {
				t.Errorf("Register(%q): %v", tt.name, err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalidToolName) {
				t.Errorf("Register(%q) = %v, want ErrInvalidToolName", tt.name, err)
			}
		})
	}
}

// nilInfoTool is a Tool whose Info is nil.
type nilInfoTool struct{ counter }

func (*nilInfoTool) Info() *ToolInfo { return nil }

// panickyInfoTool is a Tool whose Info panics.
type panickyInfoTool struct{ counter }

func (*panickyInfoTool) Info() *ToolInfo { panic("no info") }

func mustSchema(t *testing.T, doc string) *jsonschema.Schema {
	t.Helper()
	s, err := ParseSchema([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRegisterRejects(t *testing.T) {
	tests := []struct {
		name string
		tool Tool
		want error
	}{
		{"nil tool", nil, ErrInvalidToolName},
		{"nil info", &nilInfoTool{}, ErrInvalidToolName},
		{"info panics", &panickyInfoTool{}, ErrInvalidSchema},
		{"array input schema", NewRawTool(ToolInfo{Name: "t", InputSchema: mustSchema(t, `{"type":"array"}`)}, nil), ErrInvalidSchema},
		{"untyped input schema", NewRawTool(ToolInfo{Name: "t", InputSchema: mustSchema(t, `{}`)}, nil), ErrInvalidSchema},
		{"string output schema", NewRawTool(ToolInfo{Name: "t", OutputSchema: mustSchema(t, `{"type":"string"}`)}, nil), ErrInvalidSchema},
		{"dangling $ref", NewRawTool(ToolInfo{Name: "t", InputSchema: mustSchema(t, `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`)}, nil), ErrInvalidSchema},
		{"bad pattern", NewRawTool(ToolInfo{Name: "t", InputSchema: mustSchema(t, `{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`)}, nil), ErrInvalidSchema},
		{"bad default", NewRawTool(ToolInfo{Name: "t", InputSchema: mustSchema(t, `{"type":"object","properties":{"a":{"type":"integer","default":"x"}}}`)}, nil), ErrInvalidSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := NewToolSet()
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Register panicked: %v", r)
					}
				}()
				err = ts.Register(tt.tool)
			}()
			if !errors.Is(err, tt.want) {
				t.Errorf("Register = %v, want %v", err, tt.want)
			}
			if len(slices.Collect(ts.All())) != 0 {
				t.Errorf("a rejected tool changed the set")
			}
		})
	}
	if _, err := ParseSchema([]byte(`{"type":`)); !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("ParseSchema of broken JSON = %v, want ErrInvalidSchema", err)
	}
}

func TestRegisterAllOrNothing(t *testing.T) {
	ts := NewToolSet()
	if err := ts.Register(&counter{name: "a"}); err != nil {
		t.Fatal(err)
	}
	var changes atomic.Int64
	defer ts.Watch(func() { changes.Add(1) })()
	batches := []struct {
		tools []Tool
		want  error
	}{
		{[]Tool{&counter{name: "b"}, &counter{name: "a"}}, ErrDuplicateTool},
		{[]Tool{&counter{name: "b"}, &counter{name: "b"}}, ErrDuplicateTool},
		{[]Tool{&counter{name: "b"}, &counter{name: "bad name"}}, ErrInvalidToolName},
		{[]Tool{&counter{name: "b"}, nil}, ErrInvalidToolName},
	}
	for i, b := range batches {
		err := ts.Register(b.tools...)
		if !errors.Is(err, b.want) {
			t.Errorf("batch %d: %v, want %v", i, err, b.want)
		}
		if _, ok := ts.Lookup("b"); ok {
			t.Errorf("batch %d: tool b registered though the batch failed", i)
		}
	}
	if changes.Load() != 0 {
		t.Errorf("failed registrations were reported as changes")
	}
	if err := ts.Register(&counter{name: "b"}, &counter{name: "c"}); err != nil {
		t.Fatal(err)
	}
	names := toolNames(slices.Collect(ts.All()))
	if !slices.Equal(names, []string{"a", "b", "c"}) {
		t.Errorf("All() = %v", names)
	}
	if changes.Load() != 1 {
		t.Errorf("a registration was reported as %d changes, want 1 before Register returned", changes.Load())
	}
	if err := ts.Register(); err != nil {
		t.Errorf("Register() with no tools: %v", err)
	}
}

func toolNames(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Info().Name)
	}
	return out
}

func TestRemoveAndWatch(t *testing.T) {
	ts := NewToolSet()
	changes := make(chan struct{}, 16)
	stop := ts.Watch(func() { changes <- struct{}{} })
	// Watchers run before the change returns: each receive below must
	// not wait.
	notified := func(what string) {
		t.Helper()
		select {
		case <-changes:
		default:
			t.Fatalf("%s: the watcher was not called before it returned", what)
		}
	}
	if err := ts.Register(&counter{name: "a"}, &counter{name: "b"}); err != nil {
		t.Fatal(err)
	}
	notified("Register")
	if n := ts.Remove("a", "missing"); n != 1 {
		t.Errorf("Remove = %d, want 1", n)
	}
	notified("Remove")
	if _, ok := ts.Lookup("a"); ok {
		t.Errorf("a still registered")
	}
	if n := ts.Remove("a"); n != 0 || len(changes) != 0 {
		t.Errorf("removing nothing: n = %d, %d notifications", n, len(changes))
	}
	// A removed name can be registered again.
	if err := ts.Register(&counter{name: "a"}); err != nil {
		t.Errorf("re-registering a: %v", err)
	}
	notified("Register again")

	stop()
	// After stop, a second watcher sees the next change; the first must not.
	seen := make(chan struct{}, 1)
	stop2 := ts.Watch(func() { seen <- struct{}{} })
	defer stop2()
	ts.Remove("b")
	select {
	case <-seen:
	default:
		t.Fatal("the second watcher was not called")
	}
	select {
	case <-changes:
		t.Errorf("a stopped watcher was called")
	default:
	}
}

// TestConcurrentChanges adds and removes tools while other goroutines list
// and call; run with -race.
func TestConcurrentChanges(t *testing.T) {
	ts := NewToolSet()
	stable := &counter{name: "stable"}
	if err := ts.Register(stable); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), &Options{PageSize: 3})
	stop := ts.Watch(func() { _ = slices.Collect(ts.All()) })
	defer stop()

	var wg sync.WaitGroup
	const rounds = 200
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				name := fmt.Sprintf("t%d_%d", w, i%5)
				_ = ts.Register(&counter{name: name})
				ts.Remove(name)
			}
		}(w)
	}
	errs := make(chan string, 8)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				status, body := s.Handle(context.Background(), Caller{}, rpcBody(i, "tools/call", `{"name":"stable"}`))
				if status != 200 || !strings.Contains(string(body), `"result"`) {
					errs <- string(body)
					return
				}
				s.Handle(context.Background(), Caller{}, rpcBody(i, "tools/list", `{}`))
				_ = slices.Collect(ts.All())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("call of the stable tool failed during changes: %s", e)
	}
	if got := stable.n.Load(); got != 4*rounds {
		t.Errorf("stable tool ran %d times, want %d", got, 4*rounds)
	}
	if names := toolNames(slices.Collect(ts.All())); !slices.Equal(names, []string{"stable"}) {
		t.Errorf("after the churn: %v", names)
	}
}

func TestListOrderAndPages(t *testing.T) {
	ts := NewToolSet()
	var want []string
	for _, n := range []string{"m", "b", "z.z", "a", "A", "a-b", "a_b", "a.b", "y", "c", "0", "k"} {
		if err := ts.Register(&counter{name: n}); err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
	}
	slices.Sort(want)
	for _, size := range []int{0, 1, 3, 5, 11, 12, 13, 100} {
		s := NewServer(ts, AllowAll(), &Options{PageSize: size})
		if got := listNames(t, s, Caller{}); !slices.Equal(got, want) {
			t.Errorf("page size %d: %v, want %v", size, got, want)
		}
	}
	if names := toolNames(slices.Collect(ts.All())); !slices.Equal(names, want) {
		t.Errorf("All() = %v", names)
	}

	// A tool removed between pages does not disturb the rest.
	s := NewServer(ts, AllowAll(), &Options{PageSize: 4})
	_, body := s.Handle(context.Background(), Caller{}, rpcBody(1, "tools/list", `{}`))
	r := decodeResponse(t, body)
	var page struct{ NextCursor string }
	if err := json.Unmarshal(r.Result, &page); err != nil || page.NextCursor == "" {
		t.Fatalf("first page: %s", body)
	}
	ts.Remove(want[3], want[4]) // the last of page one, the first of page two
	defer ts.Register(&counter{name: want[3]}, &counter{name: want[4]})
	_, body = s.Handle(context.Background(), Caller{}, rpcBody(2, "tools/list", `{"cursor":"`+page.NextCursor+`"}`))
	if r := decodeResponse(t, body); r.Error != nil || !strings.Contains(string(r.Result), `"name":"`+want[5]+`"`) || strings.Contains(string(r.Result), `"name":"`+want[4]+`"`) {
		t.Errorf("second page after removals: %s", body)
	}
}

func TestListBadCursor(t *testing.T) {
	s, _ := newCounterServer(t, &Options{PageSize: 1})
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, cursor := range []string{`""`, `"!!!"`, `"` + enc("after:") + `"`, `"` + enc("before:count") + `"`, `"` + enc("after:bad name") + `"`, `5`, `null`, `{}`} {
		status, body := s.Handle(context.Background(), Caller{}, rpcBody(1, "tools/list", `{"cursor":`+cursor+`}`))
		r := decodeResponse(t, body)
		if status != 200 || r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("cursor %s: %d %s, want -32602", cursor, status, body)
		}
	}
}

// callResult is a decoded CallToolResult.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// callTool sends a tools/call and decodes the answer.
func callTool(t *testing.T, s *Server, ctx context.Context, params string) (int, response, callResult) {
	t.Helper()
	status, body := s.Handle(ctx, Caller{Principal: "tester"}, rpcBody(1, "tools/call", params))
	r := decodeResponse(t, body)
	var res callResult
	if r.Result != nil {
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatalf("result is not a CallToolResult: %s", r.Result)
		}
	}
	return status, r, res
}

func TestCallParams(t *testing.T) {
	tests := []struct {
		params string
		msg    string // substring of the error message
	}{
		{`{}`, "name"},
		{`{"name":5}`, "name"},
		{`{"name":null}`, "name"},
		{`{"name":"count","arguments":[]}`, "arguments"},
		{`{"name":"count","arguments":"{}"}`, "arguments"},
		{`{"name":"count","arguments":null}`, "arguments"},
		{`{"name":"count","arguments":5}`, "arguments"},
		{`{"name":"x"}`, "Unknown tool: x"},
		{`{"name":"Count"}`, "Unknown tool: Count"},
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			for _, version := range []string{"", Version20251125} {
				s, c := newCounterServer(t, nil)
				status, r, _ := callTool(t, s, versionCtx(version), tt.params)
				if status != 200 || r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, tt.msg) {
					t.Errorf("version %q, params %s: %d %+v, want -32602 naming %q", version, tt.params, status, r.Error, tt.msg)
				}
				if c.n.Load() != 0 {
					t.Errorf("params %s: the tool ran", tt.params)
				}
			}
		})
	}
	s, _ := newCounterServer(t, nil)
	if _, r, _ := callTool(t, s, context.Background(), `{"name":"x"}`); r.Error == nil || r.Error.Message != "Unknown tool: x" {
		t.Errorf("unknown tool message: %+v", r.Error)
	}
	if _, r, _ := callTool(t, s, context.Background(), `{}`); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("tools/call without params: %+v", r.Error)
	}
}

// behaviourServer serves tool "b", which does what its "do" argument says,
// and tool "picky", which takes any object.
func behaviourServer(t *testing.T, opts *Options, logger *bytes.Buffer) *Server {
	t.Helper()
	if logger != nil {
		if opts == nil {
			opts = &Options{}
		}
		opts.Logger = slog.New(slog.NewJSONHandler(logger, nil))
	}
	ts := NewToolSet()
	schema := mustSchema(t, `{"type":"object","properties":{
		"do":{"type":"string","enum":["ok","fail","rpc","wrapped","panic","big","wait","check"]},
		"n":{"type":"integer","minimum":1}},"required":["do"]}`)
	tool := NewRawTool(ToolInfo{Name: "b", InputSchema: schema}, func(ctx context.Context, req *Request) (*Result, error) {
		args, err := req.ArgumentsMap()
		if err != nil {
			return nil, err
		}
		switch args["do"] {
		case "fail":
			return nil, errors.New("the disk is full")
		case "rpc":
			return nil, &Error{Code: -32001, Message: "quota exceeded", Data: map[string]any{"retryAfter": 5}}
		case "wrapped":
			return nil, fmt.Errorf("calling upstream: %w", NewError(-32002, "upstream refused"))
		case "panic":
			panic("secret panic text 0xdeadbeef")
		case "big":
			return TextResult(strings.Repeat("x", 2000)), nil
		case "wait":
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(30 * time.Second):
				return TextResult("the deadline was not applied"), nil
			}
		case "check":
			c, ok := CallerFromContext(ctx)
			if !ok || c.Principal != "tester" || req.Caller.Principal != "tester" {
				return ErrorResult("no caller in the context"), nil
			}
			return TextResult(req.ProtocolVersion + " " + string(req.Arguments)), nil
		}
		return TextResult("ok"), nil
	})
	if err := ts.Register(tool); err != nil {
		t.Fatal(err)
	}
	if err := ts.Register(NewRawTool(ToolInfo{Name: "picky"}, func(_ context.Context, req *Request) (*Result, error) {
		return TextResult(string(req.Arguments)), nil
	})); err != nil {
		t.Fatal(err)
	}
	return NewServer(ts, AllowAll(), opts)
}

func TestCallArgumentValidation(t *testing.T) {
	tests := []struct {
		args string
		want []string // what the message must name
	}{
		{`{"do":5}`, []string{"/do", "string", "integer"}},
		{`{"do":"ok","n":"five"}`, []string{"/n", "integer", "string"}},
		{`{"do":"ok","n":0}`, []string{"/n", "at least 1", "got 0"}},
		{`{"do":"nope"}`, []string{"/do", "nope"}},
		{`{}`, []string{"missing", "do"}},
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			var messages []string
			for _, version := range []string{"", Version20250326, Version20250618, Version20251125} {
				s := behaviourServer(t, nil, nil)
				status, r, res := callTool(t, s, versionCtx(version), `{"name":"b","arguments":`+tt.args+`}`)
				if status != 200 {
					t.Fatalf("status %d", status)
				}
				var msg string
				if version >= Version20251125 {
					if r.Error != nil || !res.IsError || len(res.Content) != 1 {
						t.Errorf("version %s, %s: want an isError result, got %+v %+v", version, tt.args, r.Error, res)
						continue
					}
					msg = res.Content[0].Text
				} else {
					if r.Error == nil || r.Error.Code != -32602 {
						t.Errorf("version %q, %s: want -32602, got %+v %s", version, tt.args, r.Error, r.Result)
						continue
					}
					msg = r.Error.Message
				}
				for _, w := range tt.want {
					if !strings.Contains(msg, w) {
						t.Errorf("version %q, %s: message %q does not name %q", version, tt.args, msg, w)
					}
				}
				messages = append(messages, msg)
			}
			for _, m := range messages[1:] {
				if m != messages[0] {
					t.Errorf("%s: messages differ between versions: %q vs %q", tt.args, messages[0], m)
				}
			}
		})
	}
}

func TestCallOutcomes(t *testing.T) {
	t.Run("ordinary error is an isError result", func(t *testing.T) {
		_, r, res := callTool(t, behaviourServer(t, nil, nil), context.Background(), `{"name":"b","arguments":{"do":"fail"}}`)
		if r.Error != nil || !res.IsError || len(res.Content) != 1 || res.Content[0].Text != "the disk is full" {
			t.Errorf("got %+v %+v", r.Error, res)
		}
	})
	t.Run("*Error keeps its code", func(t *testing.T) {
		_, r, _ := callTool(t, behaviourServer(t, nil, nil), context.Background(), `{"name":"b","arguments":{"do":"rpc"}}`)
		if r.Error == nil || r.Error.Code != -32001 || r.Error.Message != "quota exceeded" || string(r.Error.Data) != `{"retryAfter":5}` {
			t.Errorf("got %+v", r.Error)
		}
	})
	t.Run("wrapped *Error keeps its code", func(t *testing.T) {
		_, r, _ := callTool(t, behaviourServer(t, nil, nil), context.Background(), `{"name":"b","arguments":{"do":"wrapped"}}`)
		if r.Error == nil || r.Error.Code != -32002 || r.Error.Message != "upstream refused" {
			t.Errorf("got %+v", r.Error)
		}
	})
	t.Run("panic is an internal error", func(t *testing.T) {
		var log bytes.Buffer
		s := behaviourServer(t, nil, &log)
		status, body := s.Handle(context.Background(), Caller{}, rpcBody(1, "tools/call", `{"name":"b","arguments":{"do":"panic"}}`))
		r := decodeResponse(t, body)
		if status != 200 || r.Error == nil || r.Error.Code != -32603 || r.Error.Message != "Internal error" {
			t.Errorf("got %d %s", status, body)
		}
		if strings.Contains(string(body), "deadbeef") || strings.Contains(string(body), "panic") {
			t.Errorf("the panic leaked into the response: %s", body)
		}
		if !strings.Contains(log.String(), "deadbeef") || !strings.Contains(log.String(), "registry_test.go") {
			t.Errorf("the log lacks the panic and its stack:\n%s", log.String())
		}
		// The server survives and answers the next call.
		if _, r, _ := callTool(t, s, context.Background(), `{"name":"b","arguments":{"do":"ok"}}`); r.Error != nil {
			t.Errorf("after a panic: %+v", r.Error)
		}
	})
	t.Run("arguments and caller reach the tool", func(t *testing.T) {
		_, r, res := callTool(t, behaviourServer(t, nil, nil), versionCtx(Version20250618), `{"name":"b","arguments": {"do" : "check"} }`)
		if r.Error != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != `2025-06-18 {"do" : "check"}` {
			t.Errorf("got %+v %+v", r.Error, res)
		}
	})
	t.Run("missing arguments are an empty object", func(t *testing.T) {
		_, r, res := callTool(t, behaviourServer(t, nil, nil), context.Background(), `{"name":"picky"}`)
		if r.Error != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != "{}" {
			t.Errorf("got %+v %+v", r.Error, res)
		}
	})
	for _, tt := range []struct {
		max     int
		isError bool
	}{{0, false}, {-1, false}, {1000, true}, {1 << 20, false}} {
		t.Run(fmt.Sprintf("result cap %d", tt.max), func(t *testing.T) {
			_, r, res := callTool(t, behaviourServer(t, &Options{MaxResultBytes: tt.max}, nil), context.Background(), `{"name":"b","arguments":{"do":"big"}}`)
			if r.Error != nil || res.IsError != tt.isError || len(res.Content) != 1 {
				t.Fatalf("got %+v %+v", r.Error, res)
			}
			if tt.isError && (!strings.Contains(res.Content[0].Text, "1000") || strings.Contains(res.Content[0].Text, "xxxx")) {
				t.Errorf("the cap message should name the cap and hold none of the result: %q", res.Content[0].Text)
			}
			if !tt.isError && len(res.Content[0].Text) != 2000 {
				t.Errorf("result cut to %d bytes", len(res.Content[0].Text))
			}
		})
	}
	t.Run("call timeout cancels the tool", func(t *testing.T) {
		_, r, res := callTool(t, behaviourServer(t, &Options{CallTimeout: time.Millisecond}, nil), context.Background(), `{"name":"b","arguments":{"do":"wait"}}`)
		if r.Error != nil || !res.IsError || len(res.Content) != 1 || res.Content[0].Text != context.DeadlineExceeded.Error() {
			t.Errorf("got %+v %+v", r.Error, res)
		}
	})
}

func TestRawToolOutput(t *testing.T) {
	var log bytes.Buffer
	ts := NewToolSet()
	out := mustSchema(t, `{"type":"object","properties":{"n":{"type":"integer","maximum":10}},"required":["n"]}`)
	results := map[string]any{
		"ok":       map[string]any{"n": 3},
		"raw":      json.RawMessage(`{"n":4}`),
		"big":      map[string]any{"n": 99},
		"missing":  map[string]any{},
		"notjson":  json.RawMessage(`{"n":}`),
		"array":    json.RawMessage(`[1]`),
		"unencode": map[string]any{"n": make(chan int)},
	}
	for name, sc := range results {
		if err := ts.Register(NewRawTool(ToolInfo{Name: name, OutputSchema: out}, func(context.Context, *Request) (*Result, error) {
			return &Result{Content: []Content{TextContent("see structured")}, StructuredContent: sc}, nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	// Without an output schema, structuredContent must still be a JSON object.
	if err := ts.Register(NewRawTool(ToolInfo{Name: "free"}, func(context.Context, *Request) (*Result, error) {
		return &Result{StructuredContent: []int{1}}, nil
	})); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), &Options{Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	for name, want := range map[string]string{"ok": `{"n":3}`, "raw": `{"n":4}`, "big": "", "missing": "", "notjson": "", "array": "", "unencode": "", "free": ""} {
		status, body := s.Handle(context.Background(), Caller{}, rpcBody(1, "tools/call", `{"name":"`+name+`"}`))
		r := decodeResponse(t, body)
		if want != "" {
			var res callResult
			if err := json.Unmarshal(r.Result, &res); err != nil || string(res.StructuredContent) != want {
				t.Errorf("%s: %d %s", name, status, body)
			}
			continue
		}
		if status != 200 || r.Error == nil || r.Error.Code != -32603 || r.Error.Message != "Internal error" {
			t.Errorf("%s: %d %s, want -32603", name, status, body)
		}
		if !strings.Contains(log.String(), `\"`+name+`\"`) {
			t.Errorf("%s: the bad output was not logged:\n%s", name, log.String())
		}
	}
}
