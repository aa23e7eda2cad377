package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// hooks let a test steer the blocking tool "slow" of testProtocol.
type hooks struct {
	started   chan struct{} // receives when slow has sent its first progress
	release   chan struct{} // slow waits for this (or its context)
	cancelled chan error    // slow reports its context's error when cancelled
	late      chan *mcp.Request
}

// testProtocol returns a Server with tools echo, slow (progress, log, waits
// for hooks.release), whoami (returns the caller's principal), pretty
// (raw JSON with line breaks) and keep (hands its Request to hooks.late).
func testProtocol(t testing.TB, opts *mcp.Options) (*mcp.Server, *hooks) {
	t.Helper()
	hk := &hooks{started: make(chan struct{}, 1), release: make(chan struct{}),
		cancelled: make(chan error, 1), late: make(chan *mcp.Request, 1)}
	ts := mcp.NewToolSet()
	type text struct {
		Text string `json:"text"`
	}
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo text."},
		func(_ context.Context, _ *mcp.Request, in text) (text, error) { return in, nil }))
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "whoami", Description: "Name the caller."},
		func(_ context.Context, req *mcp.Request, _ struct{}) (text, error) {
			return text{req.Caller.Principal}, nil
		}))
	must(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "slow", Description: "Report progress and wait."},
		func(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
			if err := req.Progress(1, 2, "started"); err != nil {
				return nil, err
			}
			if err := req.Log(mcp.LevelInfo, "slow", map[string]string{"note": "working"}); err != nil {
				return nil, err
			}
			hk.started <- struct{}{}
			select {
			case <-hk.release:
			case <-ctx.Done():
				hk.cancelled <- ctx.Err()
				return nil, ctx.Err()
			}
			if err := req.Progress(2, 2, "done"); err != nil {
				return nil, err
			}
			return mcp.TextResult("done"), nil
		})))
	must(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "pretty", Description: "Pretty JSON."},
		func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
			_ = req.Log(mcp.LevelWarning, "pretty", json.RawMessage("{\n  \"line\": \"two\"\r\n}"))
			return &mcp.Result{Content: []mcp.Content{mcp.TextContent("a\nb")},
				StructuredContent: json.RawMessage("{\n  \"a\": [1,\n 2]\n}")}, nil
		})))
	must(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "keep", Description: "Keep the request."},
		func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
			hk.late <- req
			return mcp.TextResult("kept"), nil
		})))
	return mcp.NewServer(ts, mcp.AllowAll(), opts), hk
}

