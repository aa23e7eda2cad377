package mcp

import "context"

// A ToolHandler runs one tools/call that was looked up and authorized: it
// validates the arguments, calls the tool and checks its output. Its
// outcome is what CallTool returns.
type ToolHandler func(ctx context.Context, req *Request) (*Result, error)

// A ToolMiddleware wraps every tools/call the Server runs
// (Options.ToolMiddleware), as an http.Handler wraps another: it sees the
// caller (req.Caller), the tool (req.Tool(), req.Name), the protocol
// revision (req.ProtocolVersion), and, from next, the outcome; timing next
// gives the duration. It may refuse the call without calling next: an
// *Error becomes that JSON-RPC error, any other error an isError result.
//
// Middleware runs after the call was authorized (a tool the caller may not
// use never reaches it) and before the arguments are validated, so invalid
// arguments are an outcome it sees.
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
