package otelmcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/otelmcp"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The attribute tables of the MCP semantic conventions, semantic
// conventions v1.41.0, docs/gen-ai/mcp.md, copied here by hand (not taken
// from the semconv package the code uses, so that a wrong constant there
// fails here): the key and its requirement level.
var (
	// Section "Server" (span mcp.server).
	serverSpanTable = map[string]string{
		"mcp.method.name":          "required",
		"error.type":               "conditionally required: if and only if the operation fails",
		"gen_ai.prompt.name":       "conditionally required: when related to a specific prompt",
		"gen_ai.tool.name":         "conditionally required: when related to a specific tool",
		"jsonrpc.request.id":       "conditionally required: when the client executes a request",
		"mcp.resource.uri":         "conditionally required: requests with a resource URI",
		"rpc.response.status_code": "conditionally required: if the response contains an error code",
		"client.address":           "recommended",
		"client.port":              "recommended",
		"gen_ai.operation.name":    "recommended",
		"jsonrpc.protocol.version": "recommended when not 2.0",
		"mcp.protocol.version":     "recommended",
		"mcp.session.id":           "recommended",
		"network.protocol.name":    "recommended",
		"network.protocol.version": "recommended",
		"network.transport":        "recommended",
	}
	// Section "Metric: mcp.server.operation.duration".
	serverMetricTable = map[string]string{
		"mcp.method.name":          "required",
		"error.type":               "conditionally required: if and only if the operation fails",
		"gen_ai.prompt.name":       "conditionally required: when related to a specific prompt",
		"gen_ai.tool.name":         "conditionally required: when related to a specific tool",
		"rpc.response.status_code": "conditionally required: if the response contains an error code",
		"gen_ai.operation.name":    "recommended",
		"jsonrpc.protocol.version": "recommended when not 2.0",
		"mcp.protocol.version":     "recommended",
		"network.protocol.name":    "recommended",
		"network.protocol.version": "recommended",
		"network.transport":        "recommended",
		"mcp.resource.uri":         "opt-in",
	}
	// The metric: "mcp.server.operation.duration", a histogram in "s",
	// with ExplicitBucketBoundaries [0.01 … 300].
	metricBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
	// Well-known network.transport values.
	transports = []string{"pipe", "quic", "tcp", "udp", "unix"}
)

// TestConventions sends a mix of requests (tool calls that succeed, fail
// and are refused, lists, unknown methods, over HTTP and stdio) and checks
// every span and data point against the conventions' tables: only their
// keys, the required ones always, the conditional ones exactly when their
// condition holds, well-known values where the conventions list them, the
// span kind and name, the instrument's unit and buckets.
func TestConventions(t *testing.T) {
	r := newRig(t)
	for _, body := range []string{
		call("1", "echo", ""), call(`"two"`, "fail", ""), call("3", "nope", ""), call("4", "boom", ""),
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":6,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"no/such"}`,
	} {
		r.post(t, body, nil)
	}
	in := strings.NewReader(call("8", "echo", "") + "\n")
	var out strings.Builder
	if err := mcp.ServeStdio(context.Background(), r.server, mcp.Caller{}, in, &out, nil); err != nil {
		t.Fatal(err)
	}
	spans := r.ended()
	if len(spans) != 8 {
		t.Fatalf("spans %v", names(spans))
	}
	for _, s := range spans {
		checkSpan(t, s)
	}

	h := r.durations(t)
	if len(h.DataPoints) == 0 {
		t.Fatal("no data points")
	}
	var total uint64
	for _, dp := range h.DataPoints {
		total += dp.Count
		a := attrs(dp.Attributes.ToSlice())
		for k := range a {
			if _, ok := serverMetricTable[k]; !ok {
				t.Errorf("metric: %s is not an attribute of mcp.server.operation.duration", k)
			}
		}
		if _, ok := a["mcp.method.name"]; !ok {
			t.Errorf("metric: mcp.method.name (required) missing: %v", a)
		}
		if code, has := a["rpc.response.status_code"]; has && get(a, "error.type") != code.String() {
			t.Errorf("metric: error.type %q, rpc.response.status_code %q: want the code in both", get(a, "error.type"), code.String())
		}
		if e, has := a["error.type"]; has && e.String() != otelmcp.ToolError && get(a, "rpc.response.status_code") == "" {
			t.Errorf("metric: error.type %q without a status code", e.String())
		}
		if !slices.Equal(dp.Bounds, metricBuckets) {
			t.Errorf("metric buckets %v, want %v", dp.Bounds, metricBuckets)
		}
		if tr := get(a, "network.transport"); !slices.Contains(transports, tr) {
			t.Errorf("metric: network.transport %q", tr)
		}
		if mn, ok := dp.Min.Value(); dp.Sum < 0 || ok && mn < 0 {
			t.Errorf("metric: negative duration %v", dp.Sum)
		}
	}
	if total != 8 {
		t.Errorf("%d measurements, want 8", total)
	}
	var unit string
	var found bool
	for _, sm := range r.collect(t).ScopeMetrics {
		if sm.Scope.Name != otelmcp.ScopeName || sm.Scope.SchemaURL != "https://opentelemetry.io/schemas/1.41.0" {
			t.Errorf("scope %+v", sm.Scope)
		}
		for _, m := range sm.Metrics {
			if m.Name == "mcp.server.operation.duration" {
				found, unit = true, m.Unit
			}
		}
	}
	if !found || unit != "s" {
		t.Errorf("mcp.server.operation.duration unit %q (found %v), want s", unit, found)
	}
	for _, s := range spans {
		if s.InstrumentationScope.Name != otelmcp.ScopeName {
			t.Errorf("%s: scope %q", s.Name, s.InstrumentationScope.Name)
		}
	}
}

