package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// A Protocol serves MCP over any transport: it takes one request body and
// answers an HTTP-ready status and body, mirroring nsmcp's Protocol. Server
// is the default implementation; framework authors wrap or replace it (see
// the example of picking a tenant's Server from a header). The Handler and
// ServeStdio use nothing but this interface.
type Protocol interface {
	// Handle parses and answers one JSON-RPC body (one message, or a batch
	// under 2025-03-26 rules) sent by caller. The transport's facts (the
	// protocol version it was told, its headers, where notifications go)
	// come in ctx as an Exchange (ExchangeFromContext).
	//
	// It returns 200 with a response; 202 with no body for notifications
	// and client responses; 400 with a JSON-RPC error for bodies that are
	// not acceptable requests (parse errors, invalid requests, a protocol
	// version not served, revision rules broken: malformed _meta, header
	// mismatch); under 2026-07-28, 404 for unknown methods; 503 when a
	// server limit refused the request (-32001, CodeLimitExceeded: the
	// Handler adds Retry-After); 500 when the server itself failed.
	Handle(ctx context.Context, caller Caller, body []byte) (status int, response []byte)
	// Versions returns the protocol revisions served, oldest first.
	Versions() []string
}

// The protocol revisions this package implements.
const (
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"
)

// implemented are the revisions this package implements, oldest first.
var implemented = [...]string{Version20250326, Version20250618, Version20251125, Version20260728}

// Options configure a Server. The zero value is usable. A value that means
// nothing (an unknown protocol revision, log level or cache scope) is not
// silently replaced by a default: the Server logs the error when it is made
// and refuses every request with 500 until it is fixed.
type Options struct {
	// Name, Title and Version identify the server (serverInfo). Defaults:
	// "embedmcp", no title, "0.0.0".
	Name, Title, Version string
	// Instructions are optional guidance for the model.
	Instructions string
	// Versions are the protocol revisions served (Version20250326, ...).
	// Default: all four this package implements.
	Versions []string
	// Limits bound the JSON parser. Zero fields take DefaultLimits().
	Limits Limits
	// PageSize is the number of tools per tools/list page, and of views
	// per resources/list page; 0 returns all permitted ones in one page.
	PageSize int
	// Logger receives one record per request (method, tool, principal,
	// duration, outcome; never argument values) at level Info, denied
	// calls at Warn, and internal errors and tool panics (with the stack)
	// at Error. Nil discards.
	Logger *slog.Logger
	// LogLevel is the least severe level of notifications/message sent to
	// clients that name none on the request (before 2026-07-28; from then
	// on, a request without a level gets no log messages). Default info.
	LogLevel LogLevel
	// MaxResultBytes caps the encoded size of one tools/call result; a
	// larger result becomes an isError result saying so. Default 4 MiB;
	// negative means no cap.
	MaxResultBytes int
	// CallTimeout, when positive, is the deadline of each tools/call
	// answered at once; a task's tool runs until its task's time to live
	// (TaskOptions.TTL).
	CallTimeout time.Duration
	// Batch bounds 2025-03-26 batches: the size of the whole response, one
	// deadline for all its requests, how many run at once (see
	// BatchLimits).
	Batch BatchLimits
	// ListTTL and CacheScope ("private" or "public") are the caching hints
	// of 2026-07-28 list and discover results. Defaults: 0 ms and
	// "private".
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
	// Views is the source of the MCP Apps views the tools name
	// (ToolInfo.View), served with resources/list and resources/read once
	// one is registered. Default: the Registry, if it is a ViewRegistry
	// (ToolSet is).
	Views ViewRegistry
	// Middleware wraps the answering of every request, whatever its
	// method, the first outermost (see Middleware): tracing, metrics,
	// limits across methods.
	Middleware []Middleware
	// ToolMiddleware wraps every tools/call, the first outermost (see
	// ToolMiddleware): what only concerns running tools.
	ToolMiddleware []ToolMiddleware
	// Tasks configure the Tasks extension (io.modelcontextprotocol/tasks):
	// where tasks are kept, how long, and their leases. Tools opt in with
	// ToolInfo.TaskSupport.
	Tasks TaskOptions
}

// Server is the default Protocol: it serves a Registry's tools to callers
// an Authorizer admits. It holds no per-client state: any replica can answer
// any request. It is safe for concurrent use.
type Server struct {
	reg               Registry
	az                Authorizer
	opts              Options
	logger            *slog.Logger
	versions          []string // served, oldest first
	handshakeVersions []string // served versions that use initialize, oldest first
	servesPerRequest  bool     // 2026-07-28 served
	maxRes            int
	limits            Limits
	infoRaw           []byte // serverInfo object
	configErr         error  // Options that mean nothing; every request is refused

	tools     toolCache
	toolChain ToolHandler    // Options.ToolMiddleware around run; nil without
	chain     MessageHandler // Options.Middleware around answer; nil without
	sealer    *stateSealer
	sealerErr error
	tasks     *taskEngine // nil when Options.Tasks.Disabled
	httpCalls httpCalls   // tools/call over HTTP a notifications/cancelled may stop

	// batches holds a slot per batch being built
	// (BatchLimits.MaxConcurrentBatches); nil: no bound.
	batches chan struct{}
}

