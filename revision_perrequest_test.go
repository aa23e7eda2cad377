package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

type modernEchoIn struct {
	Text string `json:"text"`
}

func modernServer(t *testing.T, opts *Options) (*Server, *ToolSet) {
	t.Helper()
	ts := NewToolSet()
	_, err := AddTool(ts, ToolInfo{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *Request, in modernEchoIn) (modernEchoIn, error) { return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	return NewServer(ts, AllowAll(), opts), ts
}

// rpc decodes a JSON-RPC response body.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Result map[string]any  `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func decodeRPC(t *testing.T, body []byte) rpc {
	t.Helper()
	var r rpc
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, body)
	}
	return r
}

func TestModernDiscover(t *testing.T) {
	s, _ := modernServer(t, &Options{Name: "svc", Version: "1.2.3", Instructions: "be nice", ListTTL: 5 * time.Second, CacheScope: "public"})
	status, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{`+modernMeta+`}}`))
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	r := decodeRPC(t, body)
	if strings.Count(string(body), `"resultType"`) != 1 {
		t.Errorf("resultType must appear once: %s", body)
	}
	res := r.Result
	if res["resultType"] != "complete" || res["ttlMs"] != 5000.0 || res["cacheScope"] != "public" || res["instructions"] != "be nice" {
		t.Errorf("discover result fields wrong: %s", body)
	}
	vs, _ := res["supportedVersions"].([]any)
	want := []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}
	if len(vs) != len(want) {
		t.Fatalf("supportedVersions = %v, want %v", vs, want)
	}
	for i := range want {
		if vs[i] != want[i] {
			t.Errorf("supportedVersions[%d] = %v, want %s", i, vs[i], want[i])
		}
	}
	caps, _ := res["capabilities"].(map[string]any)
	tools, _ := caps["tools"].(map[string]any)
	if tools["listChanged"] != true {
		t.Errorf("a ToolSet can notify changes, so tools.listChanged must be true: %s", body)
	}
	info := res["_meta"].(map[string]any)[metaServerInfo].(map[string]any)
	if info["name"] != "svc" || info["version"] != "1.2.3" {
		t.Errorf("serverInfo = %v", info)
	}
}

func TestModernListAndCall(t *testing.T) {
	s, ts := modernServer(t, nil)
	_, _ = AddTool(ts, ToolInfo{Name: "alpha", Description: "a"},
		func(_ context.Context, _ *Request, in modernEchoIn) (modernEchoIn, error) { return in, nil })
	_, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`))
	r := decodeRPC(t, body)
	if r.Result["ttlMs"] != 0.0 || r.Result["cacheScope"] != "private" || r.Result["resultType"] != "complete" {
		t.Errorf("list lacks cacheable fields with defaults: %s", body)
	}
	tools := r.Result["tools"].([]any)
	if len(tools) != 2 || tools[0].(map[string]any)["name"] != "alpha" || tools[1].(map[string]any)["name"] != "echo" {
		t.Errorf("tools not in name order: %s", body)
	}
	_, body = s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hé"},`+modernMeta+`}}`))
	r = decodeRPC(t, body)
	if r.Result["resultType"] != "complete" || r.Result["structuredContent"].(map[string]any)["text"] != "hé" {
		t.Errorf("call result: %s", body)
	}
	if _, ok := r.Result["_meta"].(map[string]any)[metaServerInfo]; !ok {
		t.Errorf("call result lacks serverInfo: %s", body)
	}
}

