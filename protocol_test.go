package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// response is a decoded JSON-RPC response.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// decodeResponse decodes one JSON-RPC response and checks its envelope.
func decodeResponse(t *testing.T, body []byte) response {
	t.Helper()
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, body)
	}
	if r.JSONRPC != "2.0" {
		t.Fatalf("response jsonrpc = %q, want 2.0\n%s", r.JSONRPC, body)
	}
	if (r.Result == nil) == (r.Error == nil) {
		t.Fatalf("response must have exactly one of result and error\n%s", body)
	}
	return r
}

// counter is a tool that counts its executions and accepts any object.
type counter struct {
	name string
	perm string
	n    atomic.Int64
}

func (c *counter) Info() *ToolInfo {
	return &ToolInfo{Name: c.name, Description: "counts calls", Permission: c.perm}
}
func (c *counter) Validate(context.Context, *Request) error { return nil }
func (c *counter) Execute(context.Context, *Request) (*Result, error) {
	c.n.Add(1)
	return TextResult("counted"), nil
}

// newCounterServer returns a Server with one counting tool named "count".
func newCounterServer(t *testing.T, opts *Options) (*Server, *counter) {
	t.Helper()
	c := &counter{name: "count"}
	ts := NewToolSet()
	if err := ts.Register(c); err != nil {
		t.Fatal(err)
	}
	return NewServer(ts, AllowAll(), opts), c
}

// versionCtx returns a context whose Exchange carries version.
func versionCtx(version string) context.Context {
	return ContextWithExchange(context.Background(), &Exchange{ProtocolVersion: version})
}

