package mcp

import (
	"context"
	"strconv"
)

// _meta keys of protocol revision 2026-07-28.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// A ChangeNotifier reports changes of the tool list. ToolSet implements it
// for changes made in this process. Each replica of a service knows only its
// own registry: hosts whose replicas share a registry (a database, a
// configuration service) implement ChangeNotifier over that shared source
// and set it in Options.Changes, so that subscriptions/listen streams on
// every replica hear of every change.
type ChangeNotifier interface {
	// Watch calls fn after every change until stop is called.
	Watch(fn func()) (stop func())
}

// selectEra decides which revision's rules apply to m: a request whose
// _meta names a version of 2026-07-28 or later, or whose transport header
// does, is modern. It checks the modern rules that do not depend on the
// method (version supported, header agreement) and returns the error to
// answer with, if any.
func (s *Server) selectEra(ctx context.Context, m *message, hdr string) *Error {
	meta, _ := m.params["_meta"].(map[string]any)
	raw, has := meta[metaProtocolVersion]
	v, isString := raw.(string)
	switch {
	case has && !isString:
		return invalidParams("_meta %s must be a string", metaProtocolVersion)
	case has && v >= Version20260728, !has && hdr >= Version20260728:
		m.modern = true
	case has && !s.Supports(v):
		// An older or unknown version named in _meta is refused like any
		// version the server does not serve.
		if ex := exchangeFrom(ctx); ex != nil && ex.Header != nil && hdr != v {
			return mismatch("MCP-Protocol-Version", hdr, v)
		}
		return s.unsupported(v)
	default:
		return nil // legacy
	}
	if !has {
		// A request without a required _meta field is malformed: -32602
		// (basic/index, "Per-request protocol fields"), 400 on HTTP.
		return invalidParams("_meta %s is required (MCP-Protocol-Version header %q)", metaProtocolVersion, hdr)
	}
	m.version = v
	ex := exchangeFrom(ctx)
	headers := ex != nil && ex.Header != nil // stdio and in-process calls have none
	if headers && hdr != v {
		// Header and body disagree: HeaderMismatch, even when the body's
		// version is one the server does not serve.
		return mismatch("MCP-Protocol-Version", hdr, v)
	}
	if !s.Supports(v) {
		return s.unsupported(v)
	}
	c, ok := meta[metaClientCapabilities]
	if !ok {
		return invalidParams("_meta %s is required", metaClientCapabilities)
	}
	if _, isObj := c.(map[string]any); !isObj {
		return invalidParams("_meta %s must be an object", metaClientCapabilities)
	}
	if !headers {
		return nil
	}
	return s.checkHeaders(ex, m, hdr)
}

// unsupported is the UnsupportedProtocolVersionError for requested.
func (s *Server) unsupported(requested string) *Error {
	supported := make([]string, 0, len(s.opts.Versions))
	for i := len(s.opts.Versions) - 1; i >= 0; i-- {
		supported = append(supported, s.opts.Versions[i])
	}
	return &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
		Data: map[string]any{"supported": supported, "requested": requested}}
}

// modernStatus is the HTTP status of a modern error response.
func modernStatus(code int) int {
	switch code {
	case CodeUnsupportedProtocolVersion, CodeHeaderMismatch, CodeMissingClientCapability:
		return 400
	case CodeMethodNotFound:
		return 404
	}
	return 200
}

