package otelmcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/otelmcp"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestParentFromMeta: the trace context in params._meta (traceparent,
// tracestate, baggage) is the span's remote parent, whatever the HTTP
// header says; the header's context is linked; the tool runs inside the
// span and sees the baggage.
func TestParentFromMeta(t *testing.T) {
	r := newRig(t)
	meta := `{"traceparent":"` + clientParent + `","tracestate":"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE","baggage":"user=alice,isProduction=false"}`
	status, body := r.post(t, call("7", "spy", meta), map[string]string{"Traceparent": headerParent})
	if status != 200 || !strings.Contains(body, "seen") {
		t.Fatalf("answer %d %s", status, body)
	}
	span := r.only(t)
	if span.Name != "tools/call spy" || span.SpanKind != trace.SpanKindServer {
		t.Errorf("span %q of kind %v, want \"tools/call spy\" SERVER", span.Name, span.SpanKind)
	}
	if got := span.Parent; got.TraceID().String() != clientTraceID || got.SpanID().String() != clientSpanID || !got.IsRemote() {
		t.Errorf("parent %s/%s remote %v, want the _meta's %s/%s", got.TraceID(), got.SpanID(), got.IsRemote(), clientTraceID, clientSpanID)
	}
	if span.SpanContext.TraceID().String() != clientTraceID {
		t.Errorf("the span is in trace %s, want %s", span.SpanContext.TraceID(), clientTraceID)
	}
	if ts := span.SpanContext.TraceState().String(); ts != "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE" {
		t.Errorf("tracestate %q not carried", ts)
	}
	if len(span.Links) != 1 || span.Links[0].SpanContext.TraceID().String() != headerTraceID || span.Links[0].SpanContext.SpanID().String() != headerSpanID {
		t.Errorf("links %+v, want one to the header's %s/%s", span.Links, headerTraceID, headerSpanID)
	}
	s := <-r.spy
	if s.span.SpanID() != span.SpanContext.SpanID() || s.span.TraceID() != span.SpanContext.TraceID() {
		t.Errorf("the tool ran in span %s, want the server span %s", s.span.SpanID(), span.SpanContext.SpanID())
	}
	if s.baggage != "alice" {
		t.Errorf("the tool saw baggage user=%q, want alice", s.baggage)
	}
	wantAttrs(t, "span", attrs(span.Attributes), map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "spy", "gen_ai.operation.name": "execute_tool",
		"jsonrpc.request.id": "7", "mcp.protocol.version": "2025-06-18", "error.type": "", "rpc.response.status_code": "",
		"network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "1.1",
		"client.address": "192.0.2.7", "client.port": "51234",
	})
	if span.Status.Code != codes.Unset {
		t.Errorf("status %v, want unset", span.Status)
	}
}