// NewServer returns a Server for reg and az. A nil az denies everything,
// so that forgetting it fails closed; a nil reg is an empty ToolSet. opts
// may be nil. Options that mean nothing are logged and reported by
// Server.Err, and the Server refuses every request.
func NewServer(reg Registry, az Authorizer, opts *Options) *Server {
	s := &Server{reg: reg, az: az}
	if opts != nil {
		s.opts = *opts
	}
	if s.az == nil {
		s.az = denyAll{}
	}
	if s.reg == nil {
		s.reg = NewToolSet()
	}
	o := &s.opts
	if o.Name == "" {
		o.Name = "embedmcp"
	}
	if o.Version == "" {
		o.Version = "0.0.0"
	}
	s.logger = o.Logger
	if s.logger == nil {
		s.logger = discardLogger
	}
	s.versions, s.configErr = servedVersions(o.Versions)
	for _, v := range s.versions {
		if v >= Version20260728 {
			s.servesPerRequest = true
		} else {
			s.handshakeVersions = append(s.handshakeVersions, v)
		}
	}
	switch {
	case o.LogLevel == "":
		o.LogLevel = LevelInfo
	case !o.LogLevel.Valid():
		s.configErr = fmt.Errorf("mcp: Options.LogLevel %q is not an MCP log level", o.LogLevel)
	}
	switch o.CacheScope {
	case "":
		o.CacheScope = "private"
	case "private", "public":
	default:
		s.configErr = fmt.Errorf("mcp: Options.CacheScope %q is neither \"private\" nor \"public\"", o.CacheScope)
	}
	if !o.Tasks.Disabled {
		var err error
		if s.tasks, err = newTaskEngine(o.Tasks, s.logger); err != nil && s.configErr == nil {
			s.configErr = err
		}
	}
	if s.configErr != nil {
		s.logger.LogAttrs(context.Background(), slog.LevelError, "mcp: invalid Options; every request will be refused",
			slog.String("error", s.configErr.Error()))
	}
	s.maxRes = o.MaxResultBytes
	if s.maxRes == 0 {
		s.maxRes = 4 << 20
	}
	s.limits = o.Limits.orDefault()
	s.batches = newBatchSlots(o.Batch.MaxConcurrentBatches)
	s.toolChain = chainTools(o.ToolMiddleware, s.run)
	s.chain = chainMessages(o.Middleware, func(ctx context.Context, msg *Message) Outcome { return s.answer(ctx, msg.m) })
	s.sealer, s.sealerErr = newStateSealer(o.StateKey, o.StateTTL, nil)
	s.infoRaw = appendImplementation(nil, o.Name, o.Title, o.Version)
	return s
}

// Err reports the Options that mean nothing (an unknown revision in
// Versions, a LogLevel or CacheScope outside its values, a bad Tasks
// configuration), nil when there is none. A Server with such options
// refuses every request with 500 and logs why; a host that would rather
// not start checks Err once, after NewServer:
//
//	server := mcp.NewServer(ts, az, opts)
//	if err := server.Err(); err != nil {
//		log.Fatal(err)
//	}
func (s *Server) Err() error { return s.configErr }

// servedVersions checks want against the implemented revisions and returns
// them sorted; all of them when want is empty.
func servedVersions(want []string) ([]string, error) {
	if len(want) == 0 {
		return implemented[:], nil
	}
	var out []string
	for _, v := range implemented {
		if slices.Contains(want, v) {
			out = append(out, v)
		}
	}
	for _, v := range want {
		if !slices.Contains(implemented[:], v) {
			return out, fmt.Errorf("mcp: Options.Versions names %q, which is not a revision this package implements (%s)",
				shorten(v), strings.Join(implemented[:], ", "))
		}
	}
	return out, nil
}

// Versions implements Protocol.
func (s *Server) Versions() []string { return slices.Clone(s.versions) }