// dispatchModern runs a 2026-07-28 method. There is no initialize, ping or
// logging/setLevel in this revision.
func (s *Server) dispatchModern(ctx context.Context, caller Caller, m *message) ([]byte, error) {
	switch m.method {
	case "server/discover":
		return s.discover(), nil
	case "tools/list":
		return s.listTools(ctx, caller, m)
	case "tools/call":
		return s.callTool(ctx, caller, m)
	case "subscriptions/listen":
		return s.listen(ctx, m)
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found"}
}

// changes returns the source of tool-list changes, or nil.
func (s *Server) changes() ChangeNotifier {
	if s.opts.Changes != nil {
		return s.opts.Changes
	}
	cn, _ := s.reg.(ChangeNotifier)
	return cn
}

// discover answers server/discover: the versions served (newest first), the
// capabilities and the server's identity.
func (s *Server) discover() []byte {
	b := []byte(`{"supportedVersions":[`)
	for i := len(s.opts.Versions) - 1; i >= 0; i-- {
		b = appendString(b, s.opts.Versions[i])
		if i > 0 {
			b = append(b, ',')
		}
	}
	b = append(b, `],"capabilities":{"logging":{},"tools":{"listChanged":`...)
	b = strconv.AppendBool(b, s.changes() != nil)
	b = append(b, `}}`...)
	if s.opts.Instructions != "" {
		b = append(b, `,"instructions":`...)
		b = appendString(b, s.opts.Instructions)
	}
	b = s.appendCacheable(b)
	b = s.appendModernResult(b, false)
	return append(b, '}')
}

// appendCacheable appends the CacheableResult fields of 2026-07-28.
func (s *Server) appendCacheable(b []byte) []byte {
	b = append(b, `,"ttlMs":`...)
	b = strconv.AppendInt(b, s.opts.ListTTL.Milliseconds(), 10)
	b = append(b, `,"cacheScope":`...)
	return appendString(b, s.opts.CacheScope)
}

// appendModernResult appends resultType and, unless the result carries its
// own _meta, the server's identity.
func (s *Server) appendModernResult(b []byte, hasMeta bool) []byte {
	b = append(b, `,"resultType":"complete"`...)
	if !hasMeta {
		b = append(b, `,"_meta":{"`+metaServerInfo+`":`...)
		b = append(b, s.infoRaw...)
		b = append(b, '}')
	}
	return b
}

// withServerInfo returns res with the server's identity in its _meta (a
// copy when res has a _meta of its own).
func (s *Server) withServerInfo(res *Result) *Result {
	if len(res.Meta) == 0 {
		return res
	}
	cp := *res
	cp.Meta = make(map[string]any, len(res.Meta)+1)
	for k, v := range res.Meta {
		cp.Meta[k] = v
	}
	cp.Meta[metaServerInfo] = rawJSONValue(s.infoRaw)
	return &cp
}

// listen serves subscriptions/listen: it acknowledges the filter, then sends
// notifications/tools/list_changed on every change of the tool list until
// the client goes away (ctx is done), and answers with a completion result.
// The stream is the transport's: without one (Exchange.Notify nil) the
// request is refused.
func (s *Server) listen(ctx context.Context, m *message) ([]byte, error) {
	filter, ok := m.params["notifications"].(map[string]any)
	if !ok {
		return nil, invalidParams("notifications must be an object")
	}
	ex := exchangeFrom(ctx)
	if ex == nil || ex.Notify == nil {
		return nil, &Error{Code: CodeInvalidRequest,
			Message: "subscriptions/listen needs a streaming response: send Accept: text/event-stream"}
	}
	wantTools, _ := filter["toolsListChanged"].(bool)
	cn := s.changes()
	wantTools = wantTools && cn != nil
	subMeta := []byte(`{"` + metaSubscriptionID + `":`)
	subMeta = append(subMeta, m.id...)
	subMeta = append(subMeta, '}')

	// Watch before acknowledging, so that no change after the
	// acknowledgement can be missed.
	var changed chan struct{}
	if wantTools {
		changed = make(chan struct{}, 1)
		stop := cn.Watch(func() {
			select {
			case changed <- struct{}{}:
			default: // a notification is already pending
			}
		})
		defer stop()
	}
	ack := []byte(`{"_meta":`)
	ack = append(ack, subMeta...)
	ack = append(ack, `,"notifications":{`...)
	if wantTools {
		ack = append(ack, `"toolsListChanged":true`...)
	}
	ack = append(ack, "}}"...)
	if err := ex.Notify("notifications/subscriptions/acknowledged", ack); err != nil {
		return nil, err
	}
	if wantTools {
		note := append(append([]byte(`{"_meta":`), subMeta...), '}')
	loop:
		for {
			select {
			case <-ctx.Done():
				break loop
			case <-changed:
				if err := ex.Notify("notifications/tools/list_changed", note); err != nil {
					break loop
				}
			}
		}
	} else {
		<-ctx.Done()
	}
	b := []byte(`{"resultType":"complete","_meta":`)
	b = append(b, subMeta[:len(subMeta)-1]...)
	b = append(b, `,"`+metaServerInfo+`":`...)
	b = append(b, s.infoRaw...)
	return append(b, "}}"...), nil
}
