package otelmcp

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/embedmcp/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// other is the conventions' fallback value "_OTHER": error.type of a
// failure that is no JSON-RPC error (a panic), and here the method name of
// methods the server does not know and the conventions do not list:
// clients choose method names, and each one must not become a time series.
const other = "_OTHER"

// maxValue bounds the client-chosen strings recorded on spans (request
// ids, method names, addresses, error messages), in bytes.
const maxValue = 256

// wellKnown reports whether the conventions list method as a well-known
// mcp.method.name (semantic conventions v1.41.0), or this package's Server
// serves it.
func wellKnown(method string) bool {
	switch method {
	case "completion/complete", "elicitation/create", "initialize", "logging/setLevel",
		"notifications/cancelled", "notifications/initialized", "notifications/message",
		"notifications/progress", "notifications/prompts/list_changed",
		"notifications/resources/list_changed", "notifications/resources/updated",
		"notifications/roots/list_changed", "notifications/tools/list_changed", "ping",
		"prompts/get", "prompts/list", "resources/list", "resources/read", "resources/subscribe",
		"resources/templates/list", "resources/unsubscribe", "roots/list", "sampling/createMessage",
		"tools/call", "tools/list",
		"server/discover", "subscriptions/listen":
		return true
	}
	return false
}

// boundedMethod is method as recorded on a span: cut to maxValue bytes.
func boundedMethod(method string) string { return bounded(method, maxValue) }

// bounded cuts s to at most max bytes, at a rune boundary.
func bounded(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// requestID is the string form of a JSON-RPC id (jsonrpc.request.id): a
// string id without its quotes, a number as sent; "" for none.
func requestID(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] != '"' {
		return bounded(string(raw), maxValue)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return bounded(s, maxValue)
}

// metaCarrier reads trace context from a request's params._meta: the
// string members, by their exact names (traceparent, tracestate, baggage).
// It never writes: the request's _meta is not the middleware's to change.
type metaCarrier map[string]any

// Get returns the string member key, or "".
func (c metaCarrier) Get(key string) string {
	s, _ := c[key].(string)
	return s
}

// Set does nothing: extraction only reads.
func (metaCarrier) Set(string, string) {}

// Keys returns the names of the string members.
func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k, v := range c {
		if _, ok := v.(string); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// headerCarrier reads trace context from HTTP headers like
// propagation.HeaderCarrier, but finds the W3C keys under their canonical
// names without building them for every request.
type headerCarrier http.Header

// Get returns the first value of key.
func (c headerCarrier) Get(key string) string {
	var v []string
	switch key {
	case "traceparent":
		v = c["Traceparent"]
	case "tracestate":
		v = c["Tracestate"]
	case "baggage":
		v = c["Baggage"]
	default:
		return http.Header(c).Get(key)
	}
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// Set does nothing: extraction only reads.
func (headerCarrier) Set(string, string) {}

// Keys returns the header names.
func (c headerCarrier) Keys() []string { return propagation.HeaderCarrier(c).Keys() }

// netAttrs are what the transport says of a request: network.transport,
// network.protocol.name and version, and (on spans) client.address and
// client.port.
type netAttrs struct {
	transport       attribute.KeyValue // empty Key when unknown
	protocol        string
	protocolVersion string
	clientAddress   string
	clientPort      int
}

// read fills a from the transport's Exchange (nil: nothing is known);
// trusted are the proxies whose X-Forwarded-For is believed.
func (a *netAttrs) read(ex *mcp.Exchange, trusted proxies) {
	if ex == nil {
		return
	}
	r := ex.HTTPRequest
	switch {
	case ex.Transport == mcp.TransportStdio:
		a.transport = semconv.NetworkTransportPipe
		return
	case r == nil && ex.Transport == mcp.TransportHTTP:
		a.transport, a.protocol = semconv.NetworkTransportTCP, "http"
		return
	case r == nil:
		return
	}
	a.protocol = "http"
	a.transport = semconv.NetworkTransportTCP
	switch {
	case r.ProtoMajor == 3:
		a.transport = semconv.NetworkTransportQUIC
	case isUnix(r):
		a.transport = semconv.NetworkTransportUnix
	}
	a.protocolVersion = protoVersion(r.ProtoMajor, r.ProtoMinor)
	a.clientAddress, a.clientPort = clientAddress(r, trusted)
}

// append adds the attributes of a span to attrs.
func (a *netAttrs) append(attrs []attribute.KeyValue) []attribute.KeyValue {
	if a.transport.Key != "" {
		attrs = append(attrs, a.transport)
	}
	if a.protocol != "" {
		attrs = append(attrs, semconv.NetworkProtocolNameKey.String(a.protocol))
	}
	if a.protocolVersion != "" {
		attrs = append(attrs, semconv.NetworkProtocolVersionKey.String(a.protocolVersion))
	}
	if a.clientAddress != "" {
		attrs = append(attrs, semconv.ClientAddressKey.String(a.clientAddress))
		if a.clientPort > 0 {
			attrs = append(attrs, semconv.ClientPortKey.Int(a.clientPort))
		}
	}
	return attrs
}

// protoVersion is network.protocol.version: "1.1", "2", "3".
func protoVersion(major, minor int) string {
	switch {
	case major == 1 && minor == 1:
		return "1.1"
	case major == 1 && minor == 0:
		return "1.0"
	case major == 2:
		return "2"
	case major == 3:
		return "3"
	case major <= 0:
		return ""
	}
	return strconv.Itoa(major) + "." + strconv.Itoa(minor)
}

// isUnix reports whether r came in on a Unix domain socket.
func isUnix(r *http.Request) bool {
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return addr != nil && addr.Network() == "unix"
}
