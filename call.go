package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// A tools/call takes one path, whatever its transport (HTTP, a batch,
// stdio, CallTool) and whether it runs at once or as a task:
//
//	admit → validate → (run now | store the task and spawn) → ToolMiddleware → execute → encode
//
// admit finds the tool, authorizes the caller once and checks the
// Mcp-Param headers; validate checks the arguments (input schema, then the
// tool's Validate); a call that becomes a task is stored before it is
// answered and runs on in a goroutine (taskcall.go); Options.ToolMiddleware
// wraps execute, and is handed the validation's failure as the outcome of
// next when the arguments were refused (see ToolMiddleware); the outcome is
// encoded once. The Server's state of the call is one value, the Request's
// callState, which only this file writes.

// callState is the Server's state of one tools/call, held by its Request:
// what the call's tool and its Request methods read. Only call.go writes
// it.
type callState struct {
	args     any // Arguments decoded to the generic form the schema validator reads
	decoded  any // a typed tool's decoded input, set by its Validate
	notes    *notifier
	inputs   map[string]json.RawMessage // inputResponses of a retry (2026-07-28)
	state    []byte                     // verified requestState of a retry
	tool     Tool                       // the tool called, once admitted
	compiled *compiled
	scope    scope          // what the call's context carries
	extra    []Content      // AddResultContent
	meta     map[string]any // SetResultMeta
	task     string         // the ID of the task the call runs as
	// invalid is the outcome of validate when it refused the call: the
	// innermost ToolHandler returns it instead of running the tool.
	invalid error
	// note is what notes points to when set, held here: no allocation of
	// its own.
	note notifier
}

func (c *callState) addContent(cs []Content) { c.extra = append(c.extra, cs...) }

func (c *callState) setMeta(key string, value any) {
	if c.meta == nil {
		c.meta = map[string]any{}
	}
	c.meta[key] = value
}

// setDecoded keeps a typed tool's decoded input for its Execute.
func (c *callState) setDecoded(in any) { c.decoded = in }

// setRetry gives the call the input responses and the state of a retry
// (a tools/call retry, or a task resumed by tasks/update).
func (c *callState) setRetry(inputs map[string]json.RawMessage, state []byte) {
	c.inputs, c.state = inputs, state
}

// runAsTask makes the call task id's: it sends no progress or log
// notifications (SEP-2663), and keeps nothing of the request's stream
// (the notifier's send) or body (its progress token).
func (c *callState) runAsTask(id string) { c.notes, c.note, c.task = nil, notifier{}, id }

// parseArguments parses the argument bytes of a request made in process
// (NewRequest) under lim; unparsable arguments are an *ArgumentError saying
// what and where.
func (c *callState) parseArguments(r *Request, lim Limits) error {
	v, err := parseJSON(r.Arguments, lim)
	if err != nil {
		where := "the arguments are not JSON"
		var se *boundedjson.SyntaxError
		if errors.As(err, &se) {
			where = se.Where()
		}
		return &ArgumentError{Tool: r.Name, Msg: "not valid JSON: " + where}
	}
	c.args = v
	return nil
}

// newCall makes the Request of a client's tools/call from its message.
func (s *Server) newCall(m *message) (*Request, error) {
	name, ok := m.params["name"].(string)
	if !ok {
		return nil, invalidParams("name must be a string")
	}
	req := &Request{Caller: m.caller, ProtocolVersion: m.rev.version, Name: name, Arguments: m.argsRaw, Meta: m.meta}
	if a, has := m.params["arguments"]; has {
		if _, ok := a.(map[string]any); !ok {
			return nil, invalidParams("arguments must be an object")
		}
		req.c.args = a
	} else {
		req.Arguments = []byte("{}")
		req.c.args = map[string]any{}
	}
	if m.rev.inputRequiredResult() {
		inputs, state, err := s.readRetry(req, m.params)
		if err != nil {
			return nil, err
		}
		req.c.setRetry(inputs, state)
	}
	if s.notifierFor(m, &req.c.note) {
		req.c.notes = &req.c.note // held by the Request: no allocation of its own
	}
	return req, nil
}

