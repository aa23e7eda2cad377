package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// TestDefaultsAreFunctions: the fail-closed defaults are values a program
// gets, not variables it can change for everyone. A value returned and
// then modified changes nothing for the next caller, and a Server without
// an Authorizer denies whatever AllowAll returns.
func TestDefaultsAreFunctions(t *testing.T) {
	l := DefaultLimits()
	l.MaxDepth, l.MaxString = 1, 1
	if d := DefaultLimits(); d.MaxDepth != 32 || d.MaxString != 65536 || d.MaxMembers != 256 {
		t.Errorf("DefaultLimits() = %+v after a caller changed its copy", d)
	}
	ts := NewToolSet()
	permTools(t, ts, map[string]string{"open": ""})
	s := NewServer(ts, nil, nil)
	if got := listNames(t, s, Caller{Grants: []string{"*"}}); len(got) != 0 {
		t.Errorf("nil Authorizer listed %v", got)
	}
	if AllowAll() == nil || !AllowAll().Allowed(context.Background(), Caller{}, "x") || DenyAll().Allowed(context.Background(), Caller{}, "") {
		t.Error("AllowAll/DenyAll answer wrongly")
	}
}

// TestAuthorizerInTheCallContext: a tool reads the Server's Authorizer
// from its context, to show other tools; outside a Server, the context's
// Authorizer denies everything.
func TestAuthorizerInTheCallContext(t *testing.T) {
	az := AuthorizerFunc(func(_ context.Context, c Caller, p string) bool { return p == "" || p == c.Principal })
	ts := NewToolSet()
	var seen Authorizer
	if err := ts.Register(NewRawTool(ToolInfo{Name: "peek"}, func(ctx context.Context, req *Request) (*Result, error) {
		seen = AuthorizerFromContext(ctx)
		return TextResult(fmt.Sprint(seen.Allowed(ctx, req.Caller, "alice"))), nil
	})); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, az, nil)
	res, err := s.CallTool(context.Background(), NewRequest(Caller{Principal: "alice"}, "peek", nil))
	if err != nil || res.Content[0].Text != "true" || seen == nil {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	if AuthorizerFromContext(context.Background()).Allowed(context.Background(), Caller{}, "") {
		t.Error("AuthorizerFromContext without one must deny")
	}
	ctx := ContextWithAuthorizer(ContextWithCaller(context.Background(), Caller{Principal: "p"}), AllowAll())
	if c, ok := CallerFromContext(ctx); !ok || c.Principal != "p" || !AuthorizerFromContext(ctx).Allowed(ctx, c, "x") {
		t.Error("ContextWithAuthorizer lost the caller, or ContextWithCaller the Authorizer")
	}
}

