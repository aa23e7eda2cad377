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

// call is the one path of a tools/call: admit, then execute.
func (s *Server) call(ctx context.Context, req *Request, m *message) (*Result, error) {
	ctx, err := s.admit(ctx, req, m)
	if err != nil {
		return nil, err
	}
	return s.execute(ctx, req)
}

// admit looks the tool up, authorizes the caller, checks the Mcp-Param
// headers (2026-07-28 over HTTP, when m has headers) and parses arguments
// made in process. It returns the context the call runs under, which
// carries the caller and the Authorizer.
func (s *Server) admit(ctx context.Context, req *Request, m *message) (context.Context, error) {
	t, ok := s.reg.Lookup(req.Name)
	if !ok {
		return ctx, &UnknownToolError{Name: req.Name}
	}
	c, err := s.tools.get(t, s.reg)
	if err != nil {
		return ctx, fmt.Errorf("tool %q: %w", req.Name, err)
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
		return ctx, &UnknownToolError{Name: req.Name}
	}
	req.tool, req.compiled = t, c
	if m != nil {
		if err := s.checkParamHeaders(m, c, req); err != nil {
			return ctx, err
		}
	}
	if req.args == nil { // a request made in process: its bytes are parsed under the Server's bounds
		if err := req.parseArguments(s.limits); err != nil {
			return ctx, err
		}
	}
	return ctx, nil
}

// execute runs an admitted call: the middleware around validate, execute
// and the output check, under the call's deadline.
func (s *Server) execute(ctx context.Context, req *Request) (*Result, error) {
	if s.opts.CallTimeout > 0 && req.task == "" { // a task runs until its time to live
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
	if !req.validated {
		if err := s.validate(ctx, req); err != nil {
			return nil, err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, s.toolPanic(ctx, req, r)
		}
	}()
	t := req.tool
	res, err = t.Execute(ctx, req)
	if err != nil {
		return outcome(req, nil, err)
	}
	if res == nil {
		res = &Result{}
	}
	if _, checked := t.(outputChecker); !checked {
		if res.StructuredContent != nil {
			return checkOutput(req.compiled, req.Name, res)
		}
		if req.compiled.out != nil && !res.IsError {
			// A tool with an output schema must return structured results.
			return nil, fmt.Errorf("%w: tool %q declares an output schema but returned no structuredContent", ErrInvalidOutput, req.Name)
		}
	}
	return res, nil
}

// validate checks a permitted call's arguments: against the input schema,
// then by the tool's Validate, which may also ask the client for input
// (an *InputRequired) before the tool runs.
func (s *Server) validate(ctx context.Context, req *Request) (err error) {
	if _, err := req.ArgumentsMap(); err != nil {
		return err
	}
	if c := req.compiled; c.in != nil {
		if err := c.in.validate(req.Name, req.args); err != nil {
			return err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = s.toolPanic(ctx, req, r)
		}
	}()
	if err := req.tool.Validate(ctx, req); err != nil {
		var rpc *Error
		var ae *ArgumentError
		var need *InputRequired
		switch {
		case errors.As(err, &rpc), errors.As(err, &ae), errors.As(err, &need):
			return err
		}
		return &ArgumentError{Tool: req.Name, Msg: err.Error()}
	}
	return nil
}

// toolPanic logs a tool's panic and returns the error it becomes.
func (s *Server) toolPanic(ctx context.Context, req *Request, r any) error {
	s.logger.LogAttrs(ctx, slog.LevelError, "mcp: tool panicked",
		slog.String("tool", req.Name), slog.String("principal", req.Caller.Principal),
		slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
	return fmt.Errorf("%w: %s", ErrToolPanic, req.Name)
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
