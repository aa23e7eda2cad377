package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Exchange carries the transport's side of one request into
// Protocol.Handle: what the transport knows about the protocol revision,
// its headers, and where the request's own notifications go. Transports
// attach it with ContextWithExchange; without one, Server.Handle assumes
// 2025-03-26 rules and drops notifications.
type Exchange struct {
	// ProtocolVersion is the revision the transport says the request is made
	// under: the MCP-Protocol-Version header, or what initialize negotiated
	// on a stdio connection. "" means unknown, and 2025-03-26 rules apply
	// (batches allowed, invalid arguments answered with -32602).
	ProtocolVersion string
	// Header holds the HTTP request headers, for the 2026-07-28 checks of
	// Mcp-Method, Mcp-Name and Mcp-Param-* against the body. Nil for
	// transports without headers (stdio), which skip those checks.
	Header http.Header
	// Transport names the transport the request came over: TransportHTTP
	// (NewHandler), TransportStdio (ServeStdio), or a custom transport's
	// own name; "" when unknown. Telemetry reads it (network.transport).
	Transport string
	// HTTPRequest is the HTTP request the body came in, set by NewHandler
	// and nil for other transports: its protocol version, remote address
	// and headers (a traceparent, say) for telemetry. Read it while the
	// request is handled; do not read its Body or keep it. Once the
	// request is answered, NewHandler's Exchange drops it, Header and
	// Notify (a task the request started must not keep them alive).
	HTTPRequest *http.Request
	// Notify sends a request-scoped notification (notifications/progress,
	// notifications/message) to the client while the request runs, on its
	// response stream. It must be safe for concurrent use. Nil drops them.
	Notify func(method string, params json.RawMessage) error

	// logLevel, set by ServeStdio, is the level a logging/setLevel set on
	// the connection; "" applies Options.LogLevel.
	logLevel LogLevel
	// retryAfter, set while the request is answered, asks the HTTP
	// transport for a Retry-After header (a full task store).
	retryAfter time.Duration
	// budget, set by NewHandler, is its budget of answer bytes
	// (HandlerOptions.MaxPendingBytes), which batch answers are counted in
	// while they are built. Nil: none.
	budget *writeBudget
}

// The transports of this package, as Exchange.Transport names them.
const (
	TransportHTTP  = "http"
	TransportStdio = "stdio"
)

type exchangeKey struct{}

// ContextWithExchange returns a copy of ctx carrying ex.
func ContextWithExchange(ctx context.Context, ex *Exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

// exchangeContext is what ContextWithExchange makes, as a value that can
// live inside another: the HTTP transport keeps it in the request's stream,
// so that carrying the Exchange costs no allocation of its own. Every other
// key is its parent's.
type exchangeContext struct {
	context.Context
	ex *Exchange
}

func (c *exchangeContext) Value(key any) any {
	if _, ok := key.(exchangeKey); ok {
		return c.ex
	}
	return c.Context.Value(key)
}

// ExchangeFromContext returns the Exchange in ctx, or nil. A Protocol
// reads it to learn what the transport knows of the request.
func ExchangeFromContext(ctx context.Context) *Exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*Exchange)
	return ex
}