// rpcBody builds a request body with a numeric id.
func rpcBody(id int, method, params string) []byte {
	if params == "" {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

func TestHandleEnvelope(t *testing.T) {
	const (
		parseErr   = -32700
		invalidReq = -32600
	)
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantCode   int    // 0: success
		wantMsg    string // for errors
		wantID     string // raw id text
	}{
		// Parse errors: 400, -32700, id null.
		{"empty body", ``, 400, parseErr, "Parse error: unexpected end of input at offset 0", "null"},
		{"whitespace only", " \n\t", 400, parseErr, "Parse error: unexpected end of input at offset 3", "null"},
		{"not json", `hello`, 400, parseErr, "Parse error: invalid character 'h' looking for a value at offset 0", "null"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"ping"`, 400, parseErr, "Parse error: unexpected end of input in an object at offset 39", "null"},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, 400, parseErr, "Parse error:", "null"},
		{"two values", `{"jsonrpc":"2.0","id":1,"method":"ping"}{}`, 400, parseErr, "Parse error:", "null"},
		{"leading zero id", `{"jsonrpc":"2.0","id":01,"method":"ping"}`, 400, parseErr, "Parse error:", "null"},
		{"NaN id", `{"jsonrpc":"2.0","id":NaN,"method":"ping"}`, 400, parseErr, "Parse error: invalid character 'N' looking for a value at /id", "null"},
		{"out of range id", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, 400, parseErr, "Parse error: number out of range at /id", "null"},
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}", 400, parseErr, "Parse error: invalid UTF-8 in a string at /method", "null"},
		{"lone surrogate", `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`, 400, parseErr, "Parse error:", "null"},
		{"single quotes", `{'jsonrpc':'2.0'}`, 400, parseErr, "Parse error:", "null"},
		{"trailing comma", `{"jsonrpc":"2.0","id":1,"method":"ping",}`, 400, parseErr, "Parse error:", "null"},

		// Not a JSON-RPC 2.0 request object: 400, -32600, id null.
		{"number", `1`, 400, invalidReq, "Invalid request", "null"},
		{"string", `"ping"`, 400, invalidReq, "Invalid request", "null"},
		{"null", `null`, 400, invalidReq, "Invalid request", "null"},
		{"empty object", `{}`, 400, invalidReq, "Invalid request", "null"},
		{"no jsonrpc", `{"id":1,"method":"ping"}`, 400, invalidReq, "Invalid request", "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, 400, invalidReq, "Invalid request", "null"},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, 400, invalidReq, "Invalid request", "null"},
		{"no method", `{"jsonrpc":"2.0","id":1}`, 400, invalidReq, "Invalid request", "null"},
		{"method number", `{"jsonrpc":"2.0","id":1,"method":1}`, 400, invalidReq, "Invalid request", "null"},
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`, 400, invalidReq, "Invalid request", "null"},
		{"method object", `{"jsonrpc":"2.0","id":1,"method":{}}`, 400, invalidReq, "Invalid request", "null"},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400, invalidReq, "Invalid request", "null"},
		{"id true", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, 400, invalidReq, "Invalid request", "null"},
		{"id object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, 400, invalidReq, "Invalid request", "null"},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, 400, invalidReq, "Invalid request", "null"},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}`, 400, invalidReq, "Invalid request", "null"},
		{"params string", `{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, 400, invalidReq, "Invalid request", "null"},
		{"params null", `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, 400, invalidReq, "Invalid request", "null"},
		{"duplicate jsonrpc", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`, 400, invalidReq, `Invalid request: duplicate member "jsonrpc" at offset 17`, "null"},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, 400, invalidReq, `Invalid request: duplicate member "id" at offset 24`, "null"},
		{"duplicate in params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"a":1}}`, 400, invalidReq, `Invalid request: duplicate member "a" at /params`, "null"},
		{"duplicate deep", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"x":[{"y":{"z":1,"z":2}}]}}}`, 400, invalidReq, `Invalid request: duplicate member "z" at /params/arguments/x/0/y`, "null"},
		{"duplicate escaped", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"\u0061":1}}`, 400, invalidReq, `Invalid request: duplicate member "a" at /params`, "null"},

		// Method errors: 200 with the JSON-RPC error and the request's id.
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"nope"}`, 200, -32601, "Method not found", "3"},
		{"unknown method string id", `{"jsonrpc":"2.0","id":"x","method":"resources/list"}`, 200, -32601, "Method not found", `"x"`},

		// Success: 200, the id echoed with its type and exact text.
		{"string id", `{"jsonrpc":"2.0","id":"7","method":"ping"}`, 200, 0, "", `"7"`},
		{"number id", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, 200, 0, "", `7`},
		{"exponent id", `{"jsonrpc":"2.0","id":1.5e3,"method":"ping"}`, 200, 0, "", `1.5e3`},
		{"huge id", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, 200, 0, "", `12345678901234567890`},
		{"negative zero id", `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, 200, 0, "", `-0`},
		{"escaped id", `{"jsonrpc":"2.0","id":"\u00e9\"","method":"ping"}`, 200, 0, "", `"\u00e9\""`},
		{"empty string id", `{"jsonrpc":"2.0","id":"","method":"ping"}`, 200, 0, "", `""`},
		{"spaced id", `{ "jsonrpc" : "2.0" , "id" : 42 , "method" : "ping" }`, 200, 0, "", `42`},
		{"id last", `{"jsonrpc":"2.0","method":"ping","params":{},"id":"last"}`, 200, 0, "", `"last"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := newCounterServer(t, nil)
			status, body := s.Handle(context.Background(), Caller{}, []byte(tt.body))
			if status != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", status, tt.wantStatus, body)
			}
			r := decodeResponse(t, body)
			if string(r.ID) != tt.wantID {
				t.Errorf("id = %s, want %s", r.ID, tt.wantID)
			}
			if tt.wantCode == 0 {
				if r.Error != nil {
					t.Fatalf("unexpected error %+v", *r.Error)
				}
				return
			}
			if r.Error == nil {
				t.Fatalf("want error %d, got result %s", tt.wantCode, r.Result)
			}
			if r.Error.Code != tt.wantCode || !(r.Error.Message == tt.wantMsg || strings.HasSuffix(tt.wantMsg, ":") && strings.HasPrefix(r.Error.Message, tt.wantMsg)) {
				t.Errorf("error = %d %q, want %d %q", r.Error.Code, r.Error.Message, tt.wantCode, tt.wantMsg)
			}
			if n := c.n.Load(); n != 0 {
				t.Errorf("tool ran %d times", n)
			}
		})
	}
}

func TestHandleNotifications(t *testing.T) {
	bodies := []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`,
		`{"jsonrpc":"2.0","method":"notifications/whatever"}`,
		// A tools/call without an id must not run the tool.
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"count","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"count"}}`,
	}
	for _, version := range []string{"", Version20250618, Version20251125} {
		for _, b := range bodies {
			s, c := newCounterServer(t, nil)
			status, resp := s.Handle(versionCtx(version), Caller{}, []byte(b))
			if status != http.StatusAccepted || len(resp) != 0 {
				t.Errorf("version %q, %s: got %d %q, want 202 and no body", version, b, status, resp)
			}
			if n := c.n.Load(); n != 0 {
				t.Errorf("version %q, %s: the tool ran %d times", version, b, n)
			}
		}
	}
	// The same call with an id does run: the counter can count.
	s, c := newCounterServer(t, nil)
	status, resp := s.Handle(context.Background(), Caller{}, rpcBody(1, "tools/call", `{"name":"count"}`))
	if status != 200 || c.n.Load() != 1 {
		t.Fatalf("a request with an id: status %d, count %d; %s", status, c.n.Load(), resp)
	}
}

