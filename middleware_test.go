package mcp

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

type ctxKey string

// TestToolMiddleware: the middleware wraps execution, after validation, the
// first outermost; it sees the caller, the tool, the revision and the
// outcome (invalid arguments included); a tool the caller may not use never
// reaches it; its context flows into the tool; its own refusals are
// answered like a tool's.
func TestToolMiddleware(t *testing.T) {
	var trail []string
	mark := func(name string) ToolMiddleware {
		return func(ctx context.Context, req *Request, next ToolHandler) (*Result, error) {
			trail = append(trail, name+">"+req.Name+"/"+req.Caller.Principal+"/"+req.ProtocolVersion+"/"+req.Tool().Info().Name)
			res, err := next(context.WithValue(ctx, ctxKey(name), name), req)
			outcome := "ok"
			var ae *ArgumentError
			switch {
			case errors.As(err, &ae):
				outcome = "invalid"
			case err != nil:
				outcome = "err"
			case res.IsError:
				outcome = "isError"
			}
			trail = append(trail, "<"+name+":"+outcome)
			return res, err
		}
	}
	refuse := func(ctx context.Context, req *Request, next ToolHandler) (*Result, error) {
		switch req.Caller.Principal {
		case "rpc":
			return nil, &Error{Code: -32042, Message: "slow down"}
		case "plain":
			return nil, errors.New("not now")
		}
		return next(ctx, req)
	}
	ts := NewToolSet()
	if err := ts.Register(NewRawTool(ToolInfo{Name: "t", InputSchema: mustSchema(t, `{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		func(ctx context.Context, req *Request) (*Result, error) {
			if ctx.Value(ctxKey("outer")) != "outer" || ctx.Value(ctxKey("inner")) != "inner" {
				return nil, errors.New("the middleware's context did not reach the tool")
			}
			return TextResult("ran"), nil
		}), NewRawTool(ToolInfo{Name: "secret", Permission: "admin"}, nil)); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, GrantsAuthorizer{}, &Options{ToolMiddleware: []ToolMiddleware{mark("outer"), mark("inner"), refuse}})
	call := func(who, params string) response {
		status, body := s.Handle(versionCtx(Version20250618), Caller{Principal: who}, rpcBody(1, "tools/call", params))
		if status != 200 {
			t.Fatalf("%s: %d %s", params, status, body)
		}
		return decodeResponse(t, body)
	}
	if r := call("alice", `{"name":"t","arguments":{"n":1}}`); r.Error != nil || !strings.Contains(string(r.Result), "ran") {
		t.Errorf("call: %+v %s", r.Error, r.Result)
	}
	want := "outer>t/alice/2025-06-18/t inner>t/alice/2025-06-18/t <inner:ok <outer:ok"
	if got := strings.Join(trail, " "); got != want {
		t.Errorf("trail:\n got %s\nwant %s", got, want)
	}
	trail = nil
	if r := call("alice", `{"name":"t","arguments":{"n":"x"}}`); r.Error == nil || r.Error.Code != CodeInvalidParams {
		t.Errorf("invalid arguments: %+v", r.Error)
	}
	if got := strings.Join(trail, " "); !strings.Contains(got, "<inner:invalid") {
		t.Errorf("the middleware did not see the invalid arguments: %s", got)
	}
	trail = nil
	if r := call("alice", `{"name":"secret"}`); r.Error == nil || len(trail) != 0 {
		t.Errorf("a forbidden tool reached the middleware: %v %+v", trail, r.Error)
	}
	if r := call("rpc", `{"name":"t"}`); r.Error == nil || r.Error.Code != -32042 || r.Error.Message != "slow down" {
		t.Errorf("refused with an *Error: %+v", r.Error)
	}
	if r := call("plain", `{"name":"t"}`); r.Error != nil || !strings.Contains(string(r.Result), `"isError":true`) || !strings.Contains(string(r.Result), "not now") {
		t.Errorf("refused with an error: %+v %s", r.Error, r.Result)
	}
}

// TestMiddleware: a request-level middleware sees every dispatched request
// (not notifications) with its method, target, id, revision, caller and
// _meta; its context reaches the tool; it sees the outcome; it can answer
// on its own.
func TestMiddleware(t *testing.T) {
	var seen []string
	var outcomes []Outcome
	mw := func(ctx context.Context, msg *Message, next MessageHandler) Outcome {
		if msg.Caller.Principal == "blocked" {
			return Outcome{Err: &Error{Code: -32050, Message: "blocked"}}
		}
		if msg.Caller.Principal == "broken" {
			return Outcome{}
		}
		seen = append(seen, msg.Method+" "+msg.Name+" "+string(msg.ID)+" "+msg.ProtocolVersion+" "+msg.Caller.Principal)
		if tp, _ := msg.Meta["traceparent"].(string); tp != "" {
			ctx = context.WithValue(ctx, ctxKey("trace"), tp)
		}
		out := next(ctx, msg)
		outcomes = append(outcomes, out)
		return out
	}
	ts := NewToolSet()
	if err := ts.Register(NewRawTool(ToolInfo{Name: "trace"}, func(ctx context.Context, req *Request) (*Result, error) {
		tp, _ := ctx.Value(ctxKey("trace")).(string)
		return ErrorResult("trace " + tp), nil
	})); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), &Options{Middleware: []Middleware{mw}})
	ctx := versionCtx(Version20250618)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"trace","_meta":{"traceparent":"00-ab-cd-01"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"nope"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		s.Handle(ctx, Caller{Principal: "ann"}, []byte(body))
	}
	want := []string{"ping  1 2025-06-18 ann", `tools/call trace "b" 2025-06-18 ann`, "nope  3 2025-06-18 ann"}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("seen %q, want %q", seen, want)
	}
	if len(outcomes) != 3 || outcomes[0].Err != nil || outcomes[0].IsError ||
		outcomes[1].Err != nil || !outcomes[1].IsError || outcomes[2].Err == nil || outcomes[2].Err.Code != CodeMethodNotFound {
		t.Errorf("outcomes %+v", outcomes)
	}
	_, body := s.Handle(ctx, Caller{Principal: "ann"}, []byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"trace","_meta":{"traceparent":"00-ab-cd-01"}}}`))
	if !strings.Contains(string(body), "trace 00-ab-cd-01") {
		t.Errorf("the middleware's context did not reach the tool: %s", body)
	}
	status, body := s.Handle(ctx, Caller{Principal: "blocked"}, []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`))
	if r := decodeResponse(t, body); status != 200 || r.Error == nil || r.Error.Code != -32050 || string(r.ID) != "5" {
		t.Errorf("answered by the middleware: %d %s", status, body)
	}
	status, body = s.Handle(ctx, Caller{Principal: "broken"}, []byte(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`))
	if r := decodeResponse(t, body); r.Error == nil || r.Error.Code != CodeInternalError {
		t.Errorf("an empty Outcome: %d %s", status, body)
	}
}

// TestMessageTool: Message.Tool names the tool a tools/call was answered by
// once next returned, whatever the outcome (isError, invalid arguments);
// it stays nil before next, for unknown tools, for tools
// the caller may not use and for other methods.
func TestMessageTool(t *testing.T) {
	var before, after []string
	name := func(tl Tool) string {
		if tl == nil {
			return "-"
		}
		return tl.Info().Name
	}
	mw := func(ctx context.Context, msg *Message, next MessageHandler) Outcome {
		before = append(before, name(msg.Tool()))
		out := next(ctx, msg)
		after = append(after, name(msg.Tool()))
		return out
	}
	ts := NewToolSet()
	if err := ts.Register(
		NewRawTool(ToolInfo{Name: "fail"}, func(context.Context, *Request) (*Result, error) { return nil, errors.New("no") }),
		NewRawTool(ToolInfo{Name: "typed", InputSchema: mustSchema(t, `{"type":"object","properties":{"n":{"type":"integer"}}}`)},
			func(context.Context, *Request) (*Result, error) { return TextResult("ok"), nil }),
		NewRawTool(ToolInfo{Name: "secret", Permission: "admin"}, nil)); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, GrantsAuthorizer{}, &Options{Middleware: []Middleware{mw}})
	for _, params := range []string{
		`{"name":"fail"}`,
		`{"name":"typed","arguments":{"n":"x"}}`,
		`{"name":"secret"}`,
		`{"name":"nope"}`,
	} {
		s.Handle(versionCtx(Version20250618), Caller{Principal: "ann"}, rpcBody(1, "tools/call", params))
	}
	s.Handle(versionCtx(Version20250618), Caller{Principal: "ann"}, rpcBody(2, "tools/list", `{}`))
	if got, want := strings.Join(before, " "), "- - - - -"; got != want {
		t.Errorf("before next: %s, want %s", got, want)
	}
	if got, want := strings.Join(after, " "), "fail typed - - -"; got != want {
		t.Errorf("after next: %s, want %s", got, want)
	}
}