// callTool answers tools/call: the whole path above, for a client.
func (s *Server) callTool(ctx context.Context, m *message) ([]byte, error) {
	req, err := s.newCall(m)
	if err != nil {
		return nil, err
	}
	ctx, err = s.admit(ctx, req, m, nil)
	m.tool = req.c.tool
	asTask := false
	if err == nil {
		asTask, err = s.taskMode(ctx, req, m)
	}
	if err == nil && asTask {
		// What a tool checks or asks before it starts is answered at once;
		// then the task is stored and spawned, and the CreateTaskResult
		// answers.
		if req.c.invalid = s.validate(ctx, req); req.c.invalid == nil {
			var created []byte
			if created, err = s.startTask(ctx, req, m); created != nil {
				return created, nil
			}
			// An error, or an optional task without a slot, which runs
			// at once.
		}
	}
	var res *Result
	if err == nil {
		// At once, under the CallTimeout (a task runs until its time to
		// live).
		cctx, cancel := s.callDeadline(ctx)
		if !asTask {
			req.c.invalid = s.validate(cctx, req)
		}
		res, err = s.execute(cctx, req)
		cancel()
	}
	if err == nil && m.rev.resultType() {
		res = s.withServerInfo(res)
	}
	if err != nil {
		var need *InputRequired
		var ae *ArgumentError
		switch {
		case errors.As(err, &need) && m.rev.inputRequiredResult():
			return s.inputRequired(req, need, m)
		case need != nil:
			res, err = ErrorResult(fmt.Sprintf("%v; protocol %s cannot carry such requests: use 2026-07-28", need, m.rev.version)), nil
		case errors.As(err, &ae) && m.rev.invalidArgsAsResult():
			// SEP-1303: invalid arguments are a tool execution error the
			// model can correct.
			res, err = ErrorResult(ae.Error()), nil
		default:
			return nil, err
		}
	}
	return s.encodeResult(ctx, req, m, res)
}

// callDeadline bounds a call answered at once by Options.CallTimeout (a
// task runs until its time to live).
func (s *Server) callDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.opts.CallTimeout > 0 {
		return context.WithTimeout(ctx, s.opts.CallTimeout)
	}
	return ctx, func() {}
}

// encodeResult encodes a call's result once, capped at Options.MaxResultBytes.
func (s *Server) encodeResult(ctx context.Context, req *Request, m *message, res *Result) ([]byte, error) {
	bp := scratchBufs.Get().(*[]byte)
	defer putScratch(bp)
	b, err := appendResultCapped((*bp)[:0], res, s.maxRes)
	*bp = b
	if err != nil && !errors.Is(err, errOverCap) {
		return nil, fmt.Errorf("tool %q: encoding the result: %w", req.Name, err)
	}
	if err != nil || (s.maxRes > 0 && len(b) > s.maxRes) {
		b = s.overCapResult(ctx, b, req.Name, res)
		*bp = b
	}
	if m.rev.resultType() {
		b = s.appendCompleteResult(b, len(res.Meta) > 0)
		*bp = b
	}
	m.isError = res.IsError
	return m.respond(b), nil
}

// notifierFor fills n, the request's notifier, from the transport's
// stream, the progress token and the log level that applies; false when
// the transport cannot send notifications.
func (s *Server) notifierFor(m *message, n *notifier) bool {
	if m.tr.notify == nil {
		return false
	}
	*n = notifier{send: m.tr.notify}
	switch m.meta["progressToken"].(type) {
	case string, float64: // checked by selectRevision; sent back exactly as received
		n.token = m.progressRaw
	}
	if l, ok := m.meta[metaLogLevel].(string); ok && LogLevel(l).Valid() {
		n.level = LogLevel(l)
	} else if !m.rev.logLevelInMeta() {
		n.level = s.opts.LogLevel
		if m.tr.logLevel != "" {
			n.level = m.tr.logLevel
		}
	}
	return true
}

// CallTool runs one tools/call the way the Server runs it for a client,
// without a transport: it looks the tool up in the Registry, asks the
// Authorizer once, checks the arguments against the input schema, calls the
// tool's Validate, then its Execute through Options.ToolMiddleware, and
// checks its structuredContent against the output schema. req.ProtocolVersion is
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

