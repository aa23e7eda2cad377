package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/embedmcp/mcp/internal/boundedjson"
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
	// Meta is the request's params._meta object, or nil.
	Meta map[string]any

	args     any // Arguments decoded to the generic form the schema validator reads
	decoded  any // a typed tool's decoded input, set by Validate
	notes    *notifier
	inputs   map[string]json.RawMessage // inputResponses of a retry (2026-07-28)
	state    []byte                     // verified requestState of a retry
	tool     Tool                       // the tool called, once looked up
	compiled *compiled
	scope    scope          // what the call's context carries
	extra    []Content      // AddResultContent
	meta     map[string]any // SetResultMeta

	validated bool   // the arguments passed validate (a task's first run)
	task      string // the ID of the task the call runs as

	// granted is a permission the Authorizer already allowed this caller
	// in the request at hand (a tasks/update that found the caller's task
	// and resumes it): admit does not ask again for it.
	granted    string
	hasGranted bool
}

// TaskID returns the ID of the task this call runs as (see TaskSupport),
// or "" when the call is answered at once. A tool running as a task
// sends no progress or log notifications: Progress and Log do nothing.
func (r *Request) TaskID() string { return r.task }

// AddResultContent adds content blocks (an image, a resource link, ...) to
// the result of a typed tool (NewTool), after the text copy of its output.
// Call it from the tool's function, before it returns; it is not safe for
// concurrent use.
func (r *Request) AddResultContent(c ...Content) { r.extra = append(r.extra, c...) }

// SetResultMeta sets key in the _meta object of a typed tool's result.
// Call it from the tool's function, before it returns; it is not safe for
// concurrent use.
func (r *Request) SetResultMeta(key string, value any) {
	if r.meta == nil {
		r.meta = map[string]any{}
	}
	r.meta[key] = value
}

// Tool returns the tool being called: nil before the Server has looked it
// up and authorized the call (so always set inside Validate, Execute and
// ToolMiddleware).
func (r *Request) Tool() Tool { return r.tool }

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
	if r.args == nil {
		if err := r.parseArguments(DefaultLimits()); err != nil {
			return nil, err
		}
	}
	m, ok := r.args.(map[string]any)
	if !ok {
		return nil, &ArgumentError{Tool: r.Name, Msg: "expected an object, got " + jsonTypeName(r.args)}
	}
	return m, nil
}

// parseArguments parses the argument bytes of a request made in process
// (NewRequest) under lim; unparsable arguments are an *ArgumentError saying
// what and where.
func (r *Request) parseArguments(lim Limits) error {
	v, err := parseJSON(r.Arguments, lim)
	if err != nil {
		where := "the arguments are not JSON"
		var se *boundedjson.SyntaxError
		if errors.As(err, &se) {
			where = se.Where()
		}
		return &ArgumentError{Tool: r.Name, Msg: "not valid JSON: " + where}
	}
	r.args = v
	return nil
}

// Progress reports progress of a long call to the client, if the request
// asked for it (params._meta.progressToken) and its transport can stream
// notifications; otherwise it does nothing. progress must increase from call
// to call; total is 0 when unknown.
func (r *Request) Progress(progress, total float64, message string) error {
	n := r.notes
	if n == nil || n.send == nil || n.token == nil {
		return nil
	}
	b := []byte(`{"progressToken":`)
	b = append(b, n.token...)
	b = append(b, `,"progress":`...)
	b = strconv.AppendFloat(b, progress, 'g', -1, 64)
	if total > 0 {
		b = append(b, `,"total":`...)
		b = strconv.AppendFloat(b, total, 'g', -1, 64)
	}
	if message != "" {
		b = append(b, `,"message":`...)
		b = appendString(b, message)
	}
	b = append(b, '}')
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
	n := r.notes
	b := []byte(`{"level":`)
	b = appendString(b, string(level))
	if logger != "" {
		b = append(b, `,"logger":`...)
		b = appendString(b, logger)
	}
	b = append(b, `,"data":`...)
	var err error
	if b, err = appendCheckedJSON(b, data); err != nil {
		return fmt.Errorf("mcp: encoding log data: %w", err)
	}
	b = append(b, '}')
	return n.send("notifications/message", b)
}

// logs reports whether a message of level reaches the client: the
// request has a stream and its log level lets level through.
func (r *Request) logs(level LogLevel) bool {
	n := r.notes
	return n != nil && n.send != nil && n.level != "" && level.severity() >= n.level.severity()
}

// InputResponse returns the client's response to the input request key of
// an earlier InputRequired, if this call carries one.
func (r *Request) InputResponse(key string) (json.RawMessage, bool) {
	v, ok := r.inputs[key]
	return v, ok
}

// State returns the state the tool put in an earlier InputRequired, as
// verified on this retry, or nil.
func (r *Request) State() []byte { return r.state }

// ClientSupports reports whether the client declared the named capability
// (such as "elicitation", "sampling" or "roots") on this request
// (2026-07-28 _meta clientCapabilities).
func (r *Request) ClientSupports(capability string) bool {
	caps, _ := r.Meta[metaClientCapabilities].(map[string]any)
	_, ok := caps[capability]
	return ok
}
