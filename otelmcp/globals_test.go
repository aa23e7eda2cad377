package otelmcp_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/otelmcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// TestGlobals: without Options, the middleware uses the otel globals, even
// those set after it was made (the globals delegate), and sets none itself.
// It runs in a process of its own: the globals delegate only until they
// are first set, once per process, so a second run in the same process
// (go test -count=2) would find them set already.
func TestGlobals(t *testing.T) {
	if os.Getenv("OTELMCP_GLOBALS_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGlobals$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "OTELMCP_GLOBALS_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestGlobals")) {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	tpBefore, mpBefore, propBefore := otel.GetTracerProvider(), otel.GetMeterProvider(), otel.GetTextMapPropagator()
	mw := otelmcp.Middleware(nil)
	if otel.GetTracerProvider() != tpBefore || otel.GetMeterProvider() != mpBefore || otel.GetTextMapPropagator() != propBefore {
		t.Fatal("Middleware changed an otel global")
	}
	server := mcp.NewServer(nil, mcp.AllowAll(), &mcp.Options{Middleware: []mcp.Middleware{mw}})
	list := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"traceparent":"` + clientParent + `"}}}`)
	if status, body := server.Handle(context.Background(), mcp.Caller{}, list); status != 200 {
		t.Fatalf("without globals: %d %s", status, body)
	}

	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() {
		otel.SetTracerProvider(tracenoop.NewTracerProvider())
		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	server.Handle(context.Background(), mcp.Caller{}, list)
	got := spans.GetSpans()
	if len(got) != 1 || got[0].Name != "tools/list" || got[0].Parent.SpanID().String() != clientSpanID {
		t.Fatalf("spans through the globals set later: %v", got)
	}
	r := &rig{reader: reader}
	if h := r.durations(t); len(h.DataPoints) != 1 || h.DataPoints[0].Count != 1 {
		t.Errorf("durations through the global meter: %+v", h.DataPoints)
	}
}

// TestNoopTracer: with trace/noop's TracerProvider no span is started, but
// the client's trace context and baggage still reach the tool (and, from
// it, outgoing calls), and the duration is still measured.
func TestNoopTracer(t *testing.T) {
	r := newRig(t)
	r.reader = sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })
	mw := otelmcp.Middleware(&otelmcp.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: mp,
		Propagators: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})})
	server := mcp.NewServer(r.tools, mcp.AllowAll(), &mcp.Options{Middleware: []mcp.Middleware{mw}})
	body := []byte(call("1", "spy", `{"traceparent":"`+clientParent+`","baggage":"user=carol"}`))
	if status, resp := server.Handle(context.Background(), mcp.Caller{}, body); status != 200 {
		t.Fatalf("%d %s", status, resp)
	}
	s := <-r.spy
	if s.span.TraceID().String() != clientTraceID || s.span.SpanID().String() != clientSpanID || s.baggage != "carol" {
		t.Errorf("the tool saw span %s/%s baggage %q, want the client's", s.span.TraceID(), s.span.SpanID(), s.baggage)
	}
	if h := r.durations(t); len(h.DataPoints) != 1 {
		t.Errorf("durations: %+v", h.DataPoints)
	}
}
