package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// CallTool runs one tools/call the way the Server runs it for a client,
// without a transport: it looks the tool up in the Registry, asks the
// Authorizer once, checks the arguments against the input schema, calls the
// tool's Validate and Execute (through Options.ToolMiddleware) and checks
// its structuredContent against the output schema. req.ProtocolVersion is
// passed on to the tool as it is.
//
// Errors are values: a tool the caller may not use is an
// *UnknownToolError, exactly like an unknown one; invalid arguments are an
// *ArgumentError; an ordinary error from the tool is a Result with IsError
// set; an *Error from the tool, an *InputRequired, ErrInvalidOutput and a
// panic (ErrToolPanic) are returned as errors. The Server's CallTimeout
// applies. It is meant for tests and for hosts that call tools in process.
func (s *Server) CallTool(ctx context.Context, req *Request) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil { // a panicking Registry
			s.logger.LogAttrs(ctx, slog.LevelError, "mcp: panic while calling a tool",
				slog.String("tool", req.Name), slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			res, err = nil, fmt.Errorf("%w: %s", ErrToolPanic, req.Name)
		}
	}()
	return s.call(ctx, req, nil)
}

// call is the one path of a tools/call: lookup, authorize, header check
// (2026-07-28 over HTTP, when m has headers), then the middleware around
// validate, execute and the output check.
func (s *Server) call(ctx context.Context, req *Request, m *message) (*Result, error) {
	t, ok := s.reg.Lookup(req.Name)
	if !ok {
		return nil, &UnknownToolError{Name: req.Name}
	}
	c, err := s.tools.get(t, s.reg)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", req.Name, err)
	}
	// The caller and the Authorizer go into the context as one value, a
	// pointer into the request: it costs no allocation of its own. The
	// Authorizer, then the tool, read them there.
	req.scope = scope{caller: &req.Caller, az: s.az}
	ctx = context.WithValue(ctx, scopeKey{}, &req.scope)
	if !allowed(ctx, s.az, req.Caller, c.info.Permission) {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: tool call denied",
			slog.String("tool", req.Name), slog.String("principal", req.Caller.Principal),
			slog.String("permission", c.info.Permission))
		return nil, &UnknownToolError{Name: req.Name}
	}
	req.tool, req.compiled = t, c
	if m != nil {
		if err := s.checkParamHeaders(m, c, req); err != nil {
			return nil, err
		}
	}
	if req.args == nil { // a request made in process: its bytes are parsed under the Server's bounds
		if err := req.parseArguments(s.limits); err != nil {
			return nil, err
		}
	}
	if s.opts.CallTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.CallTimeout)
		defer cancel()
	}
	if s.toolChain != nil {
		res, err := s.toolChain(ctx, req)
		return outcome(req, res, err)
	}
	return s.run(ctx, req)
}

// outcome sorts what a tool (or a ToolMiddleware) returned: errors the
// protocol answers as such stay errors; an ordinary error becomes an
// isError result the model can read.
func outcome(req *Request, res *Result, err error) (*Result, error) {
	if err == nil {
		if res == nil {
			res = &Result{}
		}
		return res, nil
	}
	var rpc *Error
	var need *InputRequired
	var ae *ArgumentError
	var unknown *UnknownToolError
	switch {
	case errors.As(err, &rpc), errors.As(err, &need), errors.As(err, &ae), errors.As(err, &unknown),
		errors.Is(err, ErrInvalidOutput), errors.Is(err, ErrToolPanic):
		return nil, err
	case errors.Is(err, ErrInvalidArguments):
		// The tool's own error wrapping the sentinel: the same
		// correctable call as an *ArgumentError.
		return nil, &ArgumentError{Tool: req.Name, Msg: err.Error()}
	}
	return ErrorResult(err.Error()), nil
}

// run validates and executes a permitted call: the innermost ToolHandler.
func (s *Server) run(ctx context.Context, req *Request) (res *Result, err error) {
	c := req.compiled
	if _, err := req.ArgumentsMap(); err != nil {
		return nil, err
	}
	if c.in != nil {
		if err := c.in.validate(req.Name, req.args); err != nil {
			return nil, err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			s.logger.LogAttrs(ctx, slog.LevelError, "mcp: tool panicked",
				slog.String("tool", req.Name), slog.String("principal", req.Caller.Principal),
				slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			res, err = nil, fmt.Errorf("%w: %s", ErrToolPanic, req.Name)
		}
	}()
	t := req.tool
	if err := t.Validate(ctx, req); err != nil {
		var rpc *Error
		var ae *ArgumentError
		switch {
		case errors.As(err, &rpc), errors.As(err, &ae):
			return nil, err
		}
		return nil, &ArgumentError{Tool: req.Name, Msg: err.Error()}
	}
	res, err = t.Execute(ctx, req)
	if err != nil {
		return outcome(req, nil, err)
	}
	if res == nil {
		res = &Result{}
	}
	if _, checked := t.(outputChecker); !checked {
		if res.StructuredContent != nil {
			return checkOutput(c, req.Name, res)
		}
		if c.out != nil && !res.IsError {
			// A tool with an output schema must return structured results.
			return nil, fmt.Errorf("%w: tool %q declares an output schema but returned no structuredContent", ErrInvalidOutput, req.Name)
		}
	}
	return res, nil
}

// outputChecker is implemented by tools that validate their own
// structuredContent (typed tools).
type outputChecker interface{ checksOutput() }

// checkOutput checks a tool's structuredContent: a JSON object that matches
// the output schema, if there is one. It returns a copy of res holding the
// encoded structuredContent, or an error matching ErrInvalidOutput.
func checkOutput(c *compiled, name string, res *Result) (*Result, error) {
	raw, err := rawJSON(res.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: encoding structuredContent: %v", ErrInvalidOutput, name, err)
	}
	g, err := parseJSON(raw, outputLimits)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: structuredContent is not JSON: %v", ErrInvalidOutput, name, err)
	}
	if _, ok := g.(map[string]any); !ok {
		return nil, fmt.Errorf("%w: tool %q: structuredContent must be an object, is %s", ErrInvalidOutput, name, jsonTypeName(g))
	}
	if c.out != nil {
		if err := c.out.checkOutput(name, g); err != nil {
			return nil, err
		}
	}
	cp := *res
	cp.StructuredContent = rawJSONValue(raw)
	return &cp, nil
}