func TestInitialize(t *testing.T) {
	const client = `"clientInfo":{"name":"c","version":"1"}`
	bad := []struct{ name, params string }{
		{"no params", ``},
		{"empty params", `{}`},
		{"version number", `{"protocolVersion":1,"capabilities":{},` + client + `}`},
		{"no version", `{"capabilities":{},` + client + `}`},
		{"no capabilities", `{"protocolVersion":"2025-06-18",` + client + `}`},
		{"capabilities array", `{"protocolVersion":"2025-06-18","capabilities":[],` + client + `}`},
		{"no clientInfo", `{"protocolVersion":"2025-06-18","capabilities":{}}`},
		{"clientInfo string", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":"c"}`},
		{"clientInfo without name", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"version":"1"}}`},
		{"clientInfo name number", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":1,"version":"1"}}`},
		{"clientInfo without version", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c"}}`},
		{"clientInfo version number", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":1}}`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newCounterServer(t, nil)
			status, body := s.Handle(context.Background(), Caller{}, rpcBody(9, "initialize", tt.params))
			r := decodeResponse(t, body)
			if status != 200 || r.Error == nil || r.Error.Code != -32602 || string(r.ID) != "9" {
				t.Fatalf("got %d %s, want 200 and -32602", status, body)
			}
			if !strings.HasPrefix(r.Error.Message, "Invalid params") {
				t.Errorf("message %q does not say the params are invalid", r.Error.Message)
			}
		})
	}

	type initResult struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Title   string `json:"title"`
			Version string `json:"version"`
		} `json:"serverInfo"`
		Instructions *string `json:"instructions"`
	}
	initialize := func(t *testing.T, s *Server, requested string) initResult {
		t.Helper()
		params := fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"roots":{}},%s}`, requested, client)
		status, body := s.Handle(context.Background(), Caller{}, rpcBody(1, "initialize", params))
		r := decodeResponse(t, body)
		if status != 200 || r.Error != nil {
			t.Fatalf("initialize: %d %s", status, body)
		}
		var res initResult
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}

	versions := []struct {
		served    []string
		requested string
		want      string
	}{
		{nil, Version20250326, Version20250326},
		{nil, Version20250618, Version20250618},
		{nil, Version20251125, Version20251125},
		{nil, "2024-11-05", Version20251125},
		{nil, "not a version", Version20251125},
		{nil, "", Version20251125},
		{[]string{Version20250618, Version20250326}, Version20251125, Version20250618},
		{[]string{Version20250618, Version20250326}, Version20250326, Version20250326},
		{[]string{Version20250326}, Version20250618, Version20250326},
	}
	for _, tt := range versions {
		s, _ := newCounterServer(t, &Options{Versions: tt.served})
		if got := initialize(t, s, tt.requested).ProtocolVersion; got != tt.want {
			t.Errorf("served %v, requested %q: answered %q, want %q", tt.served, tt.requested, got, tt.want)
		}
	}

	t.Run("defaults", func(t *testing.T) {
		s, _ := newCounterServer(t, nil)
		res := initialize(t, s, Version20250618)
		if res.ServerInfo.Name == "" || res.ServerInfo.Version == "" {
			t.Errorf("serverInfo must have a name and a version: %+v", res.ServerInfo)
		}
		if _, ok := res.Capabilities["tools"]; !ok {
			t.Errorf("capabilities lack tools: %v", res.Capabilities)
		}
		if res.Instructions != nil {
			t.Errorf("instructions sent though none were configured: %q", *res.Instructions)
		}
	})
	t.Run("configured", func(t *testing.T) {
		s, _ := newCounterServer(t, &Options{Name: "acme", Title: "Acme \"Tools\"", Version: "1.2.3", Instructions: "Use count to count.\nNothing else."})
		res := initialize(t, s, Version20250618)
		if res.ServerInfo.Name != "acme" || res.ServerInfo.Title != `Acme "Tools"` || res.ServerInfo.Version != "1.2.3" {
			t.Errorf("serverInfo = %+v", res.ServerInfo)
		}
		if res.Instructions == nil || *res.Instructions != "Use count to count.\nNothing else." {
			t.Errorf("instructions = %v", res.Instructions)
		}
		var tools map[string]any
		if err := json.Unmarshal(res.Capabilities["tools"], &tools); err != nil {
			t.Fatalf("capabilities.tools is not an object: %s", res.Capabilities["tools"])
		}
	})
}

func TestPingAndUnknownMethod(t *testing.T) {
	s, _ := newCounterServer(t, nil)
	for _, version := range []string{"", Version20250326, Version20250618, Version20251125} {
		status, body := s.Handle(versionCtx(version), Caller{}, []byte(`{"jsonrpc":"2.0","id":"p","method":"ping"}`))
		if status != 200 || string(body) != `{"jsonrpc":"2.0","id":"p","result":{}}` {
			t.Errorf("version %q ping: %d %s", version, status, body)
		}
		status, body = s.Handle(versionCtx(version), Caller{}, []byte(`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{}}`))
		r := decodeResponse(t, body)
		if status != 200 || r.Error == nil || r.Error.Code != -32601 || r.Error.Message != "Method not found" {
			t.Errorf("version %q unknown method: %d %s", version, status, body)
		}
	}
}

func TestVersions(t *testing.T) {
	def := NewServer(nil, nil, nil)
	if got := def.Versions(); !slices.Equal(got, []string{Version20250326, Version20250618, Version20251125, Version20260728}) {
		t.Errorf("default server serves %v", got)
	}
	for _, v := range []string{"2024-11-05", "2025-03-27", "latest"} {
		status, body := def.Handle(versionCtx(v), Caller{}, rpcBody(1, "ping", ""))
		if r := decodeResponse(t, body); status != 400 || r.Error == nil || r.Error.Code != CodeUnsupportedProtocolVersion {
			t.Errorf("version %q: %d %s", v, status, body)
		}
	}
	only := NewServer(nil, nil, &Options{Versions: []string{Version20250618}})
	if got := only.Versions(); !slices.Equal(got, []string{Version20250618}) {
		t.Errorf("Options.Versions = [2025-06-18]: Versions() = %v", got)
	}
	for v, want := range map[string]int{Version20250618: 200, Version20250326: 400, Version20251125: 400} {
		if status, body := only.Handle(versionCtx(v), Caller{}, rpcBody(1, "ping", "")); status != want {
			t.Errorf("Options.Versions = [2025-06-18], header %s: %d %s", v, status, body)
		}
	}
}

func TestBatch(t *testing.T) {
	ping := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
	note := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"count"}}`
	call := `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"count"}}`

	for _, version := range []string{"", Version20250326} {
		ctx := versionCtx(version)
		t.Run("mixed/"+version, func(t *testing.T) {
			s, c := newCounterServer(t, nil)
			body := "[" + ping("1") + "," + note + "," + call + ",42," + `{"jsonrpc":"2.0","id":5,"method":"nope"}` + "]"
			status, resp := s.Handle(ctx, Caller{}, []byte(body))
			if status != 200 {
				t.Fatalf("status %d: %s", status, resp)
			}
			var elems []json.RawMessage
			if err := json.Unmarshal(resp, &elems); err != nil {
				t.Fatalf("batch response is not an array: %s", resp)
			}
			if len(elems) != 4 {
				t.Fatalf("got %d responses, want 4 (one per request, none for the notification): %s", len(elems), resp)
			}
			byID := map[string]response{}
			for _, e := range elems {
				r := decodeResponse(t, e)
				byID[string(r.ID)] = r
			}
			if r := byID["1"]; r.Error != nil || string(r.Result) != "{}" {
				t.Errorf("ping: %s", elems[0])
			}
			if r := byID[`"c"`]; r.Error != nil {
				t.Errorf("tools/call failed: %s", resp)
			}
			if r := byID["null"]; r.Error == nil || r.Error.Code != -32600 || r.Error.Message != "Invalid request" {
				t.Errorf("the element 42 should give -32600: %s", resp)
			}
			if r := byID["5"]; r.Error == nil || r.Error.Code != -32601 {
				t.Errorf("unknown method in a batch: %s", resp)
			}
			if n := c.n.Load(); n != 1 {
				t.Errorf("tool ran %d times, want 1 (the notification must not run it)", n)
			}
		})
		t.Run("notifications only/"+version, func(t *testing.T) {
			s, c := newCounterServer(t, nil)
			status, resp := s.Handle(ctx, Caller{}, []byte("["+note+","+note+"]"))
			if status != 202 || len(resp) != 0 || c.n.Load() != 0 {
				t.Errorf("got %d %q (tool ran %d times), want 202, no body, no run", status, resp, c.n.Load())
			}
		})
		t.Run("empty/"+version, func(t *testing.T) {
			s, _ := newCounterServer(t, nil)
			status, resp := s.Handle(ctx, Caller{}, []byte(" [ ] "))
			r := decodeResponse(t, resp)
			if status != 400 || r.Error == nil || r.Error.Code != -32600 || r.Error.Message != "Invalid request" || string(r.ID) != "null" {
				t.Errorf("got %d %s", status, resp)
			}
		})
		t.Run("broken json/"+version, func(t *testing.T) {
			s, c := newCounterServer(t, nil)
			status, resp := s.Handle(ctx, Caller{}, []byte("["+call+","))
			r := decodeResponse(t, resp)
			if status != 400 || r.Error == nil || r.Error.Code != -32700 || c.n.Load() != 0 {
				t.Errorf("got %d %s", status, resp)
			}
		})
		t.Run("invalid elements/"+version, func(t *testing.T) {
			s, _ := newCounterServer(t, nil)
			status, resp := s.Handle(ctx, Caller{}, []byte(`[1,"x",{"jsonrpc":"1.0","id":1,"method":"ping"},[]]`))
			var elems []response
			if err := json.Unmarshal(resp, &elems); err != nil || status != 200 {
				t.Fatalf("got %d %s", status, resp)
			}
			if len(elems) != 4 {
				t.Fatalf("want 4 error elements: %s", resp)
			}
			for _, e := range elems {
				if e.Error == nil || e.Error.Code != -32600 || string(e.ID) != "null" {
					t.Errorf("element %+v, want -32600 with id null", e)
				}
			}
		})
	}
	for _, version := range []string{Version20250618, Version20251125} {
		s, c := newCounterServer(t, nil)
		status, resp := s.Handle(versionCtx(version), Caller{}, []byte("["+call+"]"))
		r := decodeResponse(t, resp)
		if status != 400 || r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "null" || c.n.Load() != 0 {
			t.Errorf("version %s: a batch gave %d %s (tool ran %d times), want 400 -32600", version, status, resp, c.n.Load())
		}
	}
}

