package otelmcp

import (
	"context"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/embedmcp/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of the tracer and meter: the
// package's import path.
const ScopeName = "github.com/embedmcp/mcp/otelmcp"

// ToolError is the error.type of a tools/call answered with a result whose
// isError is set, as the conventions name it.
const ToolError = "tool_error"

// Options configure Middleware. The zero value uses the globals: the
// instrumentation sets nothing global itself.
type Options struct {
	// TracerProvider makes the tracer of the server spans. Nil means
	// otel.GetTracerProvider() (a no-op until the program sets one).
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter of mcp.server.operation.duration. Nil
	// means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Propagators extract the remote parent and baggage from a request's
	// params._meta (traceparent, tracestate, baggage) and from the HTTP
	// request's headers. Nil means otel.GetTextMapPropagator(), which is a
	// no-op until the program sets one: set it (or this field) to
	// propagation.NewCompositeTextMapPropagator(propagation.TraceContext{},
	// propagation.Baggage{}) to follow the W3C formats MCP uses.
	Propagators propagation.TextMapPropagator
	// TrustedProxies lists the reverse proxies in front of the server, as
	// IP addresses ("10.0.0.7", "::1") or CIDR networks ("10.0.0.0/8").
	// client.address is the peer of the connection unless that peer is
	// one of them; then it is the rightmost X-Forwarded-For address that
	// is not one of them (proxies append the address they received the
	// request from, so only the hops they added can be believed). Nil
	// trusts none: X-Forwarded-For, which any client can write, is
	// ignored. An entry that is neither an address nor a network is
	// reported to otel.Handle and ignored.
	TrustedProxies []string
}

// DurationBuckets are the explicit bucket boundaries, in seconds, of
// mcp.server.operation.duration, as the conventions advise.
func DurationBuckets() []float64 {
	return []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
}

// instrumentation is one Middleware's tracer, histogram and propagators.
type instrumentation struct {
	tracer   trace.Tracer
	duration mcpconv.ServerOperationDuration
	prop     propagation.TextMapPropagator
	server   []trace.SpanStartOption      // kind SERVER, made once: no allocation per span
	names    cache[string, string]        // tool → "tools/call tool", for the tools the Server had
	sets     cache[setKey, attribute.Set] // the attributes of durations so far
	untraced bool                         // the TracerProvider is trace/noop's: no span is started
	trusted  proxies                      // Options.TrustedProxies
	// The otel globals' stand-ins, when Options named no provider or
	// propagators and the program had set none yet: while they are still
	// the globals, they delegate to nothing, so no span is started and
	// nothing is extracted (see standIn).
	tracerStandIn trace.TracerProvider
	propStandIn   propagation.TextMapPropagator
}

// Middleware returns the mcp.Middleware that traces and meters every
// request a Server dispatches; install it with
// mcp.Options{Middleware: []mcp.Middleware{otelmcp.Middleware(nil)}}.
// opts may be nil. What it records is described in the package
// documentation.
func Middleware(opts *Options) mcp.Middleware {
	var o Options
	if opts != nil {
		o = *opts
	}
	in := &instrumentation{server: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
		if standIn(o.TracerProvider, "tracerProvider") {
			in.tracerStandIn = o.TracerProvider
		}
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagators == nil {
		o.Propagators = otel.GetTextMapPropagator()
		if standIn(o.Propagators, "textMapPropagator") {
			in.propStandIn = o.Propagators
		}
	}
	var perr error
	if in.trusted, perr = parseProxies(o.TrustedProxies); perr != nil {
		otel.Handle(perr)
	}
	in.tracer = o.TracerProvider.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL))
	in.prop = o.Propagators
	switch o.TracerProvider.(type) {
	case tracenoop.TracerProvider, *tracenoop.TracerProvider:
		in.untraced = true
	}
	meter := o.MeterProvider.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
	var err error
	in.duration, err = mcpconv.NewServerOperationDuration(meter, metric.WithExplicitBucketBoundaries(DurationBuckets()...))
	if err != nil {
		otel.Handle(err) // the histogram is then a no-op; the spans still work
	}
	return in.serve
}