// TestMiddlewareMessagePerRequest: each request a Middleware sees is its
// own while the Middleware runs, under concurrent requests: the id,
// target and tool seen after next are the request's, and nothing of one
// request reaches the next (Tool is nil before next on every one).
func TestMiddlewareMessagePerRequest(t *testing.T) {
	ts := NewToolSet()
	for _, name := range []string{"even", "odd"} {
		if err := ts.Register(NewRawTool(ToolInfo{Name: name},
			func(context.Context, *Request) (*Result, error) { return TextResult(name), nil })); err != nil {
			t.Fatal(err)
		}
	}
	var bad atomic.Int64
	mw := func(ctx context.Context, msg *Message, next MessageHandler) Outcome {
		id, name := string(msg.ID), msg.Name
		n, err := strconv.Atoi(id)
		want := []string{"even", "odd"}[n%2]
		if err != nil || name != want || msg.Tool() != nil {
			bad.Add(1)
		}
		out := next(ctx, msg)
		if string(msg.ID) != id || msg.Name != want || msg.Tool() == nil || msg.Tool().Info().Name != want {
			bad.Add(1)
		}
		return out
	}
	s := NewServer(ts, AllowAll(), &Options{Middleware: []Middleware{mw}})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				id := g*1000 + i
				_, resp := s.Handle(versionCtx(Version20250618), Caller{}, rpcBody(id, "tools/call", `{"name":"`+[]string{"even", "odd"}[id%2]+`"}`))
				if !strings.Contains(string(resp), `"text":"`+[]string{"even", "odd"}[id%2]+`"`) {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Errorf("%d requests saw another request's Message or answer", n)
	}
}

