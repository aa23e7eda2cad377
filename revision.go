package mcp

import (
	"encoding/json"
	"net/http"
	"slices"
)

// The revision rules: which revision a request is served under, what its
// _meta must hold and what the revision changes; how its HTTP headers must
// agree with its body is in headers.go. They are checked once per message, after parsing and before dispatch; the
// transport's facts are read from the Exchange once, by Handle, into the
// message's transport.

// transport is what the Exchange told Handle about one request.
type transport struct {
	version string      // the MCP-Protocol-Version header, or what stdio negotiated
	header  http.Header // nil for transports without headers (stdio, in process)
	name    string      // Exchange.Transport
	remote  string      // Exchange.HTTPRequest.RemoteAddr, for httpCalls
	// logLevel is Exchange.logLevel: a stdio connection's logging/setLevel.
	logLevel LogLevel
	notify   func(method string, params json.RawMessage) error
}

// _meta keys of protocol revision 2026-07-28.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// selectRevision decides which revision's rules apply to m and checks the
// rules that do not depend on the method. It sets m.rev and m.meta, or
// returns the error to answer with (always with 400).
//
// A request is served under the per-request revision (2026-07-28) when its
// transport says so (MCP-Protocol-Version header) or its _meta names that
// revision; from then on the header and _meta must agree. Otherwise the
// transport's version applies, 2025-03-26 when it names none.
func (s *Server) selectRevision(m *message) *Error {
	tr := m.tr
	if tr.header != nil {
		if rpc := duplicateHeaders(tr.header); rpc != nil {
			return rpc
		}
	}
	hdr := tr.version
	if hdr != "" && !s.serves(hdr) {
		if m.method != "initialize" {
			return s.unsupported(hdr)
		}
		hdr = "" // initialize: the body's protocolVersion is what counts
	}
	if raw, has := m.params["_meta"]; has {
		meta, ok := raw.(map[string]any)
		if !ok {
			return invalidParams("_meta must be an object, got %s", jsonTypeName(raw))
		}
		m.meta = meta
	}
	if rpc := checkMeta(m.meta); rpc != nil {
		return rpc
	}
	raw, has := m.meta[metaProtocolVersion]
	v, _ := raw.(string) // checkMeta checked it is a string
	if hdr < Version20260728 && !(has && v >= Version20260728) {
		// A handshake revision (initialize): the transport says which.
		m.rev.version = hdr
		if m.rev.version == "" {
			m.rev.version = Version20250326
		}
		if has && !s.serves(v) {
			// An older or unknown version named in _meta is refused like
			// any version the server does not serve.
			if tr.header != nil && hdr != v {
				return mismatch("MCP-Protocol-Version", hdr, v)
			}
			return s.unsupported(v)
		}
		return nil
	}
	m.rev.perRequest = true
	if !has {
		// A request without a required _meta field is malformed: -32602
		// (basic/index, "Per-request protocol fields"), 400 on HTTP.
		m.rev.version = hdr
		return invalidParams("_meta %s is required (MCP-Protocol-Version header %q)", metaProtocolVersion, hdr)
	}
	m.rev.version = v
	if tr.header != nil && hdr != v {
		// Header and body disagree: HeaderMismatch, even when the body's
		// version is one the server does not serve.
		return mismatch("MCP-Protocol-Version", hdr, v)
	}
	if !s.serves(v) {
		return s.unsupported(v)
	}
	c, ok := m.meta[metaClientCapabilities]
	if !ok {
		return invalidParams("_meta %s is required", metaClientCapabilities)
	}
	if _, isObj := c.(map[string]any); !isObj {
		return invalidParams("_meta %s must be an object, got %s", metaClientCapabilities, jsonTypeName(c))
	}
	if tr.header == nil { // stdio and in-process calls have no headers
		return nil
	}
	return checkHeaders(tr.header, m)
}

// checkMeta checks the _meta fields whose type the specification fixes, in
// every revision: a malformed one refuses the request.
func checkMeta(meta map[string]any) *Error {
	if raw, has := meta[metaProtocolVersion]; has {
		if _, ok := raw.(string); !ok {
			return invalidParams("_meta %s must be a string, got %s", metaProtocolVersion, jsonTypeName(raw))
		}
	}
	if raw, has := meta[metaLogLevel]; has {
		if l, ok := raw.(string); !ok || !LogLevel(l).Valid() {
			return invalidParams("_meta %s must be one of debug, info, notice, warning, error, critical, alert, emergency", metaLogLevel)
		}
	}
	if raw, has := meta["progressToken"]; has {
		switch raw.(type) {
		case string, float64:
		default:
			return invalidParams("_meta progressToken must be a string or a number, got %s", jsonTypeName(raw))
		}
	}
	return nil
}

// serves reports whether version is served.
func (s *Server) serves(version string) bool { return slices.Contains(s.versions, version) }

// unsupported is the UnsupportedProtocolVersionError for requested.
func (s *Server) unsupported(requested string) *Error {
	supported := make([]string, 0, len(s.versions))
	for i := len(s.versions) - 1; i >= 0; i-- {
		supported = append(supported, s.versions[i])
	}
	return &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
		Data: map[string]any{"supported": supported, "requested": shorten(requested)}}
}

// perRequestStatus is the HTTP status of an error response under 2026-07-28
// (and of a version or header error under any revision).
func perRequestStatus(code int) int {
	switch code {
	case CodeUnsupportedProtocolVersion, CodeHeaderMismatch, CodeMissingClientCapability:
		return http.StatusBadRequest
	case CodeMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusOK
}

// revision is the protocol revision a request is served under, chosen
// once per request by selectRevision, before dispatch: what the
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
