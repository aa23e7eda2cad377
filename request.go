package mcp

import (
	"encoding/json"
	"fmt"
)

// Request is one tools/call as a tool sees it.
type Request struct {
	// Caller is the authenticated request context.
	Caller Caller
	// ProtocolVersion is the protocol revision this request is served under.
	ProtocolVersion string
	// Name is the called tool's name.
	Name string
	// Arguments are the exact bytes of the arguments object ("{}" when the
	// request had none).
	Arguments json.RawMessage
	// Meta is the request's params._meta object, or nil. A call running as
	// a task keeps at most 64 KiB of it (encoded): beyond that, the
	// members the protocol defines and trace context first, then the
	// others, smallest first, while they fit; the rest is dropped, logged.
	Meta map[string]any

	c callState // the Server's state of the call (call.go)
}

// TaskID returns the ID of the task this call runs as (see TaskSupport),
// or "" when the call is answered at once. A tool running as a task
// sends no progress or log notifications: Progress and Log do nothing.
func (r *Request) TaskID() string { return r.c.task }

// AddResultContent adds content blocks (an image, a resource link, ...) to
// the result of a typed tool (NewTool), after the text copy of its output.
// Call it from the tool's function, before it returns; it is not safe for
// concurrent use.
func (r *Request) AddResultContent(c ...Content) { r.c.addContent(c) }

// SetResultMeta sets key in the _meta object of a typed tool's result.
// Call it from the tool's function, before it returns; it is not safe for
// concurrent use.
func (r *Request) SetResultMeta(key string, value any) {
	r.c.setMeta(key, value)
}

// Tool returns the tool being called: nil before the Server has looked it
// up and authorized the call (so always set inside Validate, Execute and
// ToolMiddleware).
func (r *Request) Tool() Tool { return r.c.tool }

// NewRequest returns a Request for calling name with the given arguments
// (raw JSON of an object; nil means {}). It is for tests and for transports
// that do not go through a Protocol.
func NewRequest(caller Caller, name string, arguments json.RawMessage) *Request {
	if len(arguments) == 0 {
		arguments = json.RawMessage("{}")
	}
	return &Request{Caller: caller, Name: name, Arguments: arguments}
}

// ArgumentsMap returns the arguments decoded as a generic JSON object
// (map[string]any with float64 numbers). It decodes at most once.
func (r *Request) ArgumentsMap() (map[string]any, error) {
	if r.c.args == nil {
		if err := r.c.parseArguments(r, DefaultLimits()); err != nil {
			return nil, err
		}
	}
	m, ok := r.c.args.(map[string]any)
	if !ok {
		return nil, &ArgumentError{Tool: r.Name, Msg: "expected an object, got " + jsonTypeName(r.c.args)}
	}
	return m, nil
}

// Progress reports progress of a long call to the client, if the request
// asked for it (params._meta.progressToken) and its transport can stream
// notifications; otherwise it does nothing. progress must increase from call
// to call; total is 0 when unknown.
func (r *Request) Progress(progress, total float64, message string) error {
	n := r.c.notes
	if n == nil || n.send == nil || n.token == nil {
		return nil
	}
	b := appendProgressParams(nil, &progressParams{Token: n.token, Progress: progress, Total: total, Message: message})
	return n.send("notifications/progress", b)
}

// Log sends a log message (notifications/message) to the client, if level is
// at least the level that applies to this request and its transport can
// stream notifications; otherwise it does nothing. data is any JSON value.
func (r *Request) Log(level LogLevel, logger string, data any) error {
	if !level.Valid() {
		return fmt.Errorf("mcp: invalid log level %q", level)
	}
	if !r.logs(level) {
		return nil
	}
	n := r.c.notes
	b, err := appendLogParams(nil, &logParams{Level: level, Logger: logger, Data: data})
	if err != nil {
		return fmt.Errorf("mcp: encoding log data: %w", err)
	}
	return n.send("notifications/message", b)
}

// logs reports whether a message of level reaches the client: the
// request has a stream and its log level lets level through.
func (r *Request) logs(level LogLevel) bool {
	n := r.c.notes
	return n != nil && n.send != nil && n.level != "" && level.severity() >= n.level.severity()
}

// InputResponse returns the client's response to the input request key of
// an earlier InputRequired, if this call carries one.
func (r *Request) InputResponse(key string) (json.RawMessage, bool) {
	v, ok := r.c.inputs[key]
	return v, ok
}

// State returns the state the tool put in an earlier InputRequired, as
// verified on this retry, or nil.
func (r *Request) State() []byte { return r.c.state }

// ClientSupports reports whether the client declared the named capability
// (such as "elicitation", "sampling" or "roots") on this request
// (2026-07-28 _meta clientCapabilities).
func (r *Request) ClientSupports(capability string) bool {
	caps, _ := r.Meta[metaClientCapabilities].(map[string]any)
	_, ok := caps[capability]
	return ok
}