// mustAdd fails t when AddTool fails: mustAdd(t)(mcp.AddTool(...)).
func mustAdd(t testing.TB) func(mcp.Tool, error) {
	return func(_ mcp.Tool, err error) { must(t, err) }
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// decodeRPC decodes a JSON-RPC response, failing t if b is none.
func decodeRPC(t *testing.T, b []byte) mcptest.Response {
	t.Helper()
	var r struct {
		JSONRPC string `json:"jsonrpc"`
		mcptest.Response
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if r.JSONRPC != "2.0" || (r.Result == nil) == (r.Error == nil) {
		t.Fatalf("not a JSON-RPC response: %s", b)
	}
	return r.Response
}

const (
	initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	echoBody = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"héllo \"x\"\n"}}}`
)

// newPost builds a well-formed MCP POST.
func newPost(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// wantRPCError checks a transport error answer: the status, a JSON-RPC
// error without id, and words of its message.
func wantRPCError(t *testing.T, w *httptest.ResponseRecorder, status, code int, words ...string) mcptest.Response {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, status, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	r := decodeRPC(t, w.Body.Bytes())
	if r.Error == nil || r.Error.Code != code {
		t.Fatalf("error = %+v, want code %d", r.Error, code)
	}
	for _, word := range words {
		if !strings.Contains(r.Error.Message, word) {
			t.Errorf("message %q does not mention %q", r.Error.Message, word)
		}
	}
	return r
}

func TestHandlerCallJSON(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, nil)

	r := newPost(initBody)
	r.Header.Set("Mcp-Session-Id", "client-made-up")
	w := serve(h, r)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("initialize: %d %q %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if got := w.Header().Get("Mcp-Session-Id"); got != "" {
		t.Errorf("Mcp-Session-Id issued or echoed: %q", got)
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	must(t, json.Unmarshal(decodeRPC(t, w.Body.Bytes()).Result, &init))
	if init.ProtocolVersion != "2025-06-18" {
		t.Errorf("negotiated %q, want 2025-06-18", init.ProtocolVersion)
	}

	r = newPost(echoBody)
	r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	w = serve(h, r)
	if w.Code != http.StatusOK {
		t.Fatalf("tools/call: %d %s", w.Code, w.Body)
	}
	if cl := w.Header().Get("Content-Length"); cl != "" && cl != itoa(w.Body.Len()) {
		t.Errorf("Content-Length %s for a body of %d bytes", cl, w.Body.Len())
	}
	resp := decodeRPC(t, w.Body.Bytes())
	if string(resp.ID) != "7" {
		t.Errorf("id = %s, want 7", resp.ID)
	}
	var res struct {
		StructuredContent struct{ Text string } `json:"structuredContent"`
	}
	must(t, json.Unmarshal(resp.Result, &res))
	if want := "héllo \"x\"\n"; res.StructuredContent.Text != want {
		t.Errorf("echo returned %q, want %q", res.StructuredContent.Text, want)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestHandlerStatuses(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, &mcp.HandlerOptions{MaxBodyBytes: 256})
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 300) + `"}}`
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
		words  []string
	}{
		{"GET", func() *http.Request { return httptest.NewRequest(http.MethodGet, "/mcp", nil) }, 405, []string{"POST"}},
		{"DELETE", func() *http.Request {
			r := httptest.NewRequest(http.MethodDelete, "/mcp", nil)
			r.Header.Set("Mcp-Session-Id", "abc")
			return r
		}, 405, []string{"POST"}},
		{"PUT", func() *http.Request { return httptest.NewRequest(http.MethodPut, "/mcp", strings.NewReader(echoBody)) }, 405, nil},
		{"text/plain", func() *http.Request {
			r := newPost(echoBody)
			r.Header.Set("Content-Type", "text/plain")
			return r
		}, 415, []string{"text/plain", "application/json"}},
		{"no Content-Type", func() *http.Request {
			r := newPost(echoBody)
			r.Header.Del("Content-Type")
			return r
		}, 415, nil},
		{"UTF-16", func() *http.Request {
			r := newPost(echoBody)
			r.Header.Set("Content-Type", "application/json; charset=utf-16")
			return r
		}, 415, nil},
		{"Accept text/html", func() *http.Request {
			r := newPost(echoBody)
			r.Header.Set("Accept", "text/html")
			return r
		}, 406, []string{"Accept"}},
		{"Accept q=0", func() *http.Request {
			r := newPost(echoBody)
			r.Header.Set("Accept", "*/*, application/json;q=0, text/event-stream; q=0.0")
			return r
		}, 406, nil},
		{"body over the limit, length known", func() *http.Request { return newPost(big) }, 413, []string{"256"}},
		{"body over the limit, chunked", func() *http.Request {
			r := newPost("")
			r.Body = io.NopCloser(strings.NewReader(big))
			r.ContentLength = -1
			return r
		}, 413, []string{"256"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(h, tc.req())
			r := wantRPCError(t, w, tc.status, mcp.CodeInvalidRequest, tc.words...)
			if string(r.ID) != "null" {
				t.Errorf("id = %s, want null", r.ID)
			}
			if tc.status == 405 && w.Header().Get("Allow") != "POST" {
				t.Errorf("Allow = %q, want POST", w.Header().Get("Allow"))
			}
		})
	}
}

func TestHandlerAcceptsVariants(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, nil)
	for _, tc := range []struct{ ct, accept string }{
		{"application/json", ""},
		{"application/json; charset=utf-8", "application/json"},
		{"Application/JSON;charset=\"UTF-8\"", "*/*"},
		{"application/json", "application/*;q=0.5"},
		{"application/json", "text/event-stream"},
		{"application/json", "text/*, application/json;q=0"},
	} {
		r := newPost(echoBody)
		r.Header.Set("Content-Type", tc.ct)
		if tc.accept == "" {
			r.Header.Del("Accept")
		} else {
			r.Header.Set("Accept", tc.accept)
		}
		w := serve(h, r)
		if w.Code != http.StatusOK {
			t.Errorf("Content-Type %q, Accept %q: status %d %s", tc.ct, tc.accept, w.Code, w.Body)
		}
	}
}