// checkSpan checks one span against the server span's table.
func checkSpan(t *testing.T, s tracetest.SpanStub) {
	t.Helper()
	a := attrs(s.Attributes)
	for k := range a {
		if _, ok := serverSpanTable[k]; !ok {
			t.Errorf("%s: %s is not an attribute of the MCP server span", s.Name, k)
		}
	}
	if s.SpanKind != trace.SpanKindServer {
		t.Errorf("%s: kind %v", s.Name, s.SpanKind)
	}
	method := get(a, "mcp.method.name")
	if method == "" {
		t.Errorf("%s: mcp.method.name (required) missing", s.Name)
	}
	if get(a, "jsonrpc.request.id") == "" {
		t.Errorf("%s: jsonrpc.request.id missing on a request", s.Name)
	}
	_, failed := a["error.type"]
	if failed != (s.Status.Code.String() == "Error") {
		t.Errorf("%s: error.type %q but status %v", s.Name, get(a, "error.type"), s.Status)
	}
	if code, has := a["rpc.response.status_code"]; has && get(a, "error.type") != code.String() {
		t.Errorf("%s: error.type %q, rpc.response.status_code %q: want the code in both", s.Name, get(a, "error.type"), code.String())
	}
	if method == "tools/call" {
		if get(a, "gen_ai.operation.name") != "execute_tool" {
			t.Errorf("%s: gen_ai.operation.name %q", s.Name, get(a, "gen_ai.operation.name"))
		}
		if tool := get(a, "gen_ai.tool.name"); tool == "" || s.Name != "tools/call "+tool && s.Name != "tools/call" {
			t.Errorf("%s: gen_ai.tool.name %q", s.Name, tool)
		}
	} else {
		if _, has := a["gen_ai.operation.name"]; has {
			t.Errorf("%s: gen_ai.operation.name on a %s", s.Name, method)
		}
		if s.Name != method && s.Name != "_OTHER" {
			t.Errorf("span name %q for method %q", s.Name, method)
		}
	}
	if v := get(a, "mcp.protocol.version"); v != mcp.Version20250618 && v != mcp.Version20250326 {
		t.Errorf("%s: mcp.protocol.version %q", s.Name, v)
	}
	if tr := get(a, "network.transport"); !slices.Contains(transports, tr) {
		t.Errorf("%s: network.transport %q", s.Name, tr)
	}
	if p, has := a["network.protocol.name"]; has && p.String() != strings.ToLower(p.String()) {
		t.Errorf("%s: network.protocol.name %q is not lower case", s.Name, p.String())
	}
	if _, has := a["client.port"]; has {
		if _, addr := a["client.address"]; !addr {
			t.Errorf("%s: client.port without client.address", s.Name)
		}
	}
}
