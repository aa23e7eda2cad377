package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime/debug"
)

// A ToolHandler runs one tools/call that was looked up, authorized and
// validated: it calls the tool and checks its output (or returns the
// validation's refusal). Its outcome is what CallTool returns.
type ToolHandler func(ctx context.Context, req *Request) (*Result, error)

// A ToolMiddleware wraps every tools/call the Server runs
// (Options.ToolMiddleware), as an http.Handler wraps another: it sees the
// caller (req.Caller), the tool (req.Tool(), req.Name), the protocol
// revision (req.ProtocolVersion), and, from next, the outcome; timing next
// gives the duration. It may refuse the call without calling next: an
// *Error becomes that JSON-RPC error, any other error an isError result.
//
// Middleware runs once for every call the Server runs, on every path (at
// once, in a batch, over stdio, through CallTool, or as a task, where it
// runs in the task, around the tool): after the call was authorized (a
// tool the caller may not use never reaches it, nor a task-only tool
// called without the Tasks extension) and its arguments were validated
// (the input schema, then the tool's Validate, under the request's
// context). Arguments validation refused never reach the tool, and are an
// outcome it sees: next returns the *ArgumentError (or the *InputRequired
// of a Validate that asks the client first) without running the tool.
type ToolMiddleware func(ctx context.Context, req *Request, next ToolHandler) (*Result, error)

// chainTools builds the handler that runs mw around run, the first
// middleware outermost; nil when there is none.
func chainTools(mw []ToolMiddleware, run ToolHandler) ToolHandler {
	if len(mw) == 0 {
		return nil
	}
	h := run
	for i := len(mw) - 1; i >= 0; i-- {
		m, next := mw[i], h
		if m == nil {
			continue
		}
		h = func(ctx context.Context, req *Request) (*Result, error) { return m(ctx, req, next) }
	}
	return h
}

// Message is one JSON-RPC request as Middleware sees it: parsed, its
// revision chosen and its revision rules checked, about to be dispatched.
// Notifications are never dispatched and never reach Middleware. Each
// request has a Message of its own, never reused: a Middleware may keep
// it, or hand it to another goroutine (an audit log written later, say).
type Message struct {
	// Method is the JSON-RPC method, e.g. "tools/call".
	Method string
	// ID is the request's id exactly as sent (a JSON string or number).
	ID json.RawMessage
	// ProtocolVersion is the revision the request is served under.
	ProtocolVersion string
	// Caller is the authenticated caller.
	Caller Caller
	// Name is the target of the request: the tool of a tools/call, the
	// task of tasks/get, tasks/update and tasks/cancel, "" for other
	// methods.
	Name string
	// Meta is the request's params._meta (where a client puts
	// traceparent, tracestate and baggage), nil when it has none. It is
	// the request's own: read it, do not change it.
	Meta map[string]any

	m *message
}

// Tool returns the tool a tools/call is answered by: set by next once the
// tool was looked up and the caller may use it, so read it after next
// returns. It is nil for an unknown tool, a tool the caller may not use
// (which answers alike), and methods other than tools/call: a Middleware
// that records msg.Name only when Tool is not nil keeps names clients make
// up out of its metrics.
func (msg *Message) Tool() Tool { return msg.m.tool }

// Outcome is how a request was answered, as Middleware sees it.
type Outcome struct {
	// Err is the JSON-RPC error the request is answered with; nil when it
	// succeeded.
	Err *Error
	// IsError reports a tools/call answered with a result whose isError
	// is set: the tool failed in a way the model can read.
	IsError bool

	response []byte // the encoded response; nil for Err
	panicked bool   // a Middleware panicked: answered 500
}

// A MessageHandler answers one request.
type MessageHandler func(ctx context.Context, msg *Message) Outcome

// A Middleware wraps the answering of every request the Server dispatches
// (Options.Middleware), whatever its method: it runs after the body was
// parsed and the revision rules passed, sees the request (method, target,
// id, revision, caller, _meta), may put values in the context that flows
// to the tool, and sees how the request was answered. It may answer on its
// own, without calling next, with an Outcome carrying an Err. It is where
// tracing and metrics plug in: one Middleware instruments every method; the
// transport's facts (Exchange: which transport, the HTTP request) are in
// ctx (ExchangeFromContext).
type Middleware func(ctx context.Context, msg *Message, next MessageHandler) Outcome

// chainMessages builds the handler that runs mw around serve, the first
// middleware outermost; nil when there is none.
func chainMessages(mw []Middleware, serve MessageHandler) MessageHandler {
	if len(mw) == 0 {
		return nil
	}
	h := serve
	for i := len(mw) - 1; i >= 0; i-- {
		m, next := mw[i], h
		if m == nil {
			continue
		}
		h = func(ctx context.Context, msg *Message) Outcome { return m(ctx, msg, next) }
	}
	return h
}

// heapMessage is a request on its way through Options.Middleware: the
// message and the Message they see, made for this request alone
// (Middleware may keep the Message), in one allocation of its own, apart
// from the transport's (a task keeps the HTTP stream its context lives
// in, and must not keep the Message with it). Without Middleware the message stays on the stack: nothing the Server
// does keeps it past the request.
type heapMessage struct {
	msg Message
	m   message
}

// release drops what of the request only the Server reads once it is
// answered: the params map is the parser's, which reuses it, and the rest
// (slices of the body, the transport's facts) must not stay alive with a
// Message a Middleware keeps. The Message itself stays as it was, and its
// Tool.
func (hm *heapMessage) release() {
	hm.m = message{tool: hm.m.tool}
}

// answerWithMiddleware runs the request through Options.Middleware. A
// panic in a Middleware fails the request with -32603, logged once with
// its stack.
func (s *Server) answerWithMiddleware(ctx context.Context, hm *heapMessage) (out Outcome) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.LogAttrs(ctx, slog.LevelError, "mcp: middleware panicked",
				slog.String("method", hm.m.method), slog.String("principal", hm.m.caller.Principal),
				slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			out = Outcome{Err: &Error{Code: CodeInternalError, Message: "Internal error"}, panicked: true}
		}
	}()
	m := &hm.m
	hm.msg = Message{Method: m.method, ID: m.id, ProtocolVersion: m.rev.version, Caller: m.caller, Meta: m.meta, m: m}
	switch m.method {
	case "tools/call":
		hm.msg.Name, _ = m.params["name"].(string)
	case "tasks/get", "tasks/update", "tasks/cancel":
		hm.msg.Name, _ = m.params["taskId"].(string)
	}
	return s.chain(ctx, &hm.msg)
}
