package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The revision rules: which revision a request is served under, what its
// _meta must hold, and how its HTTP headers must agree with its body. They
// are checked once per message, after parsing and before dispatch; the
// transport's facts are read from the Exchange once, by Handle, into the
// message's transport.

// transport is what the Exchange told Handle about one request.
type transport struct {
	version string      // the MCP-Protocol-Version header, or what stdio negotiated
	header  http.Header // nil for transports without headers (stdio, in process)
	name    string      // Exchange.Transport
	notify  func(method string, params json.RawMessage) error
	// message, if not nil, is where handleOne makes the request's
	// Message for Middleware (Exchange.message).
	message *heapMessage
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

// duplicateHeaders refuses a request that repeats an Mcp-* header: which
// value counts would be a guess.
func duplicateHeaders(h http.Header) *Error {
	for k, vs := range h {
		if len(vs) > 1 && len(k) > 4 && strings.EqualFold(k[:4], "Mcp-") {
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + shorten(k) + " header given " + strconv.Itoa(len(vs)) + " times"}
		}
	}
	return nil
}

// checkHeaders applies the 2026-07-28 Streamable HTTP rule that the
// Mcp-Method and Mcp-Name headers are present and agree with the body
// (Mcp-Name: the tool of a tools/call, the task of tasks/get, tasks/update
// and tasks/cancel, the URI of resources/read).
func checkHeaders(h http.Header, m *message) *Error {
	method, err := headerValue(h, "Mcp-Method", false)
	if err != nil {
		return err
	}
	if method != m.method {
		return mismatch("Mcp-Method", method, m.method)
	}
	var name string
	switch m.method {
	case "tools/call":
		name, _ = m.params["name"].(string)
	case "tasks/get", "tasks/update", "tasks/cancel":
		// SEP-2663: the task's ID, so that intermediaries can route.
		name, _ = m.params["taskId"].(string)
	case "resources/read":
		name, _ = m.params["uri"].(string)
	default:
		return nil
	}
	got, err := headerValue(h, "Mcp-Name", true)
	if err != nil {
		return err
	}
	if got != name {
		return mismatch("Mcp-Name", got, name)
	}
	return nil
}

func mismatch(header, got, want string) *Error {
	if got == "" {
		return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: required header " + header + " is missing"}
	}
	return &Error{Code: CodeHeaderMismatch, Message: fmt.Sprintf("Header mismatch: %s header value %s does not match body value %s",
		header, quoteName(got), quoteName(want))}
}

// headerValue returns a header's value, decoding the =?base64?...?= form
// where allowed. A value with characters HTTP does not allow is an error.
func headerValue(h http.Header, name string, encoded bool) (string, *Error) {
	v := h.Get(name)
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7E {
			return "", &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + name + " header has invalid characters"}
		}
	}
	if encoded && strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		d, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
		if err != nil {
			return "", &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + name + " header is not valid base64"}
		}
		return string(d), nil
	}
	return v, nil
}

// checkParamHeaders checks, for a 2026-07-28 tools/call over HTTP, each
// Mcp-Param-{Name} header against the argument it mirrors: present exactly
// when the argument has a non-null value, and equal to it (integers
// compared numerically). It runs after the call was authorized, so that
// the answer for a tool the caller may not use reveals nothing of its
// schema.
func (s *Server) checkParamHeaders(m *message, c *compiled, req *Request) error {
	h := m.tr.header
	if !m.rev.paramHeaders() || h == nil || len(c.headers) == 0 {
		return nil
	}
	args, _ := req.c.args.(map[string]any)
	for _, p := range c.headers {
		var v any = args
		for _, k := range p.path {
			obj, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = obj[k]
		}
		name := "Mcp-Param-" + p.header
		got, err := headerValue(h, name, true)
		if err != nil {
			return err
		}
		_, present := h[http.CanonicalHeaderKey(name)]
		if v == nil {
			if present {
				return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + name + " header given but the argument is absent"}
			}
			continue
		}
		if !present {
			return mismatch(name, "", "")
		}
		if !headerMatches(got, v) {
			return mismatch(name, got, fmt.Sprint(v))
		}
	}
	return nil
}

func headerMatches(got string, v any) bool {
	switch x := v.(type) {
	case string:
		return got == x
	case bool:
		return got == strconv.FormatBool(x)
	case float64:
		f, err := strconv.ParseFloat(got, 64)
		return err == nil && !math.IsNaN(f) && f == x
	}
	return false
}
