package mcp

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// TestWireShapes holds the golden bytes of every wire shape wire.go owns:
// each appender, given a value, writes exactly these bytes, and the shape
// closed as a response is valid JSON. A change to a shape shows here as a
// change of its golden bytes, in one place.
func TestWireShapes(t *testing.T) {
	info := appendImplementation(nil, "srv", "", "1.0")
	respond := func(open []byte) []byte { return wireResponse([]byte(`7`), open) }
	// task returns a task record changed by set; its times are in a zone
	// that is not UTC, and in nanoseconds, to show their encoding.
	created := time.Date(2026, 7, 28, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
	task := func(set func(*tasks.Record)) *tasks.Record {
		rec := &tasks.Record{ID: "t1", Status: tasks.Working, Created: created, Updated: created.Add(1500 * time.Millisecond),
			Expires: created.Add(time.Hour)}
		set(rec)
		return rec
	}
	working := task(func(*tasks.Record) {})
	busy := task(func(r *tasks.Record) { r.StatusMessage, r.PollInterval = `Busy "now"`, 250*time.Microsecond })
	asking := task(func(r *tasks.Record) {
		r.Status = tasks.InputRequired
		r.InputRequests = map[string]json.RawMessage{"b": json.RawMessage(`{"method":"roots/list"}`), "a": json.RawMessage(`{"method":"x"}`)}
	})
	askingNothing := task(func(r *tasks.Record) { r.Status = tasks.InputRequired })
	completed := task(func(r *tasks.Record) {
		r.Status, r.Result, r.PollInterval = tasks.Completed, json.RawMessage(`{"content":[],"resultType":"complete"}`), 2*time.Second
	})
	failed := task(func(r *tasks.Record) {
		r.Status, r.StatusMessage, r.Error = tasks.Failed, "Tool execution failed: x", json.RawMessage(`{"code":-32603,"message":"x"}`)
	})
	cancelled := task(func(r *tasks.Record) { r.Status = tasks.Cancelled })
	logged := func(p *logParams) string {
		b, err := appendLogParams(nil, p)
		if err != nil {
			return "error: " + err.Error()
		}
		return string(b)
	}
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
		{"input required", respond(appendInputRequiredResult(nil, &inputRequiredResult{ServerInfo: info, Requests: map[string]json.RawMessage{
			"b": json.RawMessage(`{"method":"roots/list","params":{}}`),
			"a": json.RawMessage(`{"method":"elicitation/create","params":{"message":"Name?","mode":"form","requestedSchema":{"type":"object"}}}`)}})),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"Name?","mode":"form","requestedSchema":{"type":"object"}}},"b":{"method":"roots/list","params":{}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"input required, state only", respond(appendInputRequiredResult(nil, &inputRequiredResult{ServerInfo: info, State: "c2VhbGVk"})),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","requestState":"c2VhbGVk","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"progress", appendProgressParams(nil, &progressParams{Token: []byte(`"tok"`), Progress: 1}),
			`{"progressToken":"tok","progress":1}`},
		{"progress, every field", appendProgressParams(nil, &progressParams{Token: []byte(`42`), Progress: 2.5, Total: 10, Message: `Half "way"`}),
			`{"progressToken":42,"progress":2.5,"total":10,"message":"Half \"way\""}`},
		{"progress, large and small numbers", appendProgressParams(nil, &progressParams{Token: []byte(`"tok"`), Progress: 1e21, Total: 1e-7}),
			`{"progressToken":"tok","progress":1e+21,"total":1e-07}`},
		{"log", []byte(logged(&logParams{Level: LevelInfo, Data: map[string]any{"a": 1}})), `{"level":"info","data":{"a":1}}`},
		{"log with a logger", []byte(logged(&logParams{Level: LevelWarning, Logger: "db", Data: "text"})),
			`{"level":"warning","logger":"db","data":"text"}`},
		{"log without data", []byte(logged(&logParams{Level: LevelError, Logger: "db"})), `{"level":"error","logger":"db","data":null}`},
		{"create task", respond(appendCreateTaskResult(nil, working, info)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"create task, message and poll interval under 1ms", respond(appendCreateTaskResult(nil, busy, info)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"t1","status":"working","statusMessage":"Busy \"now\"","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"pollIntervalMs":1,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"create task, never its requests or result", respond(appendCreateTaskResult(nil, asking, info)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"t1","status":"input_required","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"tasks/get, working", respond(appendGetTaskResult(nil, working, info)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"t1","status":"working","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"tasks/get, input required", respond(appendGetTaskResult(nil, asking, info)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"t1","status":"input_required","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"inputRequests":{"a":{"method":"x"},"b":{"method":"roots/list"}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"tasks/get, input required without requests", respond(appendGetTaskResult(nil, askingNothing, info)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"t1","status":"input_required","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"inputRequests":{},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"tasks/get, completed", respond(appendGetTaskResult(nil, completed, info)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"t1","status":"completed","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"pollIntervalMs":2000,"result":{"content":[],"resultType":"complete"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"tasks/get, failed", respond(appendGetTaskResult(nil, failed, info)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"t1","status":"failed","statusMessage":"Tool execution failed: x","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"error":{"code":-32603,"message":"x"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"tasks/get, cancelled", respond(appendGetTaskResult(nil, cancelled, info)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"t1","status":"cancelled","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"task ack", respond(appendTaskAck(nil, info, nil)),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"}}}}`},
		{"task ack, inputs ignored", respond(appendTaskAck(nil, info, []string{`a"q`, "z"})),
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0"},"io.github.embedmcp/ignoredInputResponses":["a\"q","z"]}}}`},
		{"task note", appendTaskNote(nil, []byte(`3`), busy),
			`{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"taskId":"t1","status":"working","statusMessage":"Busy \"now\"","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"pollIntervalMs":1}`},
		{"task note, completed", appendTaskNote(nil, []byte(`"s"`), completed),
			`{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"},"taskId":"t1","status":"completed","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"pollIntervalMs":2000,"result":{"content":[],"resultType":"complete"}}`},
		{"task note, input required", appendTaskNote(nil, []byte(`3`), asking),
			`{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"taskId":"t1","status":"input_required","createdAt":"2026-07-28T09:00:00.123Z","lastUpdatedAt":"2026-07-28T09:00:01.623Z","ttlMs":3600000,"inputRequests":{"a":{"method":"x"},"b":{"method":"roots/list"}}}`},
		{"task result kept", closeTaskResult([]byte(`{"content":[{"type":"text","text":"hi"}]`)),
			`{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`},
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			if string(tt.got) != tt.want {
				t.Errorf("%s:\n got %s\nwant %s", tt.name, tt.got, tt.want)
			}
			if !json.Valid(tt.got) {
				t.Errorf("%s: not valid JSON: %s", tt.name, tt.got)
			}
		})
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
		"input required": func(b []byte) []byte {
			return appendInputRequiredResult(b, &inputRequiredResult{Requests: map[string]json.RawMessage{"a": json.RawMessage("{}")}})
		},
		"progress": func(b []byte) []byte { return appendProgressParams(b, &progressParams{Token: []byte("1")}) },
		"log": func(b []byte) []byte {
			b, _ = appendLogParams(b, &logParams{Level: LevelInfo, Data: 1})
			return b
		},
		"create task": func(b []byte) []byte { return appendCreateTaskResult(b, &tasks.Record{ID: "t"}, []byte("{}")) },
		"tasks/get":   func(b []byte) []byte { return appendGetTaskResult(b, &tasks.Record{ID: "t"}, []byte("{}")) },
		"task ack":    func(b []byte) []byte { return appendTaskAck(b, []byte("{}"), []string{"k"}) },
		"task note":   func(b []byte) []byte { return appendTaskNote(b, []byte("1"), &tasks.Record{ID: "t"}) },
		"task result": closeTaskResult,
	} {
		got := f(append([]byte(nil), prefix...))
		if len(got) <= len(prefix) || string(got[:len(prefix)]) != string(prefix) {
			t.Errorf("%s: %q does not start with the bytes it was given", name, got)
		}
	}
}

// TestWireLogParamsUnencodable: log data that cannot be encoded is an
// error, and no params are made.
func TestWireLogParamsUnencodable(t *testing.T) {
	b, err := appendLogParams([]byte("x"), &logParams{Level: LevelInfo, Data: func() {}})
	if err == nil || b != nil {
		t.Fatalf("appendLogParams(func) = %q, %v; want nil and an error", b, err)
	}
}
