package otelmcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/otelmcp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// One option instruments every request: a SERVER span per request, child
// of the client's trace context in _meta, and the
// mcp.server.operation.duration histogram. Tools find the span in their
// context. Here the program's OpenTelemetry setup is an in-memory exporter
// and a manual reader; a service passes its own providers (or sets the
// otel globals, which Middleware(nil) uses).
func ExampleMiddleware() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer tp.Shutdown(context.Background())
	defer mp.Shutdown(context.Background())

	tools := mcp.NewToolSet()
	type query struct {
		City string `json:"city"`
	}
	if _, err := mcp.AddTool(tools, mcp.ToolInfo{Name: "get_weather", Description: "Weather in a city."},
		func(ctx context.Context, _ *mcp.Request, q query) (string, error) {
			// The tool's work is a child of the request's span.
			_, span := tp.Tracer("weather").Start(ctx, "lookup "+q.City)
			defer span.End()
			return "sunny", nil
		}); err != nil {
		panic(err)
	}
	server := mcp.NewServer(tools, mcp.AllowAll(), &mcp.Options{
		Middleware: []mcp.Middleware{otelmcp.Middleware(&otelmcp.Options{
			TracerProvider: tp,
			MeterProvider:  mp,
			Propagators:    propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
		})},
	})
	handler := mcp.NewHandler(server, nil)

	// A client's tools/call with its trace context in _meta.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"},` +
		`"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	handler.ServeHTTP(httptest.NewRecorder(), req)

	ended := spans.GetSpans()
	byID := map[trace.SpanID]string{}
	for _, s := range ended {
		byID[s.SpanContext.SpanID()] = s.Name
	}
	for _, s := range ended {
		parent := byID[s.Parent.SpanID()]
		if parent == "" {
			parent = "the client's span " + s.Parent.SpanID().String()
		}
		fmt.Printf("%s (%s) in trace %s, child of %s\n", s.Name, s.SpanKind, s.SpanContext.TraceID(), parent)
		if s.SpanKind == trace.SpanKindServer {
			for _, kv := range s.Attributes {
				switch kv.Key {
				case "mcp.method.name", "gen_ai.tool.name", "gen_ai.operation.name", "jsonrpc.request.id", "mcp.protocol.version", "network.transport":
					fmt.Printf("  %s=%s\n", kv.Key, kv.Value.String())
				}
			}
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			h := m.Data.(metricdata.Histogram[float64])
			fmt.Printf("%s (%s): %d request(s)\n", m.Name, m.Unit, h.DataPoints[0].Count)
		}
	}
	// Output:
	// lookup Paris (internal) in trace 4bf92f3577b34da6a3ce929d0e0e4736, child of tools/call get_weather
	// tools/call get_weather (server) in trace 4bf92f3577b34da6a3ce929d0e0e4736, child of the client's span 00f067aa0ba902b7
	//   mcp.method.name=tools/call
	//   mcp.protocol.version=2025-06-18
	//   jsonrpc.request.id=1
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.name=get_weather
	//   network.transport=tcp
	// mcp.server.operation.duration (s): 1 request(s)
}
