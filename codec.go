package mcp

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// Limits bounds what the JSON-RPC parser accepts (the bounds of nsmcp's
// parser). A body that breaks a bound is answered with -32700 "Parse
// error" (depth, string length, container size, numbers, UTF-8, syntax) or,
// for a duplicate member name, -32600 "Invalid request", each saying what
// was wrong and where; it never reaches a tool.
type Limits struct {
	// MaxDepth is the deepest nesting of objects and arrays (the top-level
	// value is at depth 1). Default 32.
	MaxDepth int
	// MaxString is the longest string, in bytes after unescaping, for
	// values and member names alike. Default 65536.
	MaxString int
	// MaxMembers is the most members an object, or elements an array, may
	// have. Default 256.
	MaxMembers int
	// MaxValues is the most values (objects, arrays, strings, numbers,
	// literals) one message may hold, so that what parsing costs in memory
	// stays near the body's size: a value costs some 40 bytes parsed, a
	// body of small values can hold one every two bytes. Default 131 072
	// (about 5 MiB parsed).
	MaxValues int
}

// DefaultLimits returns nsmcp's bounds: depth 32, strings of 65 536 bytes,
// 256 members per object or array; and 131 072 values per message.
func DefaultLimits() Limits { return Limits(boundedjson.DefaultLimits()) }

func (l Limits) orDefault() Limits { return Limits(boundedjson.Limits(l).OrDefault()) }

// outputLimits bound a tool's own output as parsed for validation: deep and
// wide, since the tool and not a client produced it.
var outputLimits = Limits{MaxDepth: 256, MaxString: 1 << 30, MaxMembers: 1 << 30, MaxValues: 1 << 30}

// The paths the envelope parse captures (Parser.Captured, in this order)
// and the objects whose maps it borrows: the envelope and its params never
// outlive the request, unlike the maps below them (arguments, _meta), which
// tools may keep.
var (
	envelopeCapture = [][]string{{"id"}, {"params", "arguments"}, {"params", "_meta", "progressToken"}}
	envelopeBorrow  = [][]string{nil, {"params"}}
)

const (
	capturedID = iota
	capturedArguments
	capturedProgressToken
)

// envelopeParser returns the parser of one JSON-RPC message.
func envelopeParser(lim Limits) boundedjson.Parser {
	return boundedjson.Parser{Limits: boundedjson.Limits(lim), Capture: envelopeCapture, Borrow: envelopeBorrow,
		InternKey: internKey, InternString: internValue}
}

// parseJSON parses exactly one JSON value under lim.
func parseJSON(data []byte, lim Limits) (any, error) {
	return boundedjson.Parse(data, boundedjson.Limits(lim))
}

// parseFailure is the answer to a body the parser refused: what was wrong
// and where, -32600 for a duplicate member name, -32700 otherwise.
func parseFailure(err error) (int, []byte) {
	where := "the body is not JSON"
	var se *boundedjson.SyntaxError
	if errors.As(err, &se) {
		where = se.Where()
	}
	if errors.Is(err, boundedjson.ErrDuplicate) {
		return http.StatusBadRequest, appendError(nil, nil, CodeInvalidRequest, "Invalid request: "+where, nil)
	}
	return http.StatusBadRequest, appendError(nil, nil, CodeParseError, "Parse error: "+where, nil)
}

func appendString(b []byte, s string) []byte { return boundedjson.AppendString(b, s) }

// appendJSON appends v encoded, raw JSON verbatim: for values the package
// made or checked.
func appendJSON(b []byte, v any) ([]byte, error) { return boundedjson.AppendValue(b, v, true) }

// appendCheckedJSON is appendJSON for values from outside the package,
// whose raw JSON must be valid or the whole message would not be.
func appendCheckedJSON(b []byte, v any) ([]byte, error) { return boundedjson.AppendValue(b, v, false) }

// rawJSON marshals v unless it is already raw JSON.
func rawJSON(v any) (json.RawMessage, error) { return boundedjson.Raw(v) }

func jsonTypeName(v any) string { return boundedjson.TypeName(v) }

// shorten cuts a message part from outside to a length a message can carry.
func shorten(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return boundedjson.Truncate(s, max) + "…"
}

// internKey returns b as a string, without allocating for the member names
// of MCP messages.
func internKey(b []byte) string {
	switch string(b) {
	case "jsonrpc":
		return "jsonrpc"
	case "id":
		return "id"
	case "method":
		return "method"
	case "params":
		return "params"
	case "name":
		return "name"
	case "arguments":
		return "arguments"
	case "_meta":
		return "_meta"
	case "progressToken":
		return "progressToken"
	case "cursor":
		return "cursor"
	case "protocolVersion":
		return "protocolVersion"
	case "capabilities":
		return "capabilities"
	case "clientInfo":
		return "clientInfo"
	case "version":
		return "version"
	case "result":
		return "result"
	case "text":
		return "text"
	case "type":
		return "type"
	}
	return string(b)
}

// internValue returns b as a string in an interface, without allocating
// for the common string values of MCP messages.
func internValue(b []byte) any {
	switch string(b) {
	case "2.0":
		return "2.0"
	case "tools/call":
		return "tools/call"
	case "tools/list":
		return "tools/list"
	case "initialize":
		return "initialize"
	case "ping":
		return "ping"
	case "":
		return ""
	}
	return string(b)
}
