package mcp

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// The wire shapes of the Server's answers, one named appender each, so that
// every shape has one place that writes it and a golden test of its bytes
// (wire_test.go); those of the Tasks extension are in wire_tasks.go.
// Protocol code builds a value and calls the appender; it
// appends no JSON syntax of its own.
//
// Results are appended open, without their closing brace, so that the
// fields of the revision (resultType, _meta) can follow them; wireResponse
// closes the result and the envelope. Every appender writes into the
// caller's buffer, so that a pooled scratch buffer serves the whole answer
// and the response is the one exact-size copy wireResponse makes.

// The JSON-RPC envelope of a result.
const (
	responsePrefix = `{"jsonrpc":"2.0","id":`
	responseMid    = `,"result":`
)

var nullJSON = []byte("null")

// wireResponse returns the complete JSON-RPC response to id carrying the
// open result object, in one exact-size buffer.
func wireResponse(id, result []byte) []byte {
	out := make([]byte, 0, len(result)+len(id)+len(responsePrefix)+len(responseMid)+2)
	out = append(out, responsePrefix...)
	out = append(out, id...)
	out = append(out, responseMid...)
	out = append(out, result...)
	return append(out, "}}"...)
}

// appendError appends a JSON-RPC error response. id is raw JSON (nil:
// null, the id of a request that could not be read); data is encoded with
// encoding/json and left out when it cannot be.
func appendError(b []byte, id []byte, code int, message string, data any) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if len(id) == 0 {
		id = nullJSON
	}
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	if data != nil {
		if enc, err := json.Marshal(data); err == nil {
			b = append(b, `,"data":`...)
			b = append(b, enc...)
		}
	}
	return append(b, "}}"...)
}

// appendErr appends rpc as the error response to id.
func appendErr(b []byte, id []byte, rpc *Error) []byte {
	return appendError(b, id, rpc.Code, rpc.Message, rpc.Data)
}

// appendNotification appends a JSON-RPC notification; params is raw JSON,
// nil for none.
func appendNotification(b []byte, method string, params []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = appendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// appendImplementation appends an Implementation object (serverInfo).
func appendImplementation(b []byte, name, title, version string) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, name)
	if title != "" {
		b = append(b, `,"title":`...)
		b = appendString(b, title)
	}
	b = append(b, `,"version":`...)
	b = appendString(b, version)
	return append(b, '}')
}

// appendEmptyResult appends the open empty result (ping,
// logging/setLevel).
func appendEmptyResult(b []byte) []byte { return append(b, '{') }

// initializeResult is the answer to initialize.
type initializeResult struct {
	Version      string // the revision agreed
	ServerInfo   []byte // encoded Implementation
	Instructions string // "" for none
	Resources    bool   // views are served (MCP Apps): the resources capability
}

// appendInitializeResult appends r as an open InitializeResult.
func appendInitializeResult(b []byte, r *initializeResult) []byte {
	b = append(b, `{"protocolVersion":`...)
	b = appendString(b, r.Version)
	b = append(b, `,"capabilities":{"logging":{},`...)
	if r.Resources {
		b = append(b, `"resources":{},`...)
	}
	b = append(b, `"tools":{"listChanged":false}},"serverInfo":`...)
	b = append(b, r.ServerInfo...)
	return appendInstructions(b, r.Instructions)
}

func appendInstructions(b []byte, instructions string) []byte {
	if instructions == "" {
		return b
	}
	b = append(b, `,"instructions":`...)
	return appendString(b, instructions)
}

// discoverResult is the answer to server/discover, before the revision's
// fields.
type discoverResult struct {
	Versions     []string // served, oldest first (sent newest first)
	ListChanged  bool     // tools/list changes are announced
	Tasks        bool     // the Tasks extension is served
	Views        bool     // views are served: resources and the MCP Apps extension
	Instructions string   // "" for none
}

// appendDiscoverResult appends r as an open DiscoverResult.
func appendDiscoverResult(b []byte, r *discoverResult) []byte {
	b = append(b, `{"supportedVersions":[`...)
	for i := len(r.Versions) - 1; i >= 0; i-- {
		b = appendString(b, r.Versions[i])
		if i > 0 {
			b = append(b, ',')
		}
	}
	b = append(b, `],"capabilities":{"logging":{},`...)
	if r.Views {
		b = append(b, `"resources":{},`...)
	}
	b = append(b, `"tools":{"listChanged":`...)
	b = strconv.AppendBool(b, r.ListChanged)
	b = append(b, '}')
	switch {
	case r.Tasks && r.Views:
		b = append(b, `,"extensions":{"`+tasks.Extension+`":{},"`+UIExtension+`":{"mimeTypes":["`+ViewMIMEType+`"]}}`...)
	case r.Tasks:
		b = append(b, `,"extensions":{"`+tasks.Extension+`":{}}`...)
	case r.Views:
		b = append(b, `,"extensions":{"`+UIExtension+`":{"mimeTypes":["`+ViewMIMEType+`"]}}`...)
	}
	b = append(b, '}')
	return appendInstructions(b, r.Instructions)
}

// appendToolsListStart opens a ListToolsResult: the encoded tool
// descriptors follow, separated by commas, then appendToolsListEnd.
func appendToolsListStart(b []byte) []byte { return append(b, `{"tools":[`...) }

// appendToolsListEnd closes the tools array of a ListToolsResult, with the
// cursor of the next page ("" on the last page), leaving the result open.
func appendToolsListEnd(b []byte, nextCursor string) []byte {
	b = append(b, ']')
	if nextCursor != "" {
		b = append(b, `,"nextCursor":`...)
		b = appendString(b, nextCursor)
	}
	return b
}

