package mcp

import (
	"encoding/json"
	"testing"
	"time"
)

// TestWireShapes holds the golden bytes of every wire shape wire.go owns:
// each appender, given a value, writes exactly these bytes, and the shape
// closed as a response is valid JSON. A change to a shape shows here as a
// change of its golden bytes, in one place.
func TestWireShapes(t *testing.T) {
	info := appendImplementation(nil, "srv", "", "1.0")
	respond := func(open []byte) []byte { return wireResponse([]byte(`7`), open) }
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"implementation", info, `{"name":"srv","version":"1.0"}`},
		{"implementation with title", appendImplementation(nil, "srv", "A \"server\"", "1.0"),
			`{"name":"srv","title":"A \"server\"","version":"1.0"}`},
		{"response", respond([]byte(`{"x":1`)), `{"jsonrpc":"2.0","id":7,"result":{"x":1}}`},
		{"empty result", respond(appendEmptyResult(nil)), `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"error", appendError(nil, []byte(`"a"`), CodeInvalidParams, "Invalid params: x", nil),
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"Invalid params: x"}}`},
		{"error without id, with data", appendError(nil, nil, CodeParseError, "Parse error", map[string]any{"at": 3}),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"at":3}}}`},
		{"error with data that does not encode", appendError(nil, []byte(`1`), CodeInternalError, "Internal error", func() {}),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`},
		{"error value", appendErr(nil, []byte(`2`), &Error{Code: CodeMethodNotFound, Message: "Method not found"}),
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`},
		{"notification", appendNotification(nil, "notifications/progress", []byte(`{"progress":1}`)),
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`},
		{"notification without params", appendNotification(nil, "notifications/tools/list_changed", nil),
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`},
		{"initialize", respond(appendInitializeResult(nil, &initializeResult{Version: Version20250618, ServerInfo: info})),
			`{"jsonrpc":"2.0","id":7,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"tools":{"listChanged":false}},"serverInfo":{"name":"srv","version":"1.0"}}}`},
		{"initialize with instructions", respond(appendInitializeResult(nil, &initializeResult{Version: Version20251125, ServerInfo: info, Instructions: "Be brief."})),
			`{"jsonrpc":"2.0","id":7,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":false}},"serverInfo":{"name":"srv","version":"1.0"},"instructions":"Be brief."}}`},
		{"discover", respond(appendDiscoverResult(nil, &discoverResult{Versions: []string{Version20250618, Version20260728}})),
			`{"jsonrpc":"2.0","id":7,"result":{"supportedVersions":["2026-07-28","2025-06-18"],"capabilities":{"logging":{},"tools":{"listChanged":false}}}}`},
		{"discover, every capability", respond(appendDiscoverResult(nil, &discoverResult{Versions: []string{Version20260728}, ListChanged: true, Tasks: true, Instructions: "Hi."})),
			`{"jsonrpc":"2.0","id":7,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"logging":{},"tools":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}}},"instructions":"Hi."}}`},
		{"tools/list", respond(appendToolsListEnd(append(appendToolsListStart(nil), `{"name":"a"},{"name":"b"}`...), "")),
			`{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a"},{"name":"b"}]}}`},
		{"tools/list with a next page", respond(appendToolsListEnd(appendToolsListStart(nil), "YWZ0ZXI6YQ")),
			`{"jsonrpc":"2.0","id":7,"result":{"tools":[],"nextCursor":"YWZ0ZXI6YQ"}}`},
		{"cacheable, complete", respond(appendComplete(appendCacheable([]byte(`{"tools":[]`), 1500*time.Millisecond, "private"), info, false)),
			`{"jsonrpc":"2.0","id":7,"result":{"tools":[],"ttlMs":1500,"cacheScope":"private","resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"complete, with a _meta of its own", respond(appendComplete([]byte(`{"content":[],"_meta":{}`), info, true)),
			`{"jsonrpc":"2.0","id":7,"result":{"content":[],"_meta":{},"resultType":"complete"}}`},
		{"subscription _meta", appendSubscriptionMeta(nil, []byte(`"s1"`)), `{"io.modelcontextprotocol/subscriptionId":"s1"}`},
		{"listen ack, tools", appendListenAck(nil, &listenAck{ID: []byte(`3`), ToolsListChanged: true}),
			`{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"notifications":{"toolsListChanged":true}}`},
		{"listen ack, nothing", appendListenAck(nil, &listenAck{ID: []byte(`3`)}),
			`{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"notifications":{}}`},
		{"listen ack, tasks", appendListenAck(nil, &listenAck{ID: []byte(`3`), Tasks: true, TaskIDs: []string{"t1", "t2"}}),
			`{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"notifications":{"taskIds":["t1","t2"]}}`},
		{"listen ack, tools and no task yet", appendListenAck(nil, &listenAck{ID: []byte(`3`), ToolsListChanged: true, Tasks: true}),
			`{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"notifications":{"toolsListChanged":true,"taskIds":[]}}`},
		{"listen note", appendListenNote(nil, []byte(`3`)), `{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}`},
		{"listen result", wireResponse([]byte(`3`), appendListenResult(nil, []byte(`3`), info)),
			`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":3,"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
	}
	for _, tt := range tests {
		if string(tt.got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, tt.got, tt.want)
		}
		if !json.Valid(tt.got) {
			t.Errorf("%s: not valid JSON: %s", tt.name, tt.got)
		}
	}
}

// TestWireAppendsInPlace: every appender appends to the bytes it is given
// and leaves them as they were, so that one pooled buffer serves a whole
// answer.
func TestWireAppendsInPlace(t *testing.T) {
	prefix := []byte("PREFIX")
	for name, f := range map[string]func([]byte) []byte{
		"implementation": func(b []byte) []byte { return appendImplementation(b, "a", "b", "c") },
		"error":          func(b []byte) []byte { return appendError(b, nil, 1, "m", nil) },
		"notification":   func(b []byte) []byte { return appendNotification(b, "m", nil) },
		"initialize":     func(b []byte) []byte { return appendInitializeResult(b, &initializeResult{Version: "v"}) },
		"discover":       func(b []byte) []byte { return appendDiscoverResult(b, &discoverResult{Versions: []string{"v"}}) },
		"tools/list":     func(b []byte) []byte { return appendToolsListEnd(appendToolsListStart(b), "c") },
		"listen ack":     func(b []byte) []byte { return appendListenAck(b, &listenAck{ID: []byte("1"), Tasks: true}) },
		"listen result":  func(b []byte) []byte { return appendListenResult(b, []byte("1"), []byte("{}")) },
	} {
		got := f(append([]byte(nil), prefix...))
		if len(got) <= len(prefix) || string(got[:len(prefix)]) != string(prefix) {
			t.Errorf("%s: %q does not start with the bytes it was given", name, got)
		}
	}
}