// TestAddToolReturnsTheTool: AddTool returns the registered Tool.
func TestAddToolReturnsTheTool(t *testing.T) {
	ts := NewToolSet()
	tool, err := AddTool(ts, ToolInfo{Name: "echo"}, func(_ context.Context, _ *Request, in echoIO) (echoIO, error) { return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := ts.Lookup("echo"); got != tool {
		t.Errorf("AddTool returned %v, the set holds %v", tool, got)
	}
	if tool, err := AddTool(ts, ToolInfo{Name: "echo"}, func(_ context.Context, _ *Request, in echoIO) (echoIO, error) { return in, nil }); tool != nil || !errors.Is(err, ErrDuplicateTool) {
		t.Errorf("duplicate AddTool = %v, %v", tool, err)
	}
}

// countingAuthorizer counts its questions.
type countingAuthorizer struct{ n atomic.Int64 }

func (a *countingAuthorizer) Allowed(context.Context, Caller, string) bool {
	a.n.Add(1)
	return true
}

// TestAuthorizerAskedOncePerCall: a tools/call asks the Authorizer once,
// under every revision, over HTTP headers too (2026-07-28 with
// Mcp-Param headers).
func TestAuthorizerAskedOncePerCall(t *testing.T) {
	ts := NewToolSet()
	schema := mustSchema(t, `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)
	if err := ts.Register(NewRawTool(ToolInfo{Name: "geo", InputSchema: schema}, func(context.Context, *Request) (*Result, error) {
		return TextResult("ok"), nil
	})); err != nil {
		t.Fatal(err)
	}
	az := &countingAuthorizer{}
	s := NewServer(ts, az, nil)
	modern := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"geo","arguments":{"region":"eu"},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	h := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"geo"}, "Mcp-Param-Region": {"eu"}}
	for _, c := range []struct {
		name string
		ex   *Exchange
		body string
	}{
		{"legacy", &Exchange{ProtocolVersion: Version20250618}, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"geo","arguments":{"region":"eu"}}}`},
		{"modern over HTTP", &Exchange{ProtocolVersion: Version20260728, Header: h}, modern},
	} {
		t.Run(c.name, func(t *testing.T) {
			az.n.Store(0)
			status, body := s.Handle(ContextWithExchange(context.Background(), c.ex), Caller{}, []byte(c.body))
			if status != 200 || !strings.Contains(string(body), `"text":"ok"`) {
				t.Fatalf("%s: %d %s", c.name, status, body)
			}
			if n := az.n.Load(); n != 1 {
				t.Errorf("%s: the Authorizer was asked %d times, want 1", c.name, n)
			}
		})
	}
}

// TestToolCacheNoLeakAfterRemove: the compiled tools are cached by tool
// identity for any Registry, and churn (tools registered, served and
// removed) does not grow the cache past twice the registry plus a margin.
func TestToolCacheNoLeakAfterRemove(t *testing.T) {
	ts := NewToolSet()
	permTools(t, ts, map[string]string{"stable": ""})
	for _, reg := range []Registry{ts, struct{ Registry }{ts}} {
		s := NewServer(reg, AllowAll(), nil)
		for i := range 2000 {
			name := fmt.Sprintf("churn%d", i)
			if err := ts.Register(&counter{name: name}); err != nil {
				t.Fatal(err)
			}
			if i%3 == 0 {
				s.Handle(context.Background(), Caller{}, rpcBody(i, "tools/list", ""))
			} else {
				s.Handle(context.Background(), Caller{}, rpcBody(i, "tools/call", `{"name":"`+name+`"}`))
			}
			ts.Remove(name)
			if n, live := s.tools.size(), ts.Len(); n > 2*(live+1)+minCacheLimit+1 { // live+1: the sweep may have seen the tool being served
				t.Fatalf("round %d: %d cached tools for %d registered", i, n, live)
			}
		}
		// The cache still serves what is registered.
		if got := listNames(t, s, Caller{}); !slices.Equal(got, []string{"stable"}) {
			t.Errorf("after the churn: %v", got)
		}
	}
}

// valueTool is a Tool that is not a pointer and returns a new ToolInfo on
// every call, against the Tool contract; the cache must stay bounded all
// the same.
type valueTool struct{ name string }

func (v valueTool) Info() *ToolInfo                                  { return &ToolInfo{Name: v.name} }
func (valueTool) Validate(context.Context, *Request) error           { return nil }
func (valueTool) Execute(context.Context, *Request) (*Result, error) { return TextResult("ok"), nil }

func TestToolCacheBoundedForFreshInfos(t *testing.T) {
	ts := NewToolSet()
	if err := ts.Register(valueTool{"fresh"}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	for i := range 1000 {
		s.Handle(context.Background(), Caller{}, rpcBody(i, "tools/call", `{"name":"fresh"}`))
	}
	if n := s.tools.size(); n > 2+minCacheLimit+1 {
		t.Errorf("%d cached entries for one tool", n)
	}
}

// TestRegistryWrapperServedLikeToolSet: a Registry wrapper is served by
// the same path as a ToolSet: the same answers, byte for byte.
func TestRegistryWrapperServedLikeToolSet(t *testing.T) {
	ts := NewToolSet()
	permTools(t, ts, map[string]string{"a": "", "b": "p", "c": ""})
	direct := NewServer(ts, GrantsAuthorizer{}, &Options{PageSize: 2})
	wrapped := NewServer(struct{ Registry }{ts}, GrantsAuthorizer{}, &Options{PageSize: 2})
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`,
	} {
		s1, b1 := direct.Handle(context.Background(), Caller{}, []byte(body))
		s2, b2 := wrapped.Handle(context.Background(), Caller{}, []byte(body))
		if s1 != s2 || string(b1) != string(b2) {
			t.Errorf("%s:\nToolSet %d %s\nwrapper %d %s", body, s1, b1, s2, b2)
		}
	}
}

// TestWatchOneWay: enquiry-style indexes follow a ToolSet by Watch alone;
// the watcher has run when the change returns, in the order of changes.
func TestWatchOneWay(t *testing.T) {
	ts := NewToolSet()
	var seen [][]string
	stop := ts.Watch(func() {
		var names []string
		for tool := range ts.All() {
			names = append(names, tool.Info().Name)
		}
		seen = append(seen, names)
	})
	defer stop()
	if err := ts.Register(&counter{name: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := ts.Set(&counter{name: "a"}, &counter{name: "b"}); err != nil {
		t.Fatal(err)
	}
	ts.Remove("a")
	want := [][]string{{"a"}, {"a", "b"}, {"b"}}
	if len(seen) != len(want) {
		t.Fatalf("seen %v, want %v", seen, want)
	}
	for i := range want {
		if !slices.Equal(seen[i], want[i]) {
			t.Errorf("change %d: %v, want %v", i, seen[i], want[i])
		}
	}
}

// TestToolSetSetReplacesAtomically: Set swaps a tool for its replacement
// in one change: a concurrent caller always finds one of them.
func TestToolSetSetReplacesAtomically(t *testing.T) {
	ts := NewToolSet()
	version := func(v string) Tool {
		return NewRawTool(ToolInfo{Name: "t"}, func(context.Context, *Request) (*Result, error) { return TextResult(v), nil })
	}
	if err := ts.Register(version("0")); err != nil {
		t.Fatal(err)
	}
	if err := ts.Register(version("x")); !errors.Is(err, ErrDuplicateTool) {
		t.Errorf("Register of a registered name: %v", err)
	}
	if err := ts.Set(version("1"), version("2")); !errors.Is(err, ErrDuplicateTool) {
		t.Errorf("Set of the same name twice: %v", err)
	}
	if err := ts.Set(version("1"), NewRawTool(ToolInfo{Name: "bad name"}, nil)); !errors.Is(err, ErrInvalidToolName) {
		t.Errorf("Set with an invalid tool: %v", err)
	}
	s := NewServer(ts, AllowAll(), nil)
	done := make(chan struct{})
	var missing atomic.Int64
	go func() {
		defer close(done)
		for range 2000 {
			res, err := s.CallTool(context.Background(), NewRequest(Caller{}, "t", nil))
			if err != nil || res.IsError {
				missing.Add(1)
			}
		}
	}()
	for i := range 500 {
		if err := ts.Set(version(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if missing.Load() != 0 {
		t.Errorf("%d calls found no tool during replacements", missing.Load())
	}
	res, _ := s.CallTool(context.Background(), NewRequest(Caller{}, "t", nil))
	if res.Content[0].Text != "499" {
		t.Errorf("after the replacements: %s", res.Content[0].Text)
	}
}

// TestTypedErrors: the errors of a call are values a caller finds with
// errors.As and errors.Is; a tool's own error wrapping ErrInvalidArguments
// is invalid arguments under every revision, never an internal error.
func TestTypedErrors(t *testing.T) {
	ts := NewToolSet()
	if err := ts.Register(NewRawTool(ToolInfo{Name: "strict"}, func(context.Context, *Request) (*Result, error) {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArguments, &oddLimitError{limit: 7})
	}), NewRawTool(ToolInfo{Name: "secret", Permission: "admin"}, nil)); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, GrantsAuthorizer{}, nil)
	for _, name := range []string{"nope", "secret"} {
		_, err := s.CallTool(context.Background(), NewRequest(Caller{}, name, nil))
		var unknown *UnknownToolError
		if !errors.As(err, &unknown) || unknown.Name != name || !errors.Is(err, ErrUnknownTool) {
			t.Errorf("%s: %v, want an *UnknownToolError", name, err)
		}
	}
	_, err := s.CallTool(context.Background(), NewRequest(Caller{}, "strict", nil))
	var ae *ArgumentError
	if !errors.As(err, &ae) || ae.Tool != "strict" || ae.Msg != "limit must be even" {
		t.Errorf("a wrapped ErrInvalidArguments: %v, want an *ArgumentError", err)
	}
	// The tool's own error stays reachable through the *ArgumentError.
	var own *oddLimitError
	if !errors.As(err, &own) || own.limit != 7 {
		t.Errorf("the tool's own error: %v, want an *oddLimitError through the *ArgumentError", err)
	}
	for _, version := range []string{"", Version20250618, Version20251125} {
		status, r, res := callTool(t, s, versionCtx(version), `{"name":"strict"}`)
		switch {
		case status != 200:
			t.Errorf("%q: status %d", version, status)
		case version >= Version20251125 && (r.Error != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "limit must be even")):
			t.Errorf("%q: %+v %+v, want an isError result", version, r.Error, res)
		case version < Version20251125 && (r.Error == nil || r.Error.Code != CodeInvalidParams || !strings.Contains(r.Error.Message, "limit must be even")):
			t.Errorf("%q: %+v, want -32602 with the tool's message", version, r.Error)
		}
	}
}

// TestCallToolArgumentsParsed: arguments of a request made in process are
// parsed under the Server's bounds; bytes that are not JSON, or not an
// object, are invalid arguments saying so.
func TestCallToolArgumentsParsed(t *testing.T) {
	ts := NewToolSet()
	permTools(t, ts, map[string]string{"count": ""})
	s := NewServer(ts, AllowAll(), &Options{Limits: Limits{MaxString: 4}})
	for args, want := range map[string]string{
		`{"a":`:         "not valid JSON: unexpected end of input at /a",
		`{"a":"12345"}`: "not valid JSON: string longer than 4 bytes at /a",
		`[1]`:           "expected an object, got array",
	} {
		_, err := s.CallTool(context.Background(), NewRequest(Caller{}, "count", json.RawMessage(args)))
		var ae *ArgumentError
		if !errors.As(err, &ae) || ae.Msg != want {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

// oddLimitError is a tool's own error type, wrapped with ErrInvalidArguments.
type oddLimitError struct{ limit int }

func (e *oddLimitError) Error() string { return "limit must be even" }