// TestParentFromMeta20260728: the same under the sessionless revision that
// documents the keys (SEP-414), next to its own _meta fields.
func TestParentFromMeta20260728(t *testing.T) {
	r := newRig(t)
	body := `{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":{"name":"spy","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"traceparent":"` + clientParent + `","baggage":"user=bob"}}}`
	status, resp := r.post(t, body, map[string]string{"MCP-Protocol-Version": mcp.Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": "spy"})
	if status != 200 || !strings.Contains(resp, "seen") {
		t.Fatalf("answer %d %s", status, resp)
	}
	span := r.only(t)
	if span.Parent.TraceID().String() != clientTraceID || span.Parent.SpanID().String() != clientSpanID {
		t.Errorf("parent %s/%s, want the _meta's", span.Parent.TraceID(), span.Parent.SpanID())
	}
	if len(span.Links) != 0 {
		t.Errorf("links %+v, want none (no transport context)", span.Links)
	}
	if s := <-r.spy; s.baggage != "bob" {
		t.Errorf("baggage %q", s.baggage)
	}
	wantAttrs(t, "span", attrs(span.Attributes), map[string]string{"mcp.protocol.version": "2026-07-28", "jsonrpc.request.id": "req-7"})
}

// TestParentFromHeader: without trace context in _meta, the HTTP
// request's traceparent header is the parent, for every method.
func TestParentFromHeader(t *testing.T) {
	r := newRig(t)
	for _, body := range []string{
		call("1", "echo", `{"progressToken":"p"}`),
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		if status, resp := r.post(t, body, map[string]string{"Traceparent": headerParent}); status != 200 {
			t.Fatalf("answer %d %s", status, resp)
		}
		span := r.only(t)
		if span.Parent.TraceID().String() != headerTraceID || span.Parent.SpanID().String() != headerSpanID || !span.Parent.IsRemote() {
			t.Errorf("%s: parent %s/%s, want the header's", span.Name, span.Parent.TraceID(), span.Parent.SpanID())
		}
		if len(span.Links) != 0 {
			t.Errorf("%s: links %+v", span.Name, span.Links)
		}
	}
}

// TestParentFromContext: a span already in the request's context (an
// otelhttp handler around the mcp.Handler) is the parent; with trace
// context in _meta, that wins and the context's span is linked.
func TestParentFromContext(t *testing.T) {
	r := newRig(t)
	tp := sdktrace.NewTracerProvider()
	ctx, outer := tp.Tracer("http").Start(context.Background(), "POST /mcp", trace.WithSpanKind(trace.SpanKindServer))
	defer outer.End()
	// The header names another trace: the span in the context already
	// accounts for it.
	r.postCtx(t, ctx, call("1", "echo", ""), map[string]string{"Traceparent": headerParent})
	span := r.only(t)
	if span.Parent.SpanID() != outer.SpanContext().SpanID() || span.Parent.IsRemote() {
		t.Errorf("parent %s, want the context's span %s", span.Parent.SpanID(), outer.SpanContext().SpanID())
	}
	r.postCtx(t, ctx, call("2", "echo", `{"traceparent":"`+clientParent+`"}`), nil)
	span = r.only(t)
	if span.Parent.SpanID().String() != clientSpanID {
		t.Errorf("parent %s, want the _meta's %s", span.Parent.SpanID(), clientSpanID)
	}
	if len(span.Links) != 1 || span.Links[0].SpanContext.SpanID() != outer.SpanContext().SpanID() {
		t.Errorf("links %+v, want the context's span", span.Links)
	}
}

// TestMalformedTraceparent: trace context that is not valid, in _meta or
// in the header, is ignored: the request is answered as usual and its span
// is a new root (or, for a bad _meta, the header's child).
func TestMalformedTraceparent(t *testing.T) {
	r := newRig(t)
	long := strings.Repeat("a", 60000) // the parser's strings stop at 64 KiB
	for _, tc := range []struct {
		name, meta, header string
		parentTrace        string // "" for a new root
	}{
		{"garbage in _meta", `{"traceparent":"not a traceparent"}`, "", ""},
		{"zero trace id in _meta", `{"traceparent":"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}`, "", ""},
		{"zero span id in _meta", `{"traceparent":"00-` + clientTraceID + `-0000000000000000-01"}`, "", ""},
		{"version ff in _meta", `{"traceparent":"ff-` + clientTraceID + `-` + clientSpanID + `-01"}`, "", ""},
		{"upper case in _meta", `{"traceparent":"00-` + strings.ToUpper(clientTraceID) + `-` + clientSpanID + `-01"}`, "", ""},
		{"a number in _meta", `{"traceparent":42,"tracestate":{},"baggage":[1]}`, "", ""},
		{"huge values in _meta", `{"traceparent":"` + long + `","tracestate":"` + long + `","baggage":"` + long + `"}`, "", ""},
		{"bad baggage in _meta", `{"traceparent":"` + clientParent + `","baggage":"=;=,%%%"}`, "", clientTraceID},
		{"garbage header", "", "00-xyz", ""},
		{"short header", "", "00-" + headerTraceID + "-" + headerSpanID, ""},
		{"bad _meta, good header", `{"traceparent":"nope"}`, headerParent, headerTraceID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tc.header != "" {
				hdr["Traceparent"] = tc.header
			}
			status, body := r.post(t, call("1", "echo", tc.meta), hdr)
			if status != 200 || !strings.Contains(body, `"result"`) || strings.Contains(body, `"isError":true`) {
				t.Fatalf("answer %d %.300s", status, body)
			}
			span := r.only(t)
			switch {
			case tc.parentTrace == "" && span.Parent.IsValid():
				t.Errorf("parent %s/%s, want a new root", span.Parent.TraceID(), span.Parent.SpanID())
			case tc.parentTrace != "" && span.Parent.TraceID().String() != tc.parentTrace:
				t.Errorf("parent trace %s, want %s", span.Parent.TraceID(), tc.parentTrace)
			}
			if !span.SpanContext.IsValid() || span.Status.Code == codes.Error {
				t.Errorf("span %+v status %v", span.SpanContext, span.Status)
			}
		})
	}
}

// TestFailingTool: a tool's ordinary error is an isError result: the span
// and the metric say error.type "tool_error", the status is Error, and no
// JSON-RPC status code is recorded.
func TestFailingTool(t *testing.T) {
	r := newRig(t)
	status, body := r.post(t, call("1", "fail", ""), nil)
	if status != 200 || !strings.Contains(body, `"isError":true`) {
		t.Fatalf("answer %d %s", status, body)
	}
	span := r.only(t)
	if span.Name != "tools/call fail" || span.Status.Code != codes.Error {
		t.Errorf("span %q status %v", span.Name, span.Status)
	}
	wantAttrs(t, "span", attrs(span.Attributes), map[string]string{"error.type": "tool_error", "rpc.response.status_code": "", "gen_ai.tool.name": "fail"})
	h := r.durations(t)
	if len(h.DataPoints) != 1 {
		t.Fatalf("%d data points", len(h.DataPoints))
	}
	wantAttrs(t, "metric", attrs(h.DataPoints[0].Attributes.ToSlice()), map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "fail", "error.type": "tool_error", "rpc.response.status_code": ""})
}

