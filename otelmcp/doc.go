// Package otelmcp traces and meters an embedmcp Server with OpenTelemetry.
// It is its own module, so that the mcp module stays free of OpenTelemetry.
//
// One option installs it:
//
//	server := mcp.NewServer(tools, az, &mcp.Options{
//		Middleware: []mcp.Middleware{otelmcp.Middleware(nil)},
//	})
//
// It uses the program's TracerProvider, MeterProvider and propagators (the
// globals of package otel unless Options names others) and sets nothing
// global itself. MCP carries trace context in W3C formats, so the program's
// propagators should include propagation.TraceContext and
// propagation.Baggage; the global default propagates nothing. With the
// no-op TracerProvider of go.opentelemetry.io/otel/trace/noop no span is
// started at all; the client's trace context and baggage still reach the
// tool (and its outgoing calls). While the otel globals are unset, the
// middleware made without Options starts no span and extracts nothing
// either, and picks them up once the program sets them.
//
// # Conventions followed
//
// The span and the metric follow the OpenTelemetry semantic conventions for
// MCP of semantic conventions v1.41.0 (open-telemetry/semantic-conventions,
// docs/gen-ai/mcp.md, status Development), the release whose attribute
// names and mcp.server.operation.duration instrument are generated into
// go.opentelemetry.io/otel/semconv/v1.41.0, which this package uses. The
// conventions have since moved to open-telemetry/semantic-conventions-genai
// (docs/gen-ai/mcp.md), which has published no v0.1.0 release (only
// development tags); its docs/gen-ai/mcp.md keeps the attributes, names and
// error rules recorded here. A later change of its model counts -32700,
// -32600, -32601 and -32602 answered by a server as no error; this package
// follows v1.41.0, where every JSON-RPC error is one.
//
// # The span
//
// Every request the Server dispatches (after its body was parsed and its
// revision's rules passed; notifications run nothing and get none) is one
// span of kind SERVER named "{mcp.method.name} {target}": "tools/call
// get_weather", "tools/list". Its parent is, in this order:
//
//   - the trace context in the request's params._meta (traceparent,
//     tracestate, and baggage, which the tool then finds in its context),
//     as the MCP specification 2026-07-28 (SEP-414) and the conventions
//     place it; the span then links the transport's span, if any;
//   - a span already in the request's context, such as the HTTP server span
//     of an otelhttp handler wrapped around the mcp.Handler;
//   - the trace context in the HTTP request's headers (traceparent).
//
// A malformed or absent traceparent is ignored, never an error to the
// client: with none valid, the span is a new root. Tools find the span in
// their context (trace.SpanFromContext) to add events or children.
//
// Attributes: mcp.method.name, mcp.protocol.version, jsonrpc.request.id;
// for tools/call gen_ai.operation.name "execute_tool" and gen_ai.tool.name;
// network.transport ("tcp", "quic" or "unix" over HTTP, "pipe" over
// stdio), network.protocol.name "http" and network.protocol.version;
// client.address and client.port over HTTP (the connection's peer; behind
// the proxies named in Options.TrustedProxies, the rightmost
// X-Forwarded-For address that is not one of them); and on failure error.type,
// rpc.response.status_code and status Error. mcp.session.id is never set:
// the Server keeps no sessions.
//
// Errors (error.type): a JSON-RPC error is its code as a string ("-32602",
// also rpc.response.status_code), with the error's message as the status
// description; a tools/call result with isError set is "tool_error"; a
// panic below the middleware is "_OTHER".
//
// # The metric
//
// mcp.server.operation.duration, a histogram in seconds with the advised
// buckets (DurationBuckets), records each request with mcp.method.name,
// mcp.protocol.version, gen_ai.operation.name, gen_ai.tool.name,
// error.type, rpc.response.status_code and the network attributes.
//
// # Bounds
//
// Clients choose method and tool names, ids and headers; none becomes an
// unbounded dimension. A method the Server answers with -32601 that the
// conventions do not list is "_OTHER" in span names and metrics (the span's
// mcp.method.name attribute keeps it as sent); a tool
// name goes into metrics and span names only when the Server has the tool
// and the caller may use it (mcp.Message.Tool), and onto a span only when
// it is a valid tool name; strings copied from a request onto a span are
// cut to 256 bytes.
package otelmcp
