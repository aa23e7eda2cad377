package otelmcp_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/otelmcp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// echoCall is the benchmark's request: the echo tool with a short text and
// the client's trace context in _meta, as an instrumented client sends it.
var echoCall = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"The quick brown fox jumps over the lazy dog."},"_meta":{"traceparent":"` + clientParent + `"}}}`)

// benchServer returns the echo server with the given Middleware (none when
// nil) and, for the SDK case, the exporter to empty now and then.
func benchServer(tb testing.TB, variant string) (*mcp.Server, *tracetest.InMemoryExporter) {
	tb.Helper()
	w3c := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	var opts mcp.Options
	var spans *tracetest.InMemoryExporter
	switch variant {
	case "bare":
	case "hook":
		// A Middleware that does nothing: the cost of the Server's
		// Middleware hook itself, which any instrumentation pays.
		opts.Middleware = []mcp.Middleware{func(ctx context.Context, msg *mcp.Message, next mcp.MessageHandler) mcp.Outcome {
			return next(ctx, msg)
		}}
	case "pass":
		opts.Middleware = []mcp.Middleware{func(ctx context.Context, msg *mcp.Message, next mcp.MessageHandler) mcp.Outcome {
			return next(ctx, msg)
		}}
	case "noop":
		// Instrumented, with telemetry off: the no-op providers, and the
		// propagators a program that sets none has (no-op too).
		opts.Middleware = []mcp.Middleware{otelmcp.Middleware(&otelmcp.Options{
			TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: noop.NewMeterProvider()})}
	case "globals":
		// The globals of package otel as a program that sets none has
		// them: delegating providers with nothing to delegate to.
		opts.Middleware = []mcp.Middleware{otelmcp.Middleware(nil)}
	case "noop+w3c":
		// No-op providers, but the W3C propagators still reading _meta
		// (the remote span context then flows on to outgoing calls).
		opts.Middleware = []mcp.Middleware{otelmcp.Middleware(&otelmcp.Options{
			TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: noop.NewMeterProvider(), Propagators: w3c})}
	case "sdk":
		// The SDK, sampling everything, with an in-memory exporter and a
		// manual metric reader.
		spans = tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		tb.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
		opts.Middleware = []mcp.Middleware{otelmcp.Middleware(&otelmcp.Options{TracerProvider: tp, MeterProvider: mp, Propagators: w3c})}
	default:
		tb.Fatalf("unknown variant %q", variant)
	}
	return mcp.NewServer(echoTools(tb), mcp.AllowAll(), &opts), spans
}

// body is a request body that rewinds without allocating.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }

// BenchmarkEcho measures the echo call over the HTTP handler (ServeHTTP
// with a recorder, as bench/ does) without Middleware ("bare"), with this
// package's middleware and no-op providers ("noop"), the otel globals of a
// program that sets none ("globals"), no-op providers with the W3C
// propagators ("noop+w3c") and the SDK ("sdk"); scripts/test.d/otelmcp.sh
// counts their allocations. BenchmarkOverhead compares times.
func BenchmarkEcho(b *testing.B) {
	for _, variant := range []string{"bare", "hook", "noop", "globals", "noop+w3c", "sdk"} {
		b.Run(variant, func(b *testing.B) {
			server, spans := benchServer(b, variant)
			call := caller(b, "http", server)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				call()
				if spans != nil && i%1024 == 0 {
					spans.Reset()
				}
			}
		})
	}
}

// BenchmarkHandleEcho measures the same call through Server.Handle, in
// process, without a transport: the smallest unit the middleware wraps.
func BenchmarkHandleEcho(b *testing.B) {
	for _, variant := range []string{"bare", "hook", "noop", "globals", "noop+w3c", "sdk"} {
		b.Run(variant, func(b *testing.B) {
			server, spans := benchServer(b, variant)
			ctx := mcp.ContextWithExchange(context.Background(), &mcp.Exchange{ProtocolVersion: mcp.Version20250618})
			if status, resp := server.Handle(ctx, mcp.Caller{}, echoCall); status != 200 || !bytes.Contains(resp, []byte("lazy dog")) {
				b.Fatalf("answer %d %s", status, resp)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				server.Handle(ctx, mcp.Caller{}, echoCall)
				if spans != nil && i%1024 == 0 {
					spans.Reset()
				}
			}
		})
	}
}

// BenchmarkOverhead runs the echo call without Middleware and with it,
// in alternating blocks of 16 calls within each iteration, over the HTTP
// handler ("http") and through Server.Handle ("handle"): with this
// package's middleware and no-op providers ("noop"), with the SDK
// exporting every span to an in-memory exporter ("sdk"), and with a
// Middleware that does nothing ("hook", the share of the Server's hook).
// On a shared machine other work only ever adds time, so it reports the
// fastest tenth of each one's blocks (the 10th percentile of the time per
// call, "bare-ns/call" and "with-ns/call") and the overhead between them
// in percent. scripts/test.d/otelmcp.sh reports it against the target of
// at most 5 % for no-op providers over the HTTP handler.
func BenchmarkOverhead(b *testing.B) {
	for _, path := range []string{"http", "handle"} {
		for _, variant := range []string{"noop", "globals", "sdk", "hook"} {
			b.Run(path+"/"+variant, func(b *testing.B) {
				bare, _ := benchServer(b, "bare")
				with, spans := benchServer(b, variant)
				calls := [2]func(){caller(b, path, bare), caller(b, path, with)}
				const block = 16
				var blocks [2][]time.Duration
				i := 0
				for b.Loop() {
					for k := range 2 {
						which := (i + k) % 2 // alternate which goes first
						start := time.Now()
						for range block {
							calls[which]()
						}
						blocks[which] = append(blocks[which], time.Since(start))
					}
					if spans != nil {
						spans.Reset()
					}
					i++
				}
				var p10 [2]float64
				for k := range 2 {
					slices.Sort(blocks[k])
					p10[k] = float64(blocks[k][len(blocks[k])/10].Nanoseconds()) / block
				}
				b.ReportMetric(p10[0], "bare-ns/call")
				b.ReportMetric(p10[1], "with-ns/call")
				b.ReportMetric(100*(p10[1]/p10[0]-1), "overhead-%")
			})
		}
	}
}

// caller returns a function making one echo call to server over path.
func caller(tb testing.TB, path string, server *mcp.Server) func() {
	tb.Helper()
	if path == "handle" {
		ctx := mcp.ContextWithExchange(context.Background(), &mcp.Exchange{ProtocolVersion: mcp.Version20250618})
		return func() {
			if status, _ := server.Handle(ctx, mcp.Caller{}, echoCall); status != 200 {
				tb.Fatalf("status %d", status)
			}
		}
	}
	h := mcp.NewHandler(server, nil)
	tmpl := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "/mcp", nil)
	tmpl.Header.Set("Content-Type", "application/json")
	tmpl.Header.Set("Accept", "application/json, text/event-stream")
	tmpl.Header.Set("MCP-Protocol-Version", mcp.Version20250618)
	rd := &body{}
	serve := func() *httptest.ResponseRecorder {
		rd.Reset(echoCall)
		req := *tmpl
		req.Body = rd
		w := httptest.NewRecorder()
		h.ServeHTTP(w, &req)
		return w
	}
	if w := serve(); w.Code != 200 || !strings.Contains(w.Body.String(), "lazy dog") {
		tb.Fatalf("answer %d %s", w.Code, w.Body)
	}
	return func() {
		if w := serve(); w.Code != 200 {
			tb.Fatalf("status %d", w.Code)
		}
	}
}
