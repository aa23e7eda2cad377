package mcp

import "github.com/embedmcp/mcp/internal/boundedjson"

// Reasons of the -32602 errors whose code alone does not say what went
// wrong: the Reason of their ErrorData. A client maps them back to
// ErrUnknownTool and ErrInvalidArguments without reading the message
// (mcptest's Client does).
const (
	// ReasonUnknownTool: no tool of that name, or one the caller may not
	// use (ErrUnknownTool).
	ReasonUnknownTool = "unknownTool"
	// ReasonInvalidArguments: arguments rejected by the input schema or by
	// the tool (ErrInvalidArguments), answered as a JSON-RPC error before
	// revision 2025-11-25 and as an isError result from it on.
	ReasonInvalidArguments = "invalidArguments"
)

// ErrorData is the data member of the JSON-RPC errors the Server sends
// for an unknown tool and for invalid arguments, next to the message a
// model reads.
type ErrorData struct {
	// Reason is ReasonUnknownTool or ReasonInvalidArguments.
	Reason string `json:"reason"`
	// Tool is the tool's name, when it is a valid one.
	Tool string `json:"tool,omitempty"`
	// Path is the JSON pointer of the invalid argument ("" for the whole
	// argument object), cut to 128 bytes.
	Path string `json:"path,omitempty"`
}

// unknownToolData is the ErrorData of an unknown tool called name.
func unknownToolData(name string) *ErrorData {
	d := &ErrorData{Reason: ReasonUnknownTool}
	if ValidToolName(name) {
		d.Tool = name
	}
	return d
}

// argumentData is the ErrorData of invalid arguments.
func argumentData(ae *ArgumentError) *ErrorData {
	d := &ErrorData{Reason: ReasonInvalidArguments, Path: boundedjson.Truncate(ae.Path, 128)}
	if ValidToolName(ae.Tool) {
		d.Tool = ae.Tool
	}
	return d
}

// Is reports whether e is the JSON-RPC form of target: an -32602 error
// whose data has the reason ReasonUnknownTool matches ErrUnknownTool, one
// with ReasonInvalidArguments matches ErrInvalidArguments. So a client
// that decodes the Server's errors into an *Error (mcptest's Client does)
// tells them apart with errors.Is, without reading the message. Data may
// be an ErrorData, a pointer to one, or what encoding/json decodes into
// an any (a map).
func (e *Error) Is(target error) bool {
	if e.Code != CodeInvalidParams || (target != ErrUnknownTool && target != ErrInvalidArguments) {
		return false
	}
	var reason string
	switch d := e.Data.(type) {
	case *ErrorData:
		if d != nil {
			reason = d.Reason
		}
	case ErrorData:
		reason = d.Reason
	case map[string]any:
		reason, _ = d["reason"].(string)
	}
	switch reason {
	case ReasonUnknownTool:
		return target == ErrUnknownTool
	case ReasonInvalidArguments:
		return target == ErrInvalidArguments
	}
	return false
}