func TestModernResultMetaMerged(t *testing.T) {
	ts := NewToolSet()
	_ = ts.Register(NewRawTool(ToolInfo{Name: "m"}, func(context.Context, *Request) (*Result, error) {
		return &Result{Content: []Content{TextContent("x")}, Meta: map[string]any{"k": "v"}}, nil
	}))
	s := NewServer(ts, AllowAll(), nil)
	_, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"m",`+modernMeta+`}}`))
	if strings.Count(string(body), `"_meta"`) != 1 {
		t.Fatalf("_meta must be one object: %s", body)
	}
	meta := decodeRPC(t, body).Result["_meta"].(map[string]any)
	if meta["k"] != "v" || meta[metaServerInfo] == nil {
		t.Errorf("_meta = %v, want the tool's key and serverInfo", meta)
	}
}

func TestModernErrors(t *testing.T) {
	s, _ := modernServer(t, nil)
	cases := []struct {
		name, body string
		status     int
		code       int
	}{
		{"ping removed", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + modernMeta + `}}`, 404, CodeMethodNotFound},
		{"setLevel removed", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info",` + modernMeta + `}}`, 404, CodeMethodNotFound},
		{"initialize removed", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + modernMeta + `}}`, 404, CodeMethodNotFound},
		{"unknown version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`, 400, CodeUnsupportedProtocolVersion},
		{"version not a string", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}}`, 400, CodeInvalidParams},
		{"capabilities not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}`, 400, CodeInvalidParams},
		{"capabilities missing", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, 400, CodeInvalidParams},
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope",` + modernMeta + `}}`, 200, CodeInvalidParams},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := s.Handle(context.Background(), Caller{}, []byte(c.body))
			r := decodeRPC(t, body)
			if status != c.status || r.Error == nil || r.Error.Code != c.code {
				t.Fatalf("got %d %s, want status %d code %d", status, body, c.status, c.code)
			}
			if string(r.ID) != "1" {
				t.Errorf("id = %s, want 1", r.ID)
			}
		})
	}
	_, body := s.Handle(context.Background(), Caller{}, []byte(cases[3].body))
	d := decodeRPC(t, body).Error.Data
	if d["requested"] != "2099-01-01" || len(d["supported"].([]any)) != 4 {
		t.Errorf("UnsupportedProtocolVersionError data = %v", d)
	}
}