// TestProtocolError: JSON-RPC errors are error.type and
// rpc.response.status_code (the code as a string), status Error with the
// error's message. Names clients make up stay out of span names and
// metrics: an unknown tool (or one the caller may not use) is "tools/call"
// alone, an unknown method "_OTHER".
func TestProtocolError(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct {
		name, body, span, code string
		spanAttrs, metricAttrs map[string]string
	}{
		{"unknown tool", call("1", "nope", ""), "tools/call", "-32602",
			map[string]string{"gen_ai.tool.name": "nope", "mcp.method.name": "tools/call"},
			map[string]string{"gen_ai.tool.name": "", "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool"}},
		{"forbidden tool", call("2", "admin", ""), "tools/call", "-32602",
			map[string]string{"gen_ai.tool.name": "admin"},
			map[string]string{"gen_ai.tool.name": ""}},
		{"invalid tool name", call("3", "no such/tool", ""), "tools/call", "-32602",
			map[string]string{"gen_ai.tool.name": ""},
			map[string]string{"gen_ai.tool.name": ""}},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"x/made-up-12345"}`, "_OTHER", "-32601",
			map[string]string{"mcp.method.name": "x/made-up-12345"},
			map[string]string{"mcp.method.name": "_OTHER"}},
		{"listed method not served", `{"jsonrpc":"2.0","id":5,"method":"resources/list"}`, "resources/list", "-32601",
			map[string]string{"mcp.method.name": "resources/list"},
			map[string]string{"mcp.method.name": "resources/list"}},
		{"bad params", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":7}}`, "tools/list", "-32602",
			nil, map[string]string{"mcp.method.name": "tools/list"}},
		{"panicking tool", call("7", "boom", ""), "tools/call boom", "-32603",
			map[string]string{"gen_ai.tool.name": "boom"},
			map[string]string{"gen_ai.tool.name": "boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := r.post(t, tc.body, nil)
			if status != 200 || !strings.Contains(body, `"code":`+tc.code) {
				t.Fatalf("answer %d %s", status, body)
			}
			span := r.only(t)
			if span.Name != tc.span {
				t.Errorf("span name %q, want %q", span.Name, tc.span)
			}
			var answer struct {
				Error struct{ Message string }
			}
			if err := json.Unmarshal([]byte(body), &answer); err != nil {
				t.Fatal(err)
			}
			if span.Status.Code != codes.Error || span.Status.Description != answer.Error.Message {
				t.Errorf("status %+v, want Error with the answer's message (%s)", span.Status, body)
			}
			want := map[string]string{"error.type": tc.code, "rpc.response.status_code": tc.code}
			for k, v := range tc.spanAttrs {
				want[k] = v
			}
			wantAttrs(t, "span", attrs(span.Attributes), want)
			h := r.durations(t)
			var found bool
			for _, dp := range h.DataPoints {
				a := attrs(dp.Attributes.ToSlice())
				if get(a, "error.type") != tc.code || dp.Count == 0 {
					continue
				}
				if m := tc.metricAttrs["mcp.method.name"]; m != "" && get(a, "mcp.method.name") != m {
					continue
				}
				found = true
				want := map[string]string{"rpc.response.status_code": tc.code}
				for k, v := range tc.metricAttrs {
					want[k] = v
				}
				wantAttrs(t, "metric", a, want)
			}
			if !found {
				t.Errorf("no data point with error.type %s", tc.code)
			}
		})
	}
}

