package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// A Protocol serves MCP over any transport: it takes one request body and
// answers an HTTP-ready status and body, mirroring nsmcp::Protocol. Server
// is the default implementation; framework authors can wrap or replace it.
type Protocol interface {
	// Handle parses and answers one JSON-RPC body (one message, or a batch
	// under 2025-03-26 rules). It returns 200 with a response, 202 with no
	// body for notifications, or 400 with a JSON-RPC error for bodies that
	// are not acceptable requests. The transport's facts (protocol version
	// header, notification stream) come in ctx (ContextWithExchange).
	Handle(ctx context.Context, caller Caller, body []byte) (status int, response []byte)
	// Dispatch runs one method with its params (a JSON object, or nil) and
	// returns the encoded result, or an error (an *Error carries the
	// JSON-RPC code; anything else is an internal error).
	Dispatch(ctx context.Context, caller Caller, method string, params json.RawMessage) (json.RawMessage, error)
	// Supports reports whether version is a protocol revision served.
	Supports(version string) bool
}

// The protocol revisions this package implements.
const (
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Name, Title and Version identify the server (serverInfo). Defaults:
	// "embedmcp", no title, "0.0.0".
	Name, Title, Version string
	// Instructions are optional guidance for the model.
	Instructions string
	// Versions are the protocol revisions served. Default: all four this
	// package implements. Revisions it does not implement are ignored;
	// Server.Versions reports what is served.
	Versions []string
	// Limits bound the JSON parser. Zero fields take DefaultLimits.
	Limits Limits
	// PageSize is the number of tools per tools/list page; 0 returns all
	// permitted tools in one page.
	PageSize int
	// Logger receives one record per request (method, tool, principal,
	// duration, outcome; never argument values) at level Info, and internal
	// errors at level Error. Nil discards.
	Logger *slog.Logger
	// LogLevel is the least severe level of notifications/message sent to
	// clients that name none on the request (before 2026-07-28; from then
	// on, a request without a level gets no log messages). Default info.
	LogLevel LogLevel
	// MaxResultBytes caps the encoded size of one tools/call result; a
	// larger result becomes an isError result saying so. Default 4 MiB;
	// negative means no cap.
	MaxResultBytes int
	// CallTimeout, when positive, is the deadline of each tools/call.
	CallTimeout time.Duration
	// ListTTL and CacheScope are the caching hints of 2026-07-28 list and
	// discover results. Defaults: 0 ms and "private".
	ListTTL    time.Duration
	CacheScope string
	// StateKey is the secret that seals the requestState of multi
	// round-trip tool calls (2026-07-28, see InputRequired). Replicas that
	// share a load balancer must share it; nil means a random key per
	// Server, so a retry must reach the same process.
	StateKey []byte
	// StateTTL is how long a sealed requestState stays valid. Default 10
	// minutes.
	StateTTL time.Duration
	// Changes is the source of tool-list changes for subscriptions/listen.
	// Default: the Registry, if it is a ChangeNotifier (ToolSet is).
	Changes ChangeNotifier
}

// Server is the default Protocol: it serves a Registry's tools to callers
// an Authorizer admits. It holds no per-client state: any replica can answer
// any request. It is safe for concurrent use.
type Server struct {
	reg     Registry
	az      Authorizer
	opts    Options
	logger  *slog.Logger
	legacy  []string // served versions that use initialize, oldest first
	modern  bool     // 2026-07-28 served
	maxRes  int
	limits  Limits
	infoRaw []byte // serverInfo object

	headerCache sync.Map // *ToolInfo → []headerParam
	sealer      *stateSealer
	sealerErr   error
}

// NewServer returns a Server for reg and az. A nil az is DenyAll, so that
// forgetting it fails closed. opts may be nil.
func NewServer(reg Registry, az Authorizer, opts *Options) *Server {
	s := &Server{reg: reg, az: az}
	if opts != nil {
		s.opts = *opts
	}
	if s.az == nil {
		s.az = DenyAll
	}
	if s.reg == nil {
		s.reg = NewToolSet(nil)
	}
	o := &s.opts
	if o.Name == "" {
		o.Name = "embedmcp"
	}
	if o.Version == "" {
		o.Version = "0.0.0"
	}
	o.Versions = servedVersions(o.Versions)
	for _, v := range o.Versions {
		if v >= Version20260728 {
			s.modern = true
		} else {
			s.legacy = append(s.legacy, v)
		}
	}
	if !o.LogLevel.Valid() {
		o.LogLevel = LevelInfo
	}
	if o.CacheScope != "public" {
		o.CacheScope = "private"
	}
	s.logger = o.Logger
	if s.logger == nil {
		s.logger = discardLogger
	}
	s.maxRes = o.MaxResultBytes
	if s.maxRes == 0 {
		s.maxRes = 4 << 20
	}
	s.limits = o.Limits.orDefault()
	s.sealer, s.sealerErr = newStateSealer(o.StateKey, o.StateTTL)
	b := []byte(`{"name":`)
	b = appendString(b, o.Name)
	if o.Title != "" {
		b = append(b, `,"title":`...)
		b = appendString(b, o.Title)
	}
	b = append(b, `,"version":`...)
	b = appendString(b, o.Version)
	s.infoRaw = append(b, '}')
	return s
}