// logRecords decodes a JSON log.
func logRecords(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	for dec.More() {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("log is not JSON lines: %v\n%s", err, buf)
		}
		out = append(out, rec)
	}
	return out
}

func TestRequestLog(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts := NewToolSet()
	type in struct {
		Password string `json:"password"`
		Count    int    `json:"count,omitempty"`
	}
	if _, err := AddTool(ts, ToolInfo{Name: "login"}, func(_ context.Context, _ *Request, in in) (struct{}, error) {
		return struct{}{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), &Options{Logger: logger})
	const secret = "hunter2-s3cr3t-value"
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"` + secret + `"}}}`,
		// Invalid arguments: the message names the value to the client, never to the log.
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"login","arguments":{"password":"` + secret + `","count":"` + secret + `"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"login","arguments":{"password":1,"` + secret + `":1}}}`,
	}
	for _, b := range bodies {
		if status, resp := s.Handle(context.Background(), Caller{Principal: "alice"}, []byte(b)); status != 200 {
			t.Fatalf("%d %s", status, resp)
		}
	}
	if bytes.Contains(buf.Bytes(), []byte(secret)) {
		t.Errorf("an argument value reached the log:\n%s", buf.String())
	}
	var reqs []map[string]any
	for _, rec := range logRecords(t, &buf) {
		if rec["method"] != nil {
			reqs = append(reqs, rec)
		}
	}
	if len(reqs) != len(bodies) {
		t.Fatalf("got %d request records, want one per request (%d):\n%s", len(reqs), len(bodies), buf.String())
	}
	for i, rec := range reqs {
		if rec["method"] != "tools/call" || rec["tool"] != "login" || rec["principal"] != "alice" {
			t.Errorf("record %d lacks method, tool or principal: %v", i, rec)
		}
		if _, ok := rec["duration"]; !ok {
			t.Errorf("record %d has no duration: %v", i, rec)
		}
	}
	// Invalid arguments under 2025-03-26 rules are JSON-RPC errors.
	if reqs[0]["outcome"] != "ok" || reqs[1]["outcome"] != "error" || reqs[2]["outcome"] != "error" {
		t.Errorf("outcomes: %v, %v, %v", reqs[0]["outcome"], reqs[1]["outcome"], reqs[2]["outcome"])
	}
}

// TestBatchDuplicateMemberIsThatElementsError: a duplicate member name makes
// its batch element an invalid request; the other elements are answered.
func TestBatchDuplicateMemberIsThatElementsError(t *testing.T) {
	s := NewServer(NewToolSet(), AllowAll(), nil)
	status, body := s.Handle(context.Background(), Caller{}, []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"id":3,"method":"ping"}]`))
	want := `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: duplicate member \"id\" at offset 24"}}]`
	if status != 200 || string(body) != want {
		t.Fatalf("got %d %s\nwant 200 %s", status, body, want)
	}
}