// Handle implements Protocol.
func (s *Server) Handle(ctx context.Context, caller Caller, body []byte) (status int, response []byte) {
	defer func() {
		// Tools' panics are recovered where they run; this is the last
		// line for everything else (a panicking Authorizer, Registry or
		// transport hook), so that nothing panics across the API boundary.
		if r := recover(); r != nil {
			s.logger.LogAttrs(ctx, slog.LevelError, "mcp: panic while handling a request",
				slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			status, response = http.StatusInternalServerError, appendError(nil, nil, CodeInternalError, "Internal error", nil)
		}
	}()
	if s.configErr != nil {
		return http.StatusInternalServerError, appendError(nil, nil, CodeInternalError,
			"Internal error: the server's options are invalid (see its log)", nil)
	}
	// The transport's facts are read once, here; everything after reads
	// them from the message.
	var tr transport
	ex := ExchangeFromContext(ctx)
	if ex != nil {
		tr = transport{version: ex.ProtocolVersion, header: ex.Header, name: ex.Transport, notify: ex.Notify, logLevel: ex.logLevel}
		if ex.HTTPRequest != nil {
			tr.remote = ex.HTTPRequest.RemoteAddr
		}
	}
	if isBatch(body) {
		btr := tr // a batch's elements run concurrently: their copy lives on the heap, not tr
		return s.handleBatch(ctx, caller, body, &btr, ex)
	}
	status, resp, _ := s.handleOne(ctx, caller, body, &tr)
	return status, resp
}

// isBatch reports whether body's first non-space byte opens an array.
func isBatch(body []byte) bool {
	for _, c := range body {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '['
	}
	return false
}

// handleOne answers one message; note reports that there is no response.
func (s *Server) handleOne(ctx context.Context, caller Caller, body []byte, tr *transport) (status int, resp []byte, note bool) {
	var start time.Time // read only when the request is logged
	if s.logger.Enabled(ctx, slog.LevelInfo) {
		start = time.Now()
	}
	p := envelopeParser(s.limits)
	defer p.Release()
	v, err := p.Parse(body)
	if err != nil {
		status, resp = parseFailure(err)
		return status, resp, false
	}
	// Without Middleware the message stays on the stack; with it, it is
	// made on the heap with the Message they see, in one allocation.
	var msg message
	m := &msg
	var hm *heapMessage
	if s.chain != nil {
		hm = new(heapMessage)
		defer hm.release()
		m = &hm.m
	}
	m.caller, m.tr = caller, *tr
	if !checkEnvelope(v, &p, m) {
		if isResponse(v) {
			return http.StatusAccepted, nil, true
		}
		return http.StatusBadRequest, appendError(nil, nil, CodeInvalidRequest, "Invalid request", nil), false
	}
	if m.id == nil {
		// Notifications cannot invoke tools; nothing runs for them. A
		// cancellation over HTTP stops the call it names (httpCalls).
		if m.method == "notifications/cancelled" && m.tr.name == TransportHTTP {
			s.httpCalls.cancel(m)
		}
		s.logRequest(ctx, m, start, "notification")
		return http.StatusAccepted, nil, true
	}
	if rpc := s.selectRevision(m); rpc != nil {
		s.logRequest(ctx, m, start, "error", slog.Int("code", rpc.Code))
		return http.StatusBadRequest, appendErr(make([]byte, 0, 128), m.id, rpc), false
	}
	if m.method == "tools/call" && !m.rev.perRequest && m.tr.name == TransportHTTP {
		var done func()
		ctx, done = s.httpCalls.track(ctx, m)
		defer done()
	}
	var out Outcome
	if s.chain != nil {
		out = s.answerWithMiddleware(ctx, hm)
	} else {
		out = s.answer(ctx, m)
	}
	if out.Err == nil && out.response == nil {
		out.Err = &Error{Code: CodeInternalError, Message: "Internal error"}
		s.logger.LogAttrs(ctx, slog.LevelError, "mcp: a Middleware returned neither a response nor an error")
	}
	if rpc := out.Err; rpc != nil {
		s.logRequest(ctx, m, start, "error", slog.Int("code", rpc.Code))
		status := http.StatusOK
		if m.rev.errorStatus() || rpc.Code == CodeUnsupportedProtocolVersion || rpc.Code == CodeHeaderMismatch {
			status = perRequestStatus(rpc.Code)
		}
		if rpc.Code == CodeLimitExceeded {
			status = http.StatusServiceUnavailable // a server limit: the Handler adds Retry-After
		}
		if out.panicked {
			status = http.StatusInternalServerError
		}
		return status, appendErr(make([]byte, 0, 128), m.id, rpc), false
	}
	s.logRequest(ctx, m, start, "ok")
	return http.StatusOK, out.response, false
}

// checkEnvelope checks a parsed body is a JSON-RPC 2.0 request or
// notification: jsonrpc "2.0", a string method, a string or number id when
// present, an object params when present.
func checkEnvelope(v any, p *boundedjson.Parser, m *message) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if obj["jsonrpc"] != "2.0" {
		return false
	}
	m.argsRaw = p.Captured[capturedArguments]
	m.progressRaw = p.Captured[capturedProgressToken]
	if id, has := obj["id"]; has {
		switch id.(type) {
		case string, float64:
			m.id = p.Captured[capturedID]
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

func (s *Server) logRequest(ctx context.Context, m *message, start time.Time, outcome string, extra ...slog.Attr) {
	if !s.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	var d time.Duration
	if !start.IsZero() { // zero: the level changed while the request ran
		d = time.Since(start)
	}
	attrs := append([]slog.Attr{
		slog.String("method", m.method),
		slog.String("principal", m.caller.Principal),
		slog.Duration("duration", d),
		slog.String("outcome", outcome),
	}, extra...)
	if m.method == "tools/call" {
		if name, ok := m.params["name"].(string); ok {
			attrs = append(attrs, slog.String("tool", shorten(name)))
		}
	}
	s.logger.LogAttrs(ctx, slog.LevelInfo, "mcp request", attrs...)
}