// appendCacheable appends the CacheableResult fields of 2026-07-28 to an
// open result.
func appendCacheable(b []byte, ttl time.Duration, scope string) []byte {
	b = append(b, `,"ttlMs":`...)
	b = strconv.AppendInt(b, ttl.Milliseconds(), 10)
	b = append(b, `,"cacheScope":`...)
	return appendString(b, scope)
}

// appendComplete appends the fields 2026-07-28 adds to a complete result:
// resultType and, unless the result carries a _meta of its own, one with
// the server's identity (serverInfo, encoded).
func appendComplete(b []byte, serverInfo []byte, hasMeta bool) []byte {
	b = append(b, `,"resultType":"complete"`...)
	if !hasMeta {
		b = append(b, `,"_meta":{"`+metaServerInfo+`":`...)
		b = append(b, serverInfo...)
		b = append(b, '}')
	}
	return b
}

// appendSubscriptionMeta appends the _meta object of a subscription's
// notifications: its id, the raw id of the subscriptions/listen request.
func appendSubscriptionMeta(b []byte, id []byte) []byte {
	b = append(b, `{"`+metaSubscriptionID+`":`...)
	b = append(b, id...)
	return append(b, '}')
}

// listenAck is the params of notifications/subscriptions/acknowledged.
type listenAck struct {
	ID               []byte   // raw id of the subscriptions/listen request
	ToolsListChanged bool     // tool-list changes will be sent
	Tasks            bool     // the Tasks extension's filter was agreed
	TaskIDs          []string // the tasks followed, when Tasks
}

// appendListenAck appends a as the acknowledgement's params.
func appendListenAck(b []byte, a *listenAck) []byte {
	b = append(b, `{"_meta":`...)
	b = appendSubscriptionMeta(b, a.ID)
	b = append(b, `,"notifications":{`...)
	if a.ToolsListChanged {
		b = append(b, `"toolsListChanged":true`...)
	}
	if a.Tasks {
		if a.ToolsListChanged {
			b = append(b, ',')
		}
		b = append(b, `"taskIds":[`...)
		for i, id := range a.TaskIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, id)
		}
		b = append(b, ']')
	}
	return append(b, "}}"...)
}

// appendListenNote appends the params of a subscription's notification
// that carries nothing but the subscription (tools/list_changed).
func appendListenNote(b []byte, id []byte) []byte {
	b = append(b, `{"_meta":`...)
	b = appendSubscriptionMeta(b, id)
	return append(b, '}')
}

// appendListenResult appends the open result that ends a
// subscriptions/listen stream: complete, with the subscription and the
// server's identity in its _meta.
func appendListenResult(b []byte, id, serverInfo []byte) []byte {
	b = append(b, `{"resultType":"complete","_meta":{"`+metaSubscriptionID+`":`...)
	b = append(b, id...)
	b = append(b, `,"`+metaServerInfo+`":`...)
	b = append(b, serverInfo...)
	return append(b, '}')
}

// appendServerInfoMeta appends a _meta member holding nothing but the
// server's identity (serverInfo, encoded).
func appendServerInfoMeta(b []byte, serverInfo []byte) []byte {
	b = append(b, `,"_meta":{"`+metaServerInfo+`":`...)
	b = append(b, serverInfo...)
	return append(b, '}')
}

// inputRequiredResult is the answer to a tools/call whose tool needs input
// first (2026-07-28).
type inputRequiredResult struct {
	Requests   map[string]json.RawMessage // the input requests, encoded, by key; none: left out
	State      string                     // the sealed requestState; "" for none
	ServerInfo []byte                     // encoded Implementation
}

// appendInputRequiredResult appends r as an open InputRequiredResult.
func appendInputRequiredResult(b []byte, r *inputRequiredResult) []byte {
	b = append(b, `{"resultType":"input_required"`...)
	if len(r.Requests) > 0 {
		b = append(b, ',')
		b = appendInputRequests(b, r.Requests)
	}
	if r.State != "" {
		b = append(b, `,"requestState":`...)
		b = appendString(b, r.State)
	}
	return appendServerInfoMeta(b, r.ServerInfo)
}

// progressParams is the params of notifications/progress.
type progressParams struct {
	Token    []byte // the request's progressToken, raw, echoed byte for byte
	Progress float64
	Total    float64 // 0 when unknown: left out
	Message  string  // "" for none
}

// appendProgressParams appends p.
func appendProgressParams(b []byte, p *progressParams) []byte {
	b = append(b, `{"progressToken":`...)
	b = append(b, p.Token...)
	b = append(b, `,"progress":`...)
	b = strconv.AppendFloat(b, p.Progress, 'g', -1, 64)
	if p.Total > 0 {
		b = append(b, `,"total":`...)
		b = strconv.AppendFloat(b, p.Total, 'g', -1, 64)
	}
	if p.Message != "" {
		b = append(b, `,"message":`...)
		b = appendString(b, p.Message)
	}
	return append(b, '}')
}

// logParams is the params of notifications/message.
type logParams struct {
	Level  LogLevel
	Logger string // "" for none
	Data   any    // any JSON value
}

// appendLogParams appends p, or returns the error of encoding p.Data
// (appendCheckedJSON).
func appendLogParams(b []byte, p *logParams) ([]byte, error) {
	b = append(b, `{"level":`...)
	b = appendString(b, string(p.Level))
	if p.Logger != "" {
		b = append(b, `,"logger":`...)
		b = appendString(b, p.Logger)
	}
	b = append(b, `,"data":`...)
	b, err := appendCheckedJSON(b, p.Data)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}