// TestMiddlewareMessageKept: a Middleware may keep the Message it saw, or
// hand it to another goroutine: once every request was answered, each
// kept Message still holds its own request's method, id, target, _meta and
// tool (the Server never reuses one for a later request).
func TestMiddlewareMessageKept(t *testing.T) {
	ts := NewToolSet()
	for _, name := range []string{"even", "odd"} {
		if err := ts.Register(NewRawTool(ToolInfo{Name: name},
			func(context.Context, *Request) (*Result, error) { return TextResult(name), nil })); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var kept []*Message
	mw := func(ctx context.Context, msg *Message, next MessageHandler) Outcome {
		out := next(ctx, msg)
		mu.Lock()
		kept = append(kept, msg)
		mu.Unlock()
		return out
	}
	s := NewServer(ts, AllowAll(), &Options{Middleware: []Middleware{mw}})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				id := g*1000 + i
				name := []string{"even", "odd"}[id%2]
				s.Handle(versionCtx(Version20250618), Caller{}, rpcBody(id, "tools/call",
					`{"name":"`+name+`","_meta":{"n":`+strconv.Itoa(id)+`}}`))
			}
		})
	}
	wg.Wait()
	if len(kept) != 400 {
		t.Fatalf("%d Messages kept, want 400", len(kept))
	}
	seen := map[*Message]bool{}
	for _, msg := range kept {
		id, err := strconv.Atoi(string(msg.ID))
		want := []string{"even", "odd"}[id%2]
		n, _ := msg.Meta["n"].(float64)
		if err != nil || msg.Method != "tools/call" || msg.Name != want || int(n) != id ||
			msg.Tool() == nil || msg.Tool().Info().Name != want || seen[msg] {
			t.Errorf("kept Message changed after its request: id %s, name %q, meta %v, tool %v, seen before %v",
				msg.ID, msg.Name, msg.Meta, msg.Tool(), seen[msg])
		}
		seen[msg] = true
	}
}
