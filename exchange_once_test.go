package mcp

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// exchangeReads is a context that counts the lookups of the Exchange made
// through it and the contexts derived from it.
type exchangeReads struct {
	context.Context
	n *atomic.Int64
}

func (c exchangeReads) Value(k any) any {
	if _, ok := k.(exchangeKey); ok {
		c.n.Add(1)
	}
	return c.Context.Value(k)
}

// TestExchangeReadOnce: the Server reads the transport's Exchange once per
// request, whatever path the request takes: a call, a call through
// Middleware, a batch, a call that starts a task, and the tasks/update
// that runs a task's tool again.
func TestExchangeReadOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := NewToolSet()
		ask := func(_ context.Context, req *Request) (*Result, error) {
			if _, ok := req.InputResponse("go"); ok {
				return TextResult("done"), nil
			}
			return nil, &InputRequired{Requests: map[string]InputRequest{"go": Elicitation("Go?", map[string]any{"type": "object"})}}
		}
		if err := ts.Register(
			NewRawTool(ToolInfo{Name: "echo"}, func(context.Context, *Request) (*Result, error) { return TextResult("ok"), nil }),
			NewRawTool(ToolInfo{Name: "ask", TaskSupport: TaskRequired}, ask),
		); err != nil {
			t.Fatal(err)
		}
		mw := func(ctx context.Context, msg *Message, next MessageHandler) Outcome { return next(ctx, msg) }
		plain := NewServer(ts, AllowAll(), nil)
		wrapped := NewServer(ts, AllowAll(), &Options{Middleware: []Middleware{mw}})

		var n atomic.Int64
		handle := func(s *Server, ex *Exchange, body string) string {
			t.Helper()
			n.Store(0)
			ctx := exchangeReads{ContextWithExchange(context.Background(), ex), &n}
			status, resp := s.Handle(ctx, Caller{}, []byte(body))
			if status != http.StatusOK && status != http.StatusAccepted {
				t.Fatalf("%s: %d %s", body, status, resp)
			}
			if got := n.Load(); got != 1 {
				t.Errorf("%.80s: the Exchange was read %d times, want 1", body, got)
			}
			return string(resp)
		}
		legacy := &Exchange{ProtocolVersion: Version20250326, Transport: TransportHTTP}
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`
		handle(plain, legacy, call)
		handle(wrapped, legacy, call)
		handle(plain, legacy, "["+call+","+call+"]")

		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` +
			`{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
		modern := &Exchange{ProtocolVersion: Version20260728, Transport: TransportHTTP,
			Header: http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"ask"}}}
		resp := handle(wrapped, modern, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask",`+meta+`}}`)
		_, rest, _ := strings.Cut(resp, `"taskId":"`)
		id, _, _ := strings.Cut(rest, `"`)
		if len(id) != 22 {
			t.Fatalf("no task: %s", resp)
		}
		get := `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"` + id + `",` + meta + `}}`
		synctest.Wait() // the task's tool has asked for input
		if _, r := wrapped.Handle(context.Background(), Caller{}, []byte(get)); !strings.Contains(string(r), `"status":"input_required"`) {
			t.Fatalf("the task did not ask for input: %s", r)
		}
		modern.Header = http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tasks/update"}, "Mcp-Name": {id}}
		handle(wrapped, modern, `{"jsonrpc":"2.0","id":4,"method":"tasks/update","params":{"taskId":"`+id+
			`","inputResponses":{"go#1":{"action":"accept"}},`+meta+`}}`)
		if err := wrapped.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
}