// call is the path of a call made in process: admit, then validate and
// execute under the CallTimeout.
func (s *Server) call(ctx context.Context, req *Request, m *message) (*Result, error) {
	ctx, err := s.admit(ctx, req, m, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.callDeadline(ctx)
	defer cancel()
	return s.validateExecute(ctx, req)
}

// admit looks the tool up, authorizes the caller, checks the Mcp-Param
// headers (2026-07-28 over HTTP, when m has headers) and parses arguments
// made in process. It returns the context the call runs under, which
// carries the caller and the Authorizer. granted, when not nil, is a
// permission the Authorizer already allowed this caller in the request at
// hand (a tasks/update that found the caller's task and resumes it): it is
// not asked again.
func (s *Server) admit(ctx context.Context, req *Request, m *message, granted *string) (context.Context, error) {
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
	req.c.scope = scope{caller: &req.Caller, az: s.az}
	ctx = context.WithValue(ctx, scopeKey{}, &req.c.scope)
	asked := granted != nil && *granted == c.info.Permission // once per request
	if !asked && !allowed(ctx, s.az, req.Caller, c.info.Permission) {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: tool call denied",
			slog.String("tool", req.Name), slog.String("principal", req.Caller.Principal),
			slog.String("permission", c.info.Permission))
		if m != nil { // a client's tools/call, not a task's resumption
			noteDenied(ctx, c.info.Permission)
		}
		return ctx, &UnknownToolError{Name: req.Name}
	}
	req.c.tool, req.c.compiled = t, c
	if m != nil {
		if err := s.checkParamHeaders(m, c, req); err != nil {
			return ctx, err
		}
	}
	if req.c.args == nil { // a request made in process: its bytes are parsed under the Server's bounds
		if err := req.c.parseArguments(req, s.limits); err != nil {
			return ctx, err
		}
	}
	return ctx, nil
}

// validateExecute validates an admitted call and executes it.
func (s *Server) validateExecute(ctx context.Context, req *Request) (*Result, error) {
	req.c.invalid = s.validate(ctx, req)
	return s.execute(ctx, req)
}

// execute runs a validated call: Options.ToolMiddleware around the tool,
// or around the validation's refusal (req.c.invalid).
func (s *Server) execute(ctx context.Context, req *Request) (*Result, error) {
	if s.toolChain != nil {
		res, err := s.runChain(ctx, req)
		return outcome(req, res, err)
	}
	return s.run(ctx, req)
}

// runChain runs Options.ToolMiddleware around the tool. A panic in a
// middleware is the call's failure (ErrToolPanic), whatever the path the
// call took (at once, in a batch, as a task, over stdio): the tool's own
// panics are recovered in run, so each panic is logged once.
func (s *Server) runChain(ctx context.Context, req *Request) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, s.panicked(ctx, req, "mcp: tool middleware panicked", r)
		}
	}()
	return s.toolChain(ctx, req)
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
		return nil, &ArgumentError{Tool: req.Name, Msg: argumentMessage(err), Err: err}
	}
	return ErrorResult(err.Error()), nil
}

// argumentMessage is what a tool's error wrapping ErrInvalidArguments
// tells the model, found from the errors it wraps, never from its text:
// the errors wrapped beside the sentinel
// (fmt.Errorf("%w: %w", ErrInvalidArguments, err) says what err says),
// else the whole message.
func argumentMessage(err error) string {
	for e := err; e != nil; {
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			var msgs []string
			beside := false
			for _, w := range u.Unwrap() {
				if w == ErrInvalidArguments {
					beside = true
				} else if w != nil {
					msgs = append(msgs, w.Error())
				}
			}
			if beside && len(msgs) > 0 {
				return strings.Join(msgs, "; ")
			}
			e = nil
		case interface{ Unwrap() error }:
			e = u.Unwrap()
		default:
			e = nil
		}
	}
	return err.Error()
}

// run executes a validated call: the innermost ToolHandler. A call whose
// arguments validate refused returns that refusal, and its tool does not
// run.
func (s *Server) run(ctx context.Context, req *Request) (res *Result, err error) {
	if err := req.c.invalid; err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, s.toolPanic(ctx, req, r)
		}
	}()
	t := req.c.tool
	res, err = t.Execute(ctx, req)
	if err != nil {
		return outcome(req, nil, err)
	}
	if res == nil {
		res = &Result{}
	}
	if _, checked := t.(outputChecker); !checked {
		if s.maxRes > 0 && resultSize(res) > s.maxRes {
			return res, nil // replaced by the cap's isError result when encoded, unchecked
		}
		if res.StructuredContent != nil {
			return checkOutput(req.c.compiled, req.Name, res)
		}
		if req.c.compiled.out != nil && !res.IsError {
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
	if c := req.c.compiled; c.in != nil {
		if err := c.in.validate(req.Name, req.c.args); err != nil {
			return err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = s.toolPanic(ctx, req, r)
		}
	}()
	if err := req.c.tool.Validate(ctx, req); err != nil {
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
	return s.panicked(ctx, req, "mcp: tool panicked", r)
}

// panicked logs a panic of what ran a call (msg says what), with its
// stack, and returns the error the call fails with.
func (s *Server) panicked(ctx context.Context, req *Request, msg string, r any) error {
	s.logger.LogAttrs(ctx, slog.LevelError, msg,
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