func TestModernLegacyVersionHeaderUnsupported(t *testing.T) {
	s, _ := modernServer(t, &Options{Versions: []string{Version20251125, Version20260728}})
	ctx := ContextWithExchange(context.Background(), &Exchange{ProtocolVersion: "2025-06-18"})
	status, body := s.Handle(ctx, Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	r := decodeRPC(t, body)
	if status != 400 || r.Error == nil || r.Error.Code != CodeUnsupportedProtocolVersion {
		t.Fatalf("got %d %s", status, body)
	}
	if got := r.Error.Data["supported"].([]any); len(got) != 2 || got[0] != "2026-07-28" {
		t.Errorf("supported = %v", got)
	}
}

func TestModernLogLevelPerRequest(t *testing.T) {
	ts := NewToolSet()
	_ = ts.Register(NewRawTool(ToolInfo{Name: "chatty"}, func(_ context.Context, r *Request) (*Result, error) {
		for _, l := range []LogLevel{LevelDebug, LevelInfo, LevelWarning, LevelError} {
			if err := r.Log(l, "t", string(l)); err != nil {
				return nil, err
			}
		}
		return TextResult("done"), nil
	}))
	s := NewServer(ts, AllowAll(), nil)
	run := func(meta string) []string {
		var mu sync.Mutex
		var got []string
		ex := &Exchange{Notify: func(method string, params json.RawMessage) error {
			var p struct {
				Level string `json:"level"`
			}
			_ = json.Unmarshal(params, &p)
			mu.Lock()
			got = append(got, method+":"+p.Level)
			mu.Unlock()
			return nil
		}}
		ctx := ContextWithExchange(context.Background(), ex)
		_, body := s.Handle(ctx, Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chatty",`+meta+`}}`))
		if decodeRPC(t, body).Error != nil {
			t.Fatalf("call failed: %s", body)
		}
		return got
	}
	if got := run(modernMeta); len(got) != 0 {
		t.Errorf("modern request without logLevel got log messages %v", got)
	}
	withLevel := strings.Replace(modernMeta, `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"warning",`, 1)
	if got := run(withLevel); strings.Join(got, ",") != "notifications/message:warning,notifications/message:error" {
		t.Errorf("logLevel warning: got %v", got)
	}
	// Legacy requests use the server's default level, info.
	if got := run(`"_meta":{}`); len(got) != 3 {
		t.Errorf("legacy default level info: got %v", got)
	}
}

func TestModernSubscriptionsListen(t *testing.T) {
	s, ts := modernServer(t, nil)
	notes := make(chan string, 16)
	ex := &Exchange{Notify: func(method string, params json.RawMessage) error {
		notes <- method + " " + string(params)
		return nil
	}}
	ctx, cancel := context.WithCancel(ContextWithExchange(context.Background(), ex))
	done := make(chan []byte)
	go func() {
		_, body := s.Handle(ctx, Caller{}, []byte(`{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true},`+modernMeta+`}}`))
		done <- body
	}()
	ack := <-notes
	if !strings.HasPrefix(ack, "notifications/subscriptions/acknowledged ") ||
		!strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":"sub-1"`) ||
		!strings.Contains(ack, `"notifications":{"toolsListChanged":true}`) {
		t.Fatalf("first message must be the acknowledgement of the supported subset, got %s", ack)
	}
	if err := ts.Register(NewRawTool(ToolInfo{Name: "late"}, func(context.Context, *Request) (*Result, error) { return nil, nil })); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-notes:
		if !strings.HasPrefix(n, "notifications/tools/list_changed ") || !strings.Contains(n, `"sub-1"`) {
			t.Errorf("change notification = %s", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed after Register")
	}
	cancel()
	select {
	case body := <-done:
		r := decodeRPC(t, body)
		if r.Result["resultType"] != "complete" || r.Result["_meta"].(map[string]any)[metaSubscriptionID] != "sub-1" {
			t.Errorf("closing result = %s", body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("listen did not end when its context was cancelled")
	}
}

func TestModernSubscriptionsListenNeedsStream(t *testing.T) {
	s, _ := modernServer(t, nil)
	_, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{},`+modernMeta+`}}`))
	if r := decodeRPC(t, body); r.Error == nil || r.Error.Code != CodeInvalidRequest {
		t.Fatalf("listen without a stream: %s", body)
	}
	_, body = s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{`+modernMeta+`}}`))
	if r := decodeRPC(t, body); r.Error == nil || r.Error.Code != CodeInvalidParams {
		t.Fatalf("listen without a filter: %s", body)
	}
}

func TestModernStdioProbe(t *testing.T) {
	// A dual-era client probes with server/discover; a legacy one then
	// initializes. Both work on the same server.
	s, _ := modernServer(t, nil)
	_, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	if v := decodeRPC(t, body).Result["protocolVersion"]; v != "2025-11-25" {
		t.Errorf("legacy initialize on a dual-era server: %s", body)
	}
	_, body = s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	if v := decodeRPC(t, body).Result["protocolVersion"]; v != "2025-11-25" {
		t.Errorf("initialize asking for the modern revision must get the newest legacy one: %s", body)
	}
}

func TestModernHTTPHeaders(t *testing.T) {
	s, _ := modernServer(t, nil)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},` + modernMeta + `}}`
	cases := []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		code    int // 0: success
		msg     string
	}{
		{"all agree", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "echo"}, call, 200, 0, ""},
		{"name base64", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "=?base64?ZWNobw==?="}, call, 200, 0, ""},
		{"method missing", map[string]string{"Mcp-Name": "echo"}, call, 400, CodeHeaderMismatch, "Mcp-Method is missing"},
		{"method differs", map[string]string{"Mcp-Method": "tools/list", "Mcp-Name": "echo"}, call, 400, CodeHeaderMismatch, `Mcp-Method header value "tools/list"`},
		{"name missing", map[string]string{"Mcp-Method": "tools/call"}, call, 400, CodeHeaderMismatch, "Mcp-Name is missing"},
		{"name differs", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "other"}, call, 400, CodeHeaderMismatch, `does not match body value "echo"`},
		{"bad base64", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "=?base64?***?="}, call, 400, CodeHeaderMismatch, "not valid base64"},
		{"control char", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "ec\x01ho"}, call, 400, CodeHeaderMismatch, "invalid characters"},
		{"list needs no name", map[string]string{"Mcp-Method": "tools/list"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`, 200, 0, ""},
		{"body lacks _meta version", map[string]string{"Mcp-Method": "tools/list"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 400, CodeInvalidParams, "is required"},
		{"body names another, unserved version", map[string]string{"Mcp-Method": "tools/list"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`, 400, CodeHeaderMismatch, "MCP-Protocol-Version"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.headers {
				h.Set(k, v)
			}
			ctx := ContextWithExchange(context.Background(), &Exchange{ProtocolVersion: Version20260728, Header: h})
			status, body := s.Handle(ctx, Caller{}, []byte(c.body))
			r := decodeRPC(t, body)
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, body)
			}
			if c.code == 0 {
				if r.Error != nil {
					t.Fatalf("unexpected error %s", body)
				}
				return
			}
			if r.Error == nil || r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.msg) {
				t.Fatalf("got %s, want code %d with %q", body, c.code, c.msg)
			}
		})
	}
	// The header names a legacy version while the body is modern.
	h := http.Header{"Mcp-Method": {"tools/list"}}
	ctx := ContextWithExchange(context.Background(), &Exchange{ProtocolVersion: Version20251125, Header: h})
	status, body := s.Handle(ctx, Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`))
	if r := decodeRPC(t, body); status != 400 || r.Error == nil || r.Error.Code != CodeHeaderMismatch {
		t.Fatalf("version header disagreeing with _meta: %d %s", status, body)
	}
}