// serve is the Middleware: one SERVER span and one duration per request.
func (in *instrumentation) serve(ctx context.Context, msg *mcp.Message, next mcp.MessageHandler) (out mcp.Outcome) {
	// Without an SDK behind them the histogram is disabled and the span
	// does not record: then nothing is timed, read or built.
	metered := in.duration.Enabled(ctx)
	var start time.Time
	if metered {
		start = time.Now()
	}
	parent, transport := in.parent(ctx, msg)
	if in.untraced || in.tracerStandIn != nil && otel.GetTracerProvider() == in.tracerStandIn {
		out = next(parent, msg)
		if metered {
			in.record(parent, start, msg, outcomeOf(msg, out))
		}
		return out
	}
	isCall := msg.Method == "tools/call"
	tool := ""
	if isCall && mcp.ValidToolName(msg.Name) {
		tool = msg.Name
	}
	name, cached := boundedMethod(msg.Method), true
	if isCall {
		if name, cached = in.names.load(tool); !cached {
			name = spanName("tools/call", tool)
		}
	}
	ctx, span := in.tracer.Start(parent, name, in.link(parent, transport)...)
	defer func() {
		if r := recover(); r != nil {
			// Something below panicked (the Server turns it into a 500
			// above us): the span still ends, as a failure.
			span.SetAttributes(semconv.ErrorTypeOther)
			span.SetStatus(codes.Error, "panic")
			span.End()
			if metered {
				o := outcome{method: msg.Method, errType: other}
				if !wellKnown(o.method) {
					o.method = other
				}
				in.record(ctx, start, msg, o)
			}
			panic(r)
		}
	}()
	out = next(ctx, msg)
	o := outcomeOf(msg, out)
	if o.known != "" && !cached {
		in.names.store(o.known, spanName("tools/call", o.known))
	}
	if span.IsRecording() {
		// The name the span started with named what the client asked
		// for; it keeps only what the Server has.
		switch {
		case isCall && o.known == "" && tool != "":
			span.SetName("tools/call")
		case !isCall && o.method != name:
			span.SetName(o.method)
		}
		annotate(ctx, span, msg, tool, out, o, in.trusted)
	}
	span.End()
	if metered {
		in.record(ctx, start, msg, o)
	}
	return out
}

// outcome is what a request's telemetry says of how it was answered.
type outcome struct {
	method  string // mcp.method.name for span names and metrics
	known   string // the tool of a tools/call the Server has, else ""
	errType string // error.type, "" for success
	status  string // rpc.response.status_code, "" without a JSON-RPC error
}

func outcomeOf(msg *mcp.Message, out mcp.Outcome) outcome {
	o := outcome{method: msg.Method}
	if out.Err != nil && out.Err.Code == mcp.CodeMethodNotFound && !wellKnown(o.method) {
		o.method = other // a name the client made up: never a metric dimension
	}
	if msg.Method == "tools/call" && msg.Tool() != nil {
		o.known = msg.Name // a tool the Server has: bounded by its registry
	}
	switch {
	case out.Err != nil:
		o.status = strconv.Itoa(out.Err.Code)
		o.errType = o.status
	case out.IsError:
		o.errType = ToolError
	}
	return o
}

// annotate sets a recording span's attributes and status.
func annotate(ctx context.Context, span trace.Span, msg *mcp.Message, tool string, out mcp.Outcome, o outcome, trusted proxies) {
	attrs := make([]attribute.KeyValue, 0, 14)
	attrs = append(attrs, semconv.McpMethodNameKey.String(boundedMethod(msg.Method)),
		semconv.McpProtocolVersionKey.String(msg.ProtocolVersion))
	if id := requestID(msg.ID); id != "" {
		attrs = append(attrs, semconv.JSONRPCRequestIDKey.String(id))
	}
	attrs = o.append(attrs, msg, tool)
	var net netAttrs
	net.read(mcp.ExchangeFromContext(ctx), trusted)
	attrs = net.append(attrs)
	span.SetAttributes(attrs...)
	switch {
	case out.Err != nil:
		span.SetStatus(codes.Error, bounded(out.Err.Message, maxValue))
	case out.IsError:
		span.SetStatus(codes.Error, ToolError)
	}
}

// record measures the request's duration.
func (in *instrumentation) record(ctx context.Context, start time.Time, msg *mcp.Message, o outcome) {
	elapsed := time.Since(start).Seconds()
	var net netAttrs
	net.read(mcp.ExchangeFromContext(ctx), nil) // no client.address on metrics
	k := setKey{method: o.method, tool: o.known, errType: o.errType, status: o.status, version: msg.ProtocolVersion,
		call: msg.Method == "tools/call", protocol: net.protocol, protocolVersion: net.protocolVersion}
	if net.transport.Key != "" {
		k.transport = net.transport.Value.AsString()
	}
	set, ok := in.sets.load(k)
	if !ok {
		set = attributeSet(k)
		in.sets.store(k, set)
	}
	in.duration.RecordSet(ctx, elapsed, set)
}

// setKey is what the attributes of a duration depend on.
type setKey struct {
	method, tool, errType, status, version string
	transport, protocol, protocolVersion   string
	call                                   bool
}

// maxCached bounds each cache of names and attribute sets: tool sets that
// change without end do not grow them without end.
const maxCached = 4096

