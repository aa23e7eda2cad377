package mcp

// revision is the protocol revision a request is served under, chosen
// once per request by selectRevision (era.go), before dispatch: what the
// revisions do differently is asked of it, by what it means, and nowhere
// else decided from a version string.
//
// The revisions served fall in two families. Up to 2025-11-25 a client
// negotiates the revision once, with initialize, and every later request
// says it only in a transport header (the handshake revisions). From
// 2026-07-28 every request names its revision and its client in its own
// _meta, and any replica answers it without a handshake (the per-request
// revision).
type revision struct {
	// version is the revision's name ("2025-11-25"), as given to tools
	// (Request.ProtocolVersion), to Middleware and to the Exchange.
	version string
	// perRequest: the request carries its revision and its client's
	// identity and capabilities in _meta (2026-07-28); no initialize,
	// ping or logging/setLevel.
	perRequest bool
}

// invalidArgsAsResult reports whether invalid arguments are answered as a
// tool execution error the model can correct (an isError result, from
// 2025-11-25 on: SEP-1303) rather than as -32602.
func (r revision) invalidArgsAsResult() bool { return r.version >= Version20251125 }

// tasksExtension reports whether a tools/call may run as a task of the
// Tasks extension (SEP-2663): only per-request revisions carry the
// client's declaration of the extension.
func (r revision) tasksExtension() bool { return r.perRequest }

// inputRequiredResult reports whether a tool's InputRequired is answered
// with an InputRequiredResult the client retries with its responses
// (SEP-2322), and a tools/call may be such a retry (inputResponses,
// requestState).
func (r revision) inputRequiredResult() bool { return r.perRequest }

// resultType reports whether results carry resultType and the server's
// identity in _meta.
func (r revision) resultType() bool { return r.perRequest }

// paramHeaders reports whether a tools/call over HTTP mirrors arguments in
// Mcp-Param headers the server checks.
func (r revision) paramHeaders() bool { return r.perRequest }

// logLevelInMeta reports whether the request carries the log level that
// applies to it in _meta; otherwise Options.LogLevel applies (a
// logging/setLevel lasts no longer than its request).
func (r revision) logLevelInMeta() bool { return r.perRequest }

// errorStatus reports whether a JSON-RPC error is also told by the HTTP
// status of its response rather than by 200.
func (r revision) errorStatus() bool { return r.perRequest }