func TestMetaNamingAnUnservedOlderVersion(t *testing.T) {
	s, _ := modernServer(t, &Options{Versions: []string{Version20251125, Version20260728}})
	status, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26"}}}`))
	if r := decodeRPC(t, body); status != 400 || r.Error == nil || r.Error.Code != CodeUnsupportedProtocolVersion {
		t.Fatalf("_meta naming an unserved version: %d %s", status, body)
	}
	// A served legacy version in _meta is served under its own rules.
	status, body = s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`))
	if r := decodeRPC(t, body); status != 200 || r.Error != nil {
		t.Fatalf("_meta naming a served legacy version: %d %s", status, body)
	}
}

// TestOptionsVersionsTypoRefusedLoudly: a revision this package does not
// implement in Options.Versions is a configuration error, logged when the
// Server is made and answered with 500 on every request, never silently
// replaced by the four revisions.
func TestOptionsVersionsTypoRefusedLoudly(t *testing.T) {
	for _, versions := range [][]string{{"2027-01-01"}, {Version20250618, "2025-6-18"}} {
		var buf bytes.Buffer
		s := NewServer(nil, AllowAll(), &Options{Versions: versions, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
		if !strings.Contains(buf.String(), "level=ERROR") || !strings.Contains(buf.String(), "Options.Versions") {
			t.Errorf("%v: no error logged: %s", versions, buf.String())
		}
		if got := s.Versions(); len(got) == 4 {
			t.Errorf("%v: Versions() = %v, the four defaults", versions, got)
		}
		for _, v := range []string{"", Version20250618} {
			status, body := s.Handle(versionCtx(v), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			if status != 500 || !strings.Contains(string(body), "-32603") {
				t.Errorf("%v, header %q: %d %s, want 500", versions, v, status, body)
			}
		}
	}
	for _, o := range []Options{{LogLevel: "loud"}, {CacheScope: "everyone"}} {
		if status, _ := NewServer(nil, nil, &o).Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); status != 500 {
			t.Errorf("%+v: status %d, want 500", o, status)
		}
	}
}
