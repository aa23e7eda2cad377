package otelmcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/otelmcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The trace context a client sends, as in the conventions' examples.
const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
	clientParent  = "00-" + clientTraceID + "-" + clientSpanID + "-01"
	// headerParent is another trace, sent in the HTTP traceparent header.
	headerTraceID = "0af7651916cd43dd8448eb211c80319c"
	headerSpanID  = "b7ad6b7169203331"
	headerParent  = "00-" + headerTraceID + "-" + headerSpanID + "-01"
)

// seen is what the spy tool found in its context.
type seen struct {
	span    trace.SpanContext
	baggage string
}

// rig is a Server instrumented with the SDK's in-memory exporter and a
// manual metric reader.
type rig struct {
	spans   *tracetest.InMemoryExporter
	reader  *sdkmetric.ManualReader
	tools   *mcp.ToolSet
	server  *mcp.Server
	handler http.Handler
	spy     chan seen
}

func newRig(t *testing.T) *rig { t.Helper(); return newRigTrusting(t, nil) }

// newRigTrusting is newRig with Options.TrustedProxies.
func newRigTrusting(t *testing.T, trusted []string) *rig {
	t.Helper()
	r := &rig{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader(), spy: make(chan seen, 16)}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	mw := otelmcp.Middleware(&otelmcp.Options{TracerProvider: tp, MeterProvider: mp,
		Propagators:    propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
		TrustedProxies: trusted})
	tools := echoTools(t)
	if err := tools.Register(
		mcp.NewRawTool(mcp.ToolInfo{Name: "spy", Description: "Reports its span and baggage."},
			func(ctx context.Context, _ *mcp.Request) (*mcp.Result, error) {
				r.spy <- seen{span: trace.SpanContextFromContext(ctx), baggage: baggage.FromContext(ctx).Member("user").Value()}
				return mcp.TextResult("seen"), nil
			}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "fail", Description: "Always fails."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { return nil, errors.New("the disk is full") }),
		mcp.NewRawTool(mcp.ToolInfo{Name: "boom", Description: "Panics."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { panic("boom") }),
		mcp.NewRawTool(mcp.ToolInfo{Name: "admin", Description: "Not for callers.", Permission: "admin"},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("ok"), nil }),
	); err != nil {
		t.Fatal(err)
	}
	r.tools = tools
	r.server = mcp.NewServer(tools, mcp.GrantsAuthorizer{}, &mcp.Options{Middleware: []mcp.Middleware{mw}})
	r.handler = mcp.NewHandler(r.server, nil)
	return r
}

// echoTools returns a ToolSet with the typed tool echo ({"text"} in and
// out).
func echoTools(tb testing.TB) *mcp.ToolSet {
	tb.Helper()
	tools := mcp.NewToolSet()
	type text struct {
		Text string `json:"text"`
	}
	if _, err := mcp.AddTool(tools, mcp.ToolInfo{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.Request, in text) (text, error) { return in, nil }); err != nil {
		tb.Fatal(err)
	}
	return tools
}

// post sends body to the rig's HTTP handler under 2025-06-18 with the
// given extra headers and returns the status and response body.
func (r *rig) post(t *testing.T, body string, header map[string]string) (int, string) {
	t.Helper()
	return r.postCtx(t, context.Background(), body, header)
}

func (r *rig) postCtx(t *testing.T, ctx context.Context, body string, header map[string]string) (int, string) {
	t.Helper()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", strings.NewReader(body))
	req.RemoteAddr = "192.0.2.7:51234"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.Version20250618)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	r.handler.ServeHTTP(w, req)
	return w.Code, w.Body.String()
}

// ended returns the spans ended so far and forgets them.
func (r *rig) ended() tracetest.SpanStubs {
	s := r.spans.GetSpans()
	r.spans.Reset()
	return s
}

// only returns the one span ended so far.
func (r *rig) only(t *testing.T) tracetest.SpanStub {
	t.Helper()
	s := r.ended()
	if len(s) != 1 {
		t.Fatalf("%d spans ended, want 1: %v", len(s), names(s))
	}
	return s[0]
}

// durations collects mcp.server.operation.duration's data points.
func (r *rig) durations(t *testing.T) metricdata.Histogram[float64] {
	t.Helper()
	for _, sm := range r.collect(t).ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "mcp.server.operation.duration" {
				h, ok := m.Data.(metricdata.Histogram[float64])
				if !ok {
					t.Fatalf("mcp.server.operation.duration is a %T, want a float64 histogram", m.Data)
				}
				return h
			}
		}
	}
	t.Fatal("no mcp.server.operation.duration recorded")
	return metricdata.Histogram[float64]{}
}

// collect reads the metrics recorded so far.
func (r *rig) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// attrs maps a span's or data point's attributes by key.
func attrs(kvs []attribute.KeyValue) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

// wantAttrs checks the string (or int) attributes want: "" means absent.
func wantAttrs(t *testing.T, what string, got map[string]attribute.Value, want map[string]string) {
	t.Helper()
	for k, w := range want {
		v, has := got[k]
		switch {
		case w == "" && has:
			t.Errorf("%s: %s = %q, want none", what, k, v.String())
		case w != "" && !has:
			t.Errorf("%s: %s missing, want %q", what, k, w)
		case w != "" && v.String() != w:
			t.Errorf("%s: %s = %q, want %q", what, k, v.String(), w)
		}
	}
}

func call(id, tool, meta string) string {
	params := `{"name":"` + tool + `","arguments":{"text":"hi"}`
	if meta != "" {
		params += `,"_meta":` + meta
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}}`
}

// get returns the attribute key of a as a string, "" when absent.
func get(a map[string]attribute.Value, key string) string {
	v, ok := a[key]
	if !ok {
		return ""
	}
	return v.String()
}