// attributeSet builds the attributes of a duration.
func attributeSet(k setKey) attribute.Set {
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs, semconv.McpMethodNameKey.String(k.method), semconv.McpProtocolVersionKey.String(k.version))
	if k.call {
		attrs = append(attrs, semconv.GenAIOperationNameExecuteTool)
		if k.tool != "" {
			attrs = append(attrs, semconv.GenAIToolNameKey.String(k.tool))
		}
	}
	if k.errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(k.errType))
	}
	if k.status != "" {
		attrs = append(attrs, semconv.RPCResponseStatusCodeKey.String(k.status))
	}
	if k.transport != "" {
		attrs = append(attrs, semconv.NetworkTransportKey.String(k.transport))
	}
	if k.protocol != "" {
		attrs = append(attrs, semconv.NetworkProtocolNameKey.String(k.protocol))
	}
	if k.protocolVersion != "" {
		attrs = append(attrs, semconv.NetworkProtocolVersionKey.String(k.protocolVersion))
	}
	return attribute.NewSet(attrs...)
}

// cache is a read-mostly map of values built from bounded keys (span
// names, attribute sets): reads take no lock, a new key copies the map,
// and it holds at most maxCached keys.
type cache[K comparable, V any] struct {
	p  atomic.Pointer[map[K]V]
	mu sync.Mutex
}

// load returns the value of k, if it is held.
func (c *cache[K, V]) load(k K) (V, bool) {
	if m := c.p.Load(); m != nil {
		v, ok := (*m)[k]
		return v, ok
	}
	var zero V
	return zero, false
}

// store holds v for k, unless the cache is full.
func (c *cache[K, V]) store(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.p.Load()
	if old != nil {
		if _, ok := (*old)[k]; ok || len(*old) >= maxCached {
			return
		}
	}
	m := make(map[K]V, 1+lenOf(old))
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[k] = v
	c.p.Store(&m)
}

func lenOf[K comparable, V any](m *map[K]V) int {
	if m == nil {
		return 0
	}
	return len(*m)
}

// append adds the tool and error attributes, with tool as gen_ai.tool.name.
func (o *outcome) append(attrs []attribute.KeyValue, msg *mcp.Message, tool string) []attribute.KeyValue {
	if msg.Method == "tools/call" {
		attrs = append(attrs, semconv.GenAIOperationNameExecuteTool)
		if tool != "" {
			attrs = append(attrs, semconv.GenAIToolNameKey.String(tool))
		}
	}
	if o.errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(o.errType))
	}
	if o.status != "" {
		attrs = append(attrs, semconv.RPCResponseStatusCodeKey.String(o.status))
	}
	return attrs
}

// parent returns the context the span starts in and, when its parent came
// from _meta, the transport's context to link to (nil otherwise). The
// request's params._meta wins (the MCP conventions: the client's span is
// the parent whatever the transport); then a span already in ctx (say,
// otelhttp's); then the HTTP request's headers. Extraction that finds
// nothing valid (a malformed traceparent) leaves the parent as it was:
// with none, the span is a new root. Baggage from _meta replaces the
// headers'. A propagator that finds nothing returns the context it was
// given: comparing contexts spares lookups.
func (in *instrumentation) parent(ctx context.Context, msg *mcp.Message) (parent, transport context.Context) {
	if in.propStandIn != nil && otel.GetTextMapPropagator() == in.propStandIn {
		return ctx, nil // the global propagators, still unset: nothing to extract
	}
	if !trace.SpanContextFromContext(ctx).IsValid() {
		if ex := mcp.ExchangeFromContext(ctx); ex != nil && ex.HTTPRequest != nil {
			ctx = in.prop.Extract(ctx, headerCarrier(ex.HTTPRequest.Header))
		}
	}
	if msg.Meta == nil {
		return ctx, nil
	}
	if mctx := in.prop.Extract(ctx, metaCarrier(msg.Meta)); mctx != ctx {
		return mctx, ctx
	}
	return ctx, nil
}

// link returns the start options of a span whose parent is in parent:
// with a link to the transport's span when the parent came from _meta and
// differs from it.
func (in *instrumentation) link(parent, transport context.Context) []trace.SpanStartOption {
	if transport == nil {
		return in.server
	}
	sc, tsc := trace.SpanContextFromContext(parent), trace.SpanContextFromContext(transport)
	if !sc.IsValid() || !tsc.IsValid() || sc.Equal(tsc) {
		return in.server
	}
	return []trace.SpanStartOption{in.server[0], trace.WithLinks(trace.Link{SpanContext: tsc})}
}

// spanName is "{mcp.method.name} {target}", or the method alone.
func spanName(method, tool string) string {
	if tool == "" {
		return method
	}
	return method + " " + tool
}

// standIn reports whether v is the stand-in package otel hands out for a
// global the program has not set (a tracerProvider or textMapPropagator of
// its internal package global), which delegates to nothing until the
// program sets the global, and then stops being the global. Only speed
// depends on it: a stand-in not recognised is used like any other.
func standIn(v any, name string) bool {
	t := reflect.TypeOf(v)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Name() == name &&
		t.Elem().PkgPath() == "go.opentelemetry.io/otel/internal/global"
}
