package mcp

import (
	"errors"
	"strconv"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// JSON-RPC and MCP error codes.
const (
	CodeParseError     = -32700 // the body is not JSON within the parser's bounds
	CodeInvalidRequest = -32600 // the body is JSON but not a JSON-RPC 2.0 request
	CodeMethodNotFound = -32601 // unknown method, or one the request's revision does not have (404 under 2026-07-28)
	CodeInvalidParams  = -32602 // params of the wrong shape, bad cursor, unknown tool or one the caller may not use, invalid arguments (before 2025-11-25)
	CodeInternalError  = -32603 // a failure inside the server; details go to the log only

	// Codes of protocol revision 2026-07-28.
	CodeHeaderMismatch               = -32020 // Mcp-Method / Mcp-Name headers disagree with the body
	CodeMissingClientCapability      = -32021 // the request needs a client capability it did not declare
	CodeUnsupportedProtocolVersion   = -32022 // the request's protocol version is not served
	CodeUnsupportedProtocolVersionV1 = -32000 // HTTP header version errors before 2026-07-28 (implementation-defined)
	CodeLimitExceeded                = -32001 // a server limit refused or cut the request: streams or requests in flight, batch size or deadline (implementation-defined)
)

// Error is a JSON-RPC error: the error member of a response. Tools may return
// an *Error (directly or wrapped) from Execute to answer with that exact code
// instead of an isError result; find it with errors.As.
type Error struct {
	Code    int    // the JSON-RPC error code (the Code* constants, or -32000 to -32099)
	Message string // a short description, sent to the client
	// Data is optional additional information, encoded with encoding/json.
	Data any
}

// Error returns the message with its code.
func (e *Error) Error() string {
	return "jsonrpc error " + strconv.Itoa(e.Code) + ": " + e.Message
}

// NewError returns an *Error with the given code and message.
func NewError(code int, message string) *Error { return &Error{Code: code, Message: message} }

// Errors returned by the library, for errors.Is.
var (
	// ErrUnknownTool: no tool of that name, or one the caller may not use
	// (the two are indistinguishable to callers on purpose).
	ErrUnknownTool = errors.New("mcp: unknown tool")
	// ErrDuplicateTool: Register was given a name that is already registered.
	ErrDuplicateTool = errors.New("mcp: duplicate tool name")
	// ErrInvalidToolName: a name outside [A-Za-z0-9_.-]{1,128}.
	ErrInvalidToolName = errors.New("mcp: invalid tool name")
	// ErrInvalidSchema: a schema that is not an object schema or does not compile.
	ErrInvalidSchema = errors.New("mcp: invalid schema")
	// ErrInvalidToolInfo: a ToolInfo field whose value means nothing (an
	// unknown TaskSupport).
	ErrInvalidToolInfo = errors.New("mcp: invalid tool info")
	// ErrInvalidArguments: arguments rejected by the input schema or
	// Validate. A tool's own error wrapping it is invalid arguments too:
	// fmt.Errorf("%w: %w", ErrInvalidArguments, err) tells the model what
	// err says.
	ErrInvalidArguments = errors.New("mcp: invalid arguments")
	// ErrInvalidOutput: a typed tool's result broke its own output schema.
	ErrInvalidOutput = errors.New("mcp: tool output does not match its output schema")
	// ErrResultTooLarge: a result larger than the configured cap.
	ErrResultTooLarge = errors.New("mcp: tool result too large")
	// ErrToolPanic: a tool panicked; the stack is logged, not returned.
	ErrToolPanic = errors.New("mcp: tool panicked")
)

// UnknownToolError reports a call of a tool that is not registered, or that
// the caller may not use: the two are indistinguishable on purpose. It
// matches ErrUnknownTool with errors.Is; the Server answers it with -32602
// "Unknown tool: name".
type UnknownToolError struct {
	Name string // the name as called
}

// Error implements error.
func (e *UnknownToolError) Error() string { return "mcp: unknown tool " + quoteName(e.Name) }

// Is reports whether target is ErrUnknownTool.
func (e *UnknownToolError) Is(target error) bool { return target == ErrUnknownTool }

// quoteName quotes a name from a client for a message, cut to a length a
// message can carry.
func quoteName(name string) string {
	return boundedjson.Quote(name, 128)
}

// ArgumentError describes arguments that failed validation. It names the
// field, what was expected and what was given, so that a model can fix its
// call. It matches ErrInvalidArguments with errors.Is.
type ArgumentError struct {
	Tool string // the tool's name
	Path string // JSON pointer to the field, "" for the whole argument object
	Msg  string // what was expected and what was given

	// Err is the tool's own error when the tool reported the call as
	// invalid by wrapping ErrInvalidArguments; nil when the Server's
	// validation rejected the arguments. Unwrap returns it, so errors.As
	// reaches the tool's own error types.
	Err error
}

// Error implements error.
func (e *ArgumentError) Error() string {
	where := "arguments"
	if e.Path != "" {
		where = "argument " + e.Path
	}
	return "invalid arguments for tool " + strconv.Quote(e.Tool) + ": " + where + ": " + e.Msg
}

// Is reports whether target is ErrInvalidArguments.
func (e *ArgumentError) Is(target error) bool { return target == ErrInvalidArguments }

// Unwrap returns the tool's own error, if any.
func (e *ArgumentError) Unwrap() error { return e.Err }