// TestStdio: over stdio the transport is a pipe, with no HTTP attributes.
func TestStdio(t *testing.T) {
	r := newRig(t)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
		call("2", "echo", `{"traceparent":"`+clientParent+`"}`) + "\n")
	var out strings.Builder
	if err := mcp.ServeStdio(context.Background(), r.server, mcp.Caller{}, in, &out, nil); err != nil {
		t.Fatal(err)
	}
	spans := r.ended()
	if len(spans) != 2 {
		t.Fatalf("spans %v", names(spans))
	}
	for _, s := range spans {
		wantAttrs(t, s.Name, attrs(s.Attributes), map[string]string{"network.transport": "pipe",
			"network.protocol.name": "", "network.protocol.version": "", "client.address": ""})
	}
	if spans[1].Name != "tools/call echo" || spans[1].Parent.SpanID().String() != clientSpanID {
		t.Errorf("%s: parent %s", spans[1].Name, spans[1].Parent.SpanID())
	}
}

// TestBatch: each request of a 2025-03-26 batch is its own span, all
// children of the HTTP request's trace context.
func TestBatch(t *testing.T) {
	r := newRig(t)
	body := `[` + call("1", "echo", "") + `,` + call("2", "fail", "") + `]`
	status, resp := r.post(t, body, map[string]string{"MCP-Protocol-Version": mcp.Version20250326, "Traceparent": headerParent})
	if status != 200 {
		t.Fatalf("answer %d %s", status, resp)
	}
	spans := r.ended()
	if len(spans) != 2 {
		t.Fatalf("spans %v", names(spans))
	}
	for _, s := range spans {
		if s.Parent.SpanID().String() != headerSpanID {
			t.Errorf("%s: parent %s", s.Name, s.Parent.SpanID())
		}
	}
}

// TestClientBehindProxy: without trusted proxies, X-Forwarded-For, which
// any client can write, is ignored: client.address is the connection's
// peer.
func TestClientBehindProxy(t *testing.T) {
	r := newRig(t)
	r.post(t, call("1", "echo", ""), map[string]string{"X-Forwarded-For": " 203.0.113.9 , 10.0.0.1"})
	wantAttrs(t, "span", attrs(r.only(t).Attributes), map[string]string{"client.address": "192.0.2.7", "client.port": "51234"})
}

// TestPanicBelow: a Middleware below this one that panics fails the
// request with 500 (the Server recovers it); the span still ends, as an
// error of type _OTHER, and the duration is still recorded.
func TestPanicBelow(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	r := &rig{reader: sdkmetric.NewManualReader()}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	boom := func(context.Context, *mcp.Message, mcp.MessageHandler) mcp.Outcome { panic("middleware bug") }
	server := mcp.NewServer(nil, mcp.AllowAll(), &mcp.Options{
		Middleware: []mcp.Middleware{otelmcp.Middleware(&otelmcp.Options{TracerProvider: tp, MeterProvider: mp}), boom}})
	if status, _ := server.Handle(context.Background(), mcp.Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); status != 500 {
		t.Fatalf("status %d, want 500", status)
	}
	got := spans.GetSpans()
	if len(got) != 1 || got[0].Status.Code != codes.Error || get(attrs(got[0].Attributes), "error.type") != "_OTHER" {
		t.Fatalf("spans %+v", got)
	}
	h := r.durations(t)
	if len(h.DataPoints) != 1 || get(attrs(h.DataPoints[0].Attributes.ToSlice()), "error.type") != "_OTHER" ||
		get(attrs(h.DataPoints[0].Attributes.ToSlice()), "mcp.method.name") != "tools/list" {
		t.Errorf("durations %+v", h.DataPoints)
	}
}