// implemented are the revisions this package implements, oldest first.
var implemented = []string{Version20250326, Version20250618, Version20251125, Version20260728}

// servedVersions keeps the implemented revisions of want, sorted; all of
// them when want names none.
func servedVersions(want []string) []string {
	var out []string
	for _, v := range implemented {
		if slices.Contains(want, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return slices.Clone(implemented)
	}
	return out
}

// Supports implements Protocol.
func (s *Server) Supports(version string) bool { return slices.Contains(s.opts.Versions, version) }

// Versions returns the protocol revisions served, oldest first.
func (s *Server) Versions() []string { return slices.Clone(s.opts.Versions) }

// message is one parsed JSON-RPC request or notification.
type message struct {
	id      []byte // raw id; nil for a notification
	method  string
	params  map[string]any
	argsRaw []byte
	version string // the revision whose rules apply
	modern  bool   // 2026-07-28 era
	// complete: dispatch returned the whole response, not just the result.
	complete bool
}

// Handle implements Protocol.
func (s *Server) Handle(ctx context.Context, caller Caller, body []byte) (status int, response []byte) {
	defer func() {
		// Tools' panics are recovered by the Registry; this is the last
		// line for everything else (a panicking Authorizer, Registry or
		// transport hook), so that nothing panics across the API boundary.
		if r := recover(); r != nil {
			s.logger.LogAttrs(ctx, slog.LevelError, "mcp: panic while handling a request",
				slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			status, response = http.StatusInternalServerError, appendError(nil, nil, CodeInternalError, "Internal error", nil)
		}
	}()
	hdr := ""
	if ex := exchangeFrom(ctx); ex != nil {
		hdr = ex.ProtocolVersion
	}
	for _, c := range body {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if c == '[' {
			if hdr == "" || hdr == Version20250326 {
				return s.handleBatch(ctx, caller, body, hdr)
			}
			return http.StatusBadRequest, appendError(nil, nil, CodeInvalidRequest, "Invalid request", nil)
		}
		break
	}
	status, resp, _ := s.handleOne(ctx, caller, body, hdr)
	return status, resp
}

// handleBatch answers a 2025-03-26 batch: one response per request, none for
// notifications, 202 when there are only notifications.
func (s *Server) handleBatch(ctx context.Context, caller Caller, body []byte, hdr string) (int, []byte) {
	p := parser{data: body, lim: s.limits, batch: true}
	v, err := p.document()
	if err != nil {
		return s.parseFailure(err)
	}
	if len(v.([]any)) == 0 {
		return http.StatusBadRequest, appendError(nil, nil, CodeInvalidRequest, "Invalid request", nil)
	}
	out := []byte{'['}
	n := 0
	for _, el := range p.elems {
		_, resp, isNote := s.handleOne(ctx, caller, el, hdr)
		if isNote {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, resp...)
		n++
	}
	if n == 0 {
		return http.StatusAccepted, nil
	}
	return http.StatusOK, append(out, ']')
}

func (s *Server) parseFailure(err error) (int, []byte) {
	if errors.Is(err, errDuplicateMember) {
		return http.StatusBadRequest, appendError(nil, nil, CodeInvalidRequest, "Invalid request", nil)
	}
	return http.StatusBadRequest, appendError(nil, nil, CodeParseError, "Parse error", nil)
}

// handleOne answers one message; note reports that there is no response.
func (s *Server) handleOne(ctx context.Context, caller Caller, body []byte, hdr string) (status int, resp []byte, note bool) {
	start := time.Now()
	p := parser{data: body, lim: s.limits, envelope: true}
	defer p.release()
	v, err := p.document()
	if err != nil {
		status, resp = s.parseFailure(err)
		return status, resp, false
	}
	var msg message
	m := &msg
	if !checkEnvelope(v, &p, m) {
		if isResponse(v) {
			return http.StatusAccepted, nil, true
		}
		return http.StatusBadRequest, appendError(nil, nil, CodeInvalidRequest, "Invalid request", nil), false
	}
	if m.id == nil {
		// Notifications cannot invoke tools; nothing runs for them.
		s.logRequest(ctx, caller, m, "", start, "notification")
		return http.StatusAccepted, nil, true
	}
	m.version = hdr
	if m.version == "" {
		m.version = Version20250326
	} else if !s.Supports(hdr) {
		rpc := s.unsupported(hdr)
		s.logRequest(ctx, caller, m, "", start, "error", slog.Int("code", rpc.Code))
		return http.StatusBadRequest, appendError(nil, m.id, rpc.Code, rpc.Message, rpc.Data), false
	}
	var res []byte
	eraErr := s.selectEra(ctx, m, hdr)
	if eraErr != nil {
		err = eraErr
	} else if m.modern {
		res, err = s.dispatchModern(ctx, caller, m)
	} else {
		res, err = s.dispatch(ctx, caller, m)
	}
	tool := ""
	if m.method == "tools/call" {
		tool, _ = m.params["name"].(string)
	}
	if err != nil {
		rpc := s.rpcError(ctx, err)
		s.logRequest(ctx, caller, m, tool, start, "error", slog.Int("code", rpc.Code))
		status := http.StatusOK
		switch {
		case eraErr != nil && m.modern:
			// Malformed _meta, header mismatch, unsupported version:
			// all 400 under 2026-07-28.
			status = http.StatusBadRequest
		case m.modern || rpc.Code == CodeUnsupportedProtocolVersion || rpc.Code == CodeHeaderMismatch:
			status = modernStatus(rpc.Code)
		}
		return status, appendError(make([]byte, 0, 128), m.id, rpc.Code, rpc.Message, rpc.Data), false
	}
	s.logRequest(ctx, caller, m, tool, start, "ok")
	if m.complete {
		return http.StatusOK, res, false
	}
	b := make([]byte, 0, len(res)+48+len(m.id))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, m.id...)
	b = append(b, `,"result":`...)
	b = append(b, res...)
	return http.StatusOK, append(b, '}'), false
}

// checkEnvelope checks a parsed body is a JSON-RPC 2.0 request or
// notification: jsonrpc "2.0", a string method, a string or number id when
// present, an object params when present.
func checkEnvelope(v any, p *parser, m *message) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if obj["jsonrpc"] != "2.0" {
		return false
	}
	m.argsRaw = p.argsRaw
	if id, has := obj["id"]; has {
		switch id.(type) {
		case string, float64:
			m.id = p.idRaw
		default:
			return false
		}
	}
	if m.method, ok = obj["method"].(string); !ok {
		return false
	}
	if params, has := obj["params"]; has {
		if m.params, ok = params.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// isResponse reports whether v is a JSON-RPC response (a client answering a
// request). A stateless server never sent one, so it only acknowledges it.
func isResponse(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok || obj["jsonrpc"] != "2.0" {
		return false
	}
	if _, has := obj["method"]; has {
		return false
	}
	switch obj["id"].(type) {
	case string, float64:
	default:
		return false
	}
	_, r := obj["result"]
	_, e := obj["error"]
	return r != e
}

func (s *Server) logRequest(ctx context.Context, c Caller, m *message, tool string, start time.Time, outcome string, extra ...slog.Attr) {
	if !s.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	attrs := append([]slog.Attr{
		slog.String("method", m.method),
		slog.String("principal", c.Principal),
		slog.Duration("duration", time.Since(start)),
		slog.String("outcome", outcome),
	}, extra...)
	if tool != "" {
		attrs = append(attrs, slog.String("tool", tool))
	}
	s.logger.LogAttrs(ctx, slog.LevelInfo, "mcp request", attrs...)
}

// rpcError maps an error from dispatch to the JSON-RPC error sent.
func (s *Server) rpcError(ctx context.Context, err error) *Error {
	var rpc *Error
	var ae *ArgumentError
	switch {
	case errors.As(err, &rpc):
		return rpc
	case errors.As(err, &ae):
		return &Error{Code: CodeInvalidParams, Message: ae.Error()}
	case errors.Is(err, ErrUnknownTool):
		return &Error{Code: CodeInvalidParams, Message: "Unknown tool: " + unknownName(err)}
	}
	s.logger.LogAttrs(ctx, slog.LevelError, "mcp: internal error", slog.String("error", err.Error()))
	return &Error{Code: CodeInternalError, Message: "Internal error"}
}

// unknownName extracts the tool name from an ErrUnknownTool error.
func unknownName(err error) string {
	msg := err.Error()
	prefix := ErrUnknownTool.Error() + ": "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		return msg[len(prefix):]
	}
	return msg
}

// Dispatch implements Protocol. The request is treated as made under the
// Exchange's protocol version in ctx, or 2025-03-26 rules without one.
func (s *Server) Dispatch(ctx context.Context, caller Caller, method string, params json.RawMessage) (json.RawMessage, error) {
	m := &message{method: method, version: Version20250326}
	hdr := ""
	if ex := exchangeFrom(ctx); ex != nil && ex.ProtocolVersion != "" {
		hdr = ex.ProtocolVersion
		m.version = hdr
	}
	if len(params) > 0 && string(params) != "null" {
		p := parser{data: params, lim: s.limits, params: true}
		v, err := p.document()
		if err != nil {
			return nil, &Error{Code: CodeInvalidParams, Message: "Invalid params: " + err.Error()}
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, &Error{Code: CodeInvalidParams, Message: "Invalid params: params must be an object"}
		}
		m.params, m.argsRaw = obj, p.argsRaw
	}
	var res []byte
	var err error
	if rpc := s.selectEra(ctx, m, hdr); rpc != nil {
		err = rpc
	} else if m.modern {
		res, err = s.dispatchModern(ctx, caller, m)
	} else {
		res, err = s.dispatch(ctx, caller, m)
	}
	if err != nil {
		return nil, s.rpcError(ctx, err)
	}
	return res, nil
}