func TestHandlerNotification(t *testing.T) {
	p, _ := testProtocol(t, nil)
	w := serve(mcp.NewHandler(p, nil), newPost(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if w.Code != http.StatusAccepted || w.Body.Len() != 0 {
		t.Fatalf("notification: %d %q, want 202 and no body", w.Code, w.Body)
	}
}

func TestHandlerProtocolVersionHeader(t *testing.T) {
	p, _ := testProtocol(t, &mcp.Options{Versions: []string{mcp.Version20250326, mcp.Version20250618}})
	h := mcp.NewHandler(p, nil)

	r := newPost(echoBody)
	r.Header.Set("MCP-Protocol-Version", "2099-01-01")
	w := serve(h, r)
	resp := wantRPCError(t, w, http.StatusBadRequest, mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version")
	if string(resp.ID) != "7" {
		t.Errorf("id = %s, want the request's id 7", resp.ID)
	}
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	raw, _ := json.Marshal(resp.Error.Data)
	must(t, json.Unmarshal(raw, &data))
	if strings.Join(data.Supported, ",") != "2025-06-18,2025-03-26" || data.Requested != "2099-01-01" {
		t.Errorf("data = %+v", data)
	}

	// A served version that this server was configured without.
	r = newPost(echoBody)
	r.Header.Set("MCP-Protocol-Version", mcp.Version20251125)
	wantRPCError(t, serve(h, r), http.StatusBadRequest, mcp.CodeUnsupportedProtocolVersion)

	// On initialize the body wins: the header is not held against it.
	r = newPost(initBody)
	r.Header.Set("MCP-Protocol-Version", "2099-01-01")
	w = serve(h, r)
	if w.Code != http.StatusOK {
		t.Fatalf("initialize with an unknown header: %d %s", w.Code, w.Body)
	}
	if !strings.Contains(w.Body.String(), `"protocolVersion":"2025-06-18"`) {
		t.Errorf("initialize did not negotiate from the body: %s", w.Body)
	}

	// Without the header, 2025-03-26 rules apply: batches are accepted.
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`
	w = serve(h, newPost(batch))
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), "[") {
		t.Fatalf("batch without header: %d %s", w.Code, w.Body)
	}
	// With a later version's header, they are not.
	r = newPost(batch)
	r.Header.Set("MCP-Protocol-Version", mcp.Version20250618)
	if w = serve(h, r); w.Code != http.StatusBadRequest {
		t.Fatalf("batch under 2025-06-18: %d %s", w.Code, w.Body)
	}
}

func TestHandlerSetLevel(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, nil)
	w := serve(h, newPost(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`))
	if w.Code != http.StatusOK || decodeRPC(t, w.Body.Bytes()).Error != nil {
		t.Fatalf("logging/setLevel: %d %s", w.Code, w.Body)
	}
}

// TestHandlerProtocolStatus checks that the handler answers with the
// Protocol's own status and body, whatever they are.
func TestHandlerProtocolStatus(t *testing.T) {
	fake := fakeProtocol{status: http.StatusNotFound, body: []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)}
	w := serve(mcp.NewHandler(fake, nil), newPost(`{"jsonrpc":"2.0","id":1,"method":"nope"}`))
	if w.Code != http.StatusNotFound || w.Body.String() != string(fake.body) {
		t.Fatalf("got %d %s", w.Code, w.Body)
	}
}

type fakeProtocol struct {
	status int
	body   []byte
	seen   *mcp.Exchange // the Exchange of the last request, when set
}

func (f fakeProtocol) Handle(ctx context.Context, _ mcp.Caller, _ []byte) (int, []byte) {
	if f.seen != nil {
		*f.seen = *mcp.ExchangeFromContext(ctx)
	}
	return f.status, f.body
}

func (f fakeProtocol) Versions() []string { return []string{mcp.Version20250618} }

// TestHandlerPassesTheExchange checks that the Handler leaves the revision
// rules to the Protocol: whatever MCP-Protocol-Version says, the request
// reaches Handle with the header and its value in the Exchange.
func TestHandlerPassesTheExchange(t *testing.T) {
	var seen mcp.Exchange
	fake := fakeProtocol{status: http.StatusTeapot, body: []byte(`{}`), seen: &seen}
	r := newPost(echoBody)
	r.Header.Set("MCP-Protocol-Version", "1.0")
	r.Header.Set("Mcp-Method", "tools/call")
	if w := serve(mcp.NewHandler(fake, nil), r); w.Code != http.StatusTeapot {
		t.Fatalf("the Handler answered by itself: %d %s", w.Code, w.Body)
	}
	if seen.ProtocolVersion != "1.0" || seen.Header.Get("Mcp-Method") != "tools/call" || seen.Notify == nil {
		t.Errorf("Exchange = %+v", seen)
	}
}

// TestHandlerDeadline checks Options.CallTimeout through the handler: the
// tool's context ends and the call fails instead of hanging.
func TestHandlerDeadline(t *testing.T) {
	p, hk := testProtocol(t, &mcp.Options{CallTimeout: time.Millisecond})
	r := newPost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	r.Header.Set("Accept", "application/json")
	w := serve(mcp.NewHandler(p, nil), r)
	if err := <-hk.cancelled; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("tool context ended with %v, want DeadlineExceeded", err)
	}
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"isError":true`) {
		t.Fatalf("answer: %d %s", w.Code, w.Body)
	}
}

// The handler's own cost: compare with BenchmarkHandlerDirect, which calls
// the Protocol without HTTP.
func BenchmarkHandlerEcho(b *testing.B) {
	p, _ := testProtocol(b, nil)
	h := mcp.NewHandler(p, nil)
	body := []byte(echoBody)
	r := newPost(echoBody)
	r.Header.Set("MCP-Protocol-Version", mcp.Version20250618)
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		r.Body = io.NopCloser(bytes.NewReader(body))
		w.Body.Reset()
		clear(w.Header())
		h.ServeHTTP(w, r)
	}
}

func BenchmarkHandlerDirect(b *testing.B) {
	p, _ := testProtocol(b, nil)
	body := []byte(echoBody)
	ctx := mcp.ContextWithExchange(context.Background(), &mcp.Exchange{ProtocolVersion: mcp.Version20250618})
	b.ReportAllocs()
	for b.Loop() {
		b := append([]byte(nil), body...)
		p.Handle(ctx, mcp.Caller{}, b)
	}
}
