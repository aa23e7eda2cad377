package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxBodyBytes is the default limit of a request body.
const DefaultMaxBodyBytes = 4 << 20

// HandlerOptions configure a Handler. The zero value is usable: anonymous
// callers, a 4 MiB body limit and 30 seconds to send it, at most 1 000
// subscriptions/listen streams of 10 minutes each, browser origins limited
// to same-origin and loopback, and DNS-rebinding protection on loopback
// listeners.
type HandlerOptions struct {
	// Authenticator turns each request into the Caller served. Nil admits
	// every request as the zero Caller (anonymous, no grants), leaving all
	// decisions to the Protocol's Authorizer.
	Authenticator Authenticator
	// MaxBodyBytes limits the request body; a larger body is answered with
	// 413. Zero or negative means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// AllowedOrigins are the browser origins ("https://app.example.com",
	// scheme://host[:port], no path) allowed besides same-origin requests
	// and loopback origins (http or https on localhost, 127.0.0.0/8, [::1],
	// any port). A request whose Origin header is none of these is answered
	// with 403. "*" allows every origin. Allowed cross-origin requests get
	// CORS headers, and their preflight requests are answered.
	AllowedOrigins []string
	// AllowedHosts are the Host names (without port) accepted on requests
	// that arrive on a loopback address, besides the loopback names
	// (localhost, 127.0.0.1, [::1]). Any other Host is answered with 403:
	// it is how DNS rebinding reaches local servers. Set it when a reverse
	// proxy on the same machine forwards requests with the public host name.
	// A name may be a label wildcard: "*.example.com" accepts
	// "api.example.com" (one label in front), neither "example.com" nor
	// "a.b.example.com" nor "evilexample.com"; the "*" is the whole first
	// label, over at least two others. "*" turns the check off.
	AllowedHosts []string
	// ResourceMetadataURL is the URL of this server's RFC 9728 protected
	// resource metadata (see ProtectedResourceMetadata). When set, 401
	// answers name it in WWW-Authenticate, as MCP authorization requires.
	ResourceMetadataURL string
	// Scopes are the OAuth scopes that 401 answers name in
	// WWW-Authenticate (scope="..."): the least a client needs to start.
	// MCP clients request the scopes a 401 names and, when it names none,
	// every scope of the resource metadata's scopes_supported at once; a
	// call that needs more is then answered with a step-up challenge (see
	// ScopeChallenge). Scopes that are not RFC 6749 scope-tokens are left
	// out, with a warning.
	Scopes []string
	// ScopeChallenge, when set with an Authenticator, makes a tools/call
	// that the Authorizer refuses an OAuth step-up request: 403 with
	// WWW-Authenticate: Bearer error="insufficient_scope", scope="<every
	// scope the call needs>" and resource_metadata, instead of the default
	// answer that the tool does not exist. The tool stays hidden from
	// tools/list either way. Nil keeps the default: a forbidden tool is
	// indistinguishable from an unknown one. See ScopeChallenge.
	ScopeChallenge ScopeChallenge
	// Logger receives transport events: refused requests at level Debug,
	// authentication failures at Info, failures of an Authenticator at Warn.
	// Token values are never logged. Nil discards.
	Logger *slog.Logger
	// KeepAlive is the interval of SSE comment lines sent on a response
	// stream that is otherwise quiet (a long tool call, a
	// subscriptions/listen stream), so that proxies do not close it. Zero
	// means 25 seconds; negative sends none.
	KeepAlive time.Duration
	// BodyTimeout is how long the Handler waits for the whole request body
	// once the headers have arrived; a body still incomplete then is
	// answered with 408 and its connection closed, so a client that
	// declares a large body and trickles it holds nothing for long. Zero
	// means DefaultBodyTimeout (30 seconds); negative sets no deadline and
	// leaves slow bodies to http.Server.ReadTimeout. The deadline is set
	// as http.ResponseController sets it, so it needs a ResponseWriter that
	// supports read deadlines (net/http's do; middleware wrapping them
	// should implement Unwrap). Once the body is read the connection's read
	// deadline is cleared, so that neither this deadline nor an
	// http.Server.ReadTimeout ends a streamed answer (a long call's
	// progress, a subscriptions/listen stream). Where the http.Server's
	// ReadTimeout is at most BodyTimeout, the deadline net/http sets with
	// it for the whole request bounds the body instead (408 naming
	// ReadTimeout), and the Handler sets none of its own.
	BodyTimeout time.Duration
	// MaxListenStreams caps the subscriptions/listen streams open at once
	// on this Handler; one more is refused with 503, a Retry-After header
	// and a -32001 error, and ordinary requests are served as ever. A
	// request counts as a listen by its Mcp-Method header, which Server
	// requires to match the body under 2026-07-28; a Protocol of one's own
	// must do the same for the cap to hold. Zero means
	// DefaultMaxListenStreams (1000); negative means no cap.
	MaxListenStreams int
	// MaxListenStreamsPerPrincipal caps the subscriptions/listen streams
	// one caller (one Principal of one Server; anonymous callers share one)
	// has open at once on this Handler, refused like one beyond
	// MaxListenStreams, so that one caller cannot take every stream. Zero
	// means DefaultMaxListenStreamsPerPrincipal (100); negative means no
	// cap.
	MaxListenStreamsPerPrincipal int
	// WriteTimeout is the deadline of each write of an answer to the
	// client: a JSON answer, each SSE event (and keep-alive comment). A
	// client that stops reading is disconnected when it passes, and what
	// its answer held is released. It is set as http.ResponseController
	// sets it, so it needs a ResponseWriter that supports write deadlines
	// (net/http's do; middleware wrapping them should implement Unwrap);
	// net/http clears it once the response is finished. Unlike
	// http.Server.WriteTimeout it bounds each write, not the whole
	// response, so long streams are not cut. Zero means
	// DefaultWriteTimeout (30 seconds); negative sets none.
	WriteTimeout time.Duration
	// MaxPendingBytes is the Handler's budget of answer bytes being
	// written at once (to clients that read slowly, the bytes wait), and
	// of batch answers being built: an answer beyond it is refused with
	// 503, a Retry-After header and a -32001 error (on a stream already
	// started, its last event is that error), a batch that passes it while
	// it is built is stopped and refused so, and a notification beyond it
	// is dropped. One answer alone always goes. The heap can hold about
	// twice the budget (the garbage collector's headroom, GOGC=100). Zero
	// means DefaultMaxPendingBytes (128 MiB); negative means no budget.
	MaxPendingBytes int64
	// ListenLifetime is how long a subscriptions/listen stream lasts: it
	// then ends cleanly, with its completion result, and the client listens
	// again. Zero means DefaultListenLifetime (10 minutes); negative means
	// until the client leaves or Close.
	ListenLifetime time.Duration
}

// Handler serves a Protocol over the Streamable HTTP transport, stateless:
// each POST carries one JSON-RPC message (or, under 2025-03-26 rules, a
// batch) and gets its answer, and nothing is kept between requests. Mount it
// at the MCP endpoint: mux.Handle("/mcp", mcp.NewHandler(server, nil)).
//
// Requests are checked in this order, each failure answered with the status
// shown and a JSON-RPC error body without id:
//
//   - Origin and Host (see HandlerOptions.AllowedOrigins, AllowedHosts): 403.
//   - Method: only POST; GET and DELETE (no server-initiated stream, no
//     sessions) and the rest get 405 with "Allow: POST". A client's
//     Mcp-Session-Id header is ignored, and none is ever issued.
//   - Authentication (HandlerOptions.Authenticator): 401 with a
//     WWW-Authenticate Bearer challenge; when the Authenticator could not
//     check the credentials for now (ErrAuthUnavailable), 503 with
//     Retry-After and code -32001 instead.
//   - Content-Type other than application/json (UTF-8): 415.
//   - Accept allowing neither application/json nor text/event-stream: 406.
//     A missing Accept allows both.
//   - Body larger than MaxBodyBytes: 413. Body not complete within
//     BodyTimeout: 408, and the connection is closed.
//   - A subscriptions/listen of a caller that has MaxListenStreamsPerPrincipal
//     open: 503 with Retry-After and code -32001, like the next item.
//   - A subscriptions/listen (named in the Mcp-Method header, as 2026-07-28
//     requires) beyond MaxListenStreams, or after Close: 503 with
//     Retry-After and code -32001, with the request's id; the connection
//     is closed. An admitted stream ends after ListenLifetime with its
//     completion result.
//
// Answers are written under bounds too: each write (a JSON answer, each SSE
// event) has WriteTimeout to complete, and a client that stops reading is
// disconnected then; an answer that would take the answers waiting to be
// written beyond MaxPendingBytes is refused with 503, Retry-After and code
// -32001. A Protocol's own 503 answer (a server limit) gets Retry-After.
//
// The body then goes to Protocol.Handle with the request, its headers and
// its MCP-Protocol-Version in the Exchange; its status and body are the answer:
// application/json, or 202 with no body for notifications. The Server
// refuses a header naming a version it does not serve with 400 and code
// -32022 (data {"supported": [...], "requested": "..."}), except on
// initialize, whose body's protocolVersion is negotiated instead; without
// the header, 2025-03-26 rules apply.
//
// While a request runs, its tool may send notifications (Request.Progress,
// Request.Log). If the client's Accept allows text/event-stream, the first
// one turns the answer into an SSE stream (200, text/event-stream): every
// notification is an event flushed at once, and the final response is the
// last event. Otherwise notifications are dropped and the answer stays
// JSON. A client that accepts only text/event-stream gets every 200 answer
// as a one-event stream.
//
// The request's context is cancelled when the client goes away, and with it
// the tool's; Options.CallTimeout of Server adds a deadline per call.
type Handler struct {
	p           Protocol
	auth        Authenticator
	maxBody     int64
	policy      *originPolicy
	metaURL     string
	scope       string // HandlerOptions.Scopes, space-separated
	logger      *slog.Logger
	keepAlive   time.Duration
	bodyTimeout time.Duration
	listens     *listenStreams
	writeTO     time.Duration
	budget      writeBudget

	scopeChallenge ScopeChallenge // nil: forbidden tools stay unknown
}

// NewHandler returns a Handler serving p. opts may be nil.
func NewHandler(p Protocol, opts *HandlerOptions) *Handler {
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	h := &Handler{p: p, auth: o.Authenticator, maxBody: o.MaxBodyBytes, metaURL: o.ResourceMetadataURL,
		logger: o.Logger, keepAlive: o.KeepAlive, bodyTimeout: o.BodyTimeout}
	if h.auth == nil {
		h.auth = Anonymous(Caller{})
	} else {
		h.scopeChallenge = o.ScopeChallenge
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	if h.logger == nil {
		h.logger = discardLogger
	}
	h.policy = newOriginPolicy(o.AllowedOrigins, o.AllowedHosts, h.logger)
	h.scope = joinScopes(o.Scopes, h.logger)
	if h.keepAlive == 0 {
		h.keepAlive = 25 * time.Second
	}
	if h.bodyTimeout == 0 {
		h.bodyTimeout = DefaultBodyTimeout
	}
	h.writeTO, h.budget.max = o.WriteTimeout, o.MaxPendingBytes
	if h.writeTO == 0 {
		h.writeTO = DefaultWriteTimeout
	}
	if h.budget.max == 0 {
		h.budget.max = DefaultMaxPendingBytes
	}
	h.listens = newListenStreams(o.MaxListenStreams, o.MaxListenStreamsPerPrincipal, o.ListenLifetime)
	return h
}

// Shared header values; net/http never modifies them.
var (
	hdrJSON    = []string{"application/json"}
	hdrNoSniff = []string{"nosniff"}
	hdrPost    = []string{"POST"}
	hdrOrigin  = []string{"Origin"}
	hdrExpose  = []string{"WWW-Authenticate"}
)

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr["X-Content-Type-Options"] = hdrNoSniff
	// Each request header is read once, here, by its canonical name.
	rh := r.Header
	origins := rh["Origin"]
	originOK, cross := h.policy.checkOrigin(origins, r.Host)
	if origins != nil {
		hdr["Vary"] = hdrOrigin
	}
	if !originOK {
		origin := shorten(strings.Join(origins, ", "))
		h.logger.LogAttrs(r.Context(), slog.LevelDebug, "mcp: origin refused", slog.String("origin", origin))
		h.fail(w, http.StatusForbidden, "Forbidden: origin "+strconv.Quote(origin)+
			" is not allowed (allowed: one Origin header, scheme://host[:port], same-origin, loopback or configured)", nil)
		return
	}
	if !h.policy.checkHost(r) {
		h.logger.LogAttrs(r.Context(), slog.LevelDebug, "mcp: host refused", slog.String("host", shorten(r.Host)))
		h.fail(w, http.StatusForbidden, hostRefusal(r), nil)
		return
	}
	if cross { // exactly one Origin, known well-formed
		hdr["Access-Control-Allow-Origin"] = []string{origins[0]}
		hdr["Access-Control-Expose-Headers"] = hdrExpose
	}
	if r.Method != http.MethodPost {
		if r.Method == http.MethodOptions && cross && r.Header.Get("Access-Control-Request-Method") != "" {
			h.preflight(w, r)
			return
		}
		hdr["Allow"] = hdrPost
		h.fail(w, http.StatusMethodNotAllowed, "Method not allowed: the MCP endpoint accepts POST only "+
			"(no server-initiated stream, no sessions)", nil)
		return
	}
	caller, err := authenticate(h.auth, r)
	if err != nil {
		h.unauthorized(w, r, err)
		return
	}
	if ct := first(rh["Content-Type"]); !isJSONContentType(ct) {
		h.fail(w, http.StatusUnsupportedMediaType, "Unsupported Content-Type "+strconv.Quote(ct)+": send application/json", nil)
		return
	}
	jsonOK, sseOK := acceptable(rh["Accept"])
	if !jsonOK && !sseOK {
		h.fail(w, http.StatusNotAcceptable, "Not acceptable: Accept must allow application/json or text/event-stream", nil)
		return
	}
	var serverBound bool
	var readTimeout time.Duration
	if h.bodyTimeout > 0 {
		readTimeout, serverBound = serverReadBound(r, h.bodyTimeout)
	}
	body, err := h.readBody(w, r, serverBound)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			w.Header().Set("Connection", "close")
			h.fail(w, http.StatusRequestEntityTooLarge, "Request body larger than "+strconv.FormatInt(h.maxBody, 10)+" bytes", nil)
			return
		}
		if errors.Is(err, errBodyTimeout) {
			h.logger.LogAttrs(r.Context(), slog.LevelDebug, "mcp: request body too slow", slog.String("remote", r.RemoteAddr))
			w.Header().Set("Connection", "close")
			within := h.bodyTimeout.String() + " (HandlerOptions.BodyTimeout)"
			if serverBound {
				within = readTimeout.String() + " of the request's start (http.Server.ReadTimeout)"
			}
			h.fail(w, http.StatusRequestTimeout, "Request body not received within "+within, nil)
			return
		}
		h.fail(w, http.StatusBadRequest, "Reading the request body failed", nil)
		return
	}
	ctx := r.Context()
	if isListen(rh) {
		lctx, release, err := h.listens.acquire(ctx, caller)
		if err != nil {
			h.logger.LogAttrs(ctx, slog.LevelDebug, "mcp: listen stream refused", slog.String("remote", r.RemoteAddr),
				slog.String("error", err.Error()))
			h.refuseListen(w, body, err)
			return
		}
		defer release()
		ctx = lctx
	}
	// The Message a Server's Middleware see is made apart from the stream:
	// a Middleware may keep it, and a task the request starts keeps the
	// stream (its context lives there); neither must keep the other alive.
	st := &stream{w: w, sseOnly: !jsonOK, keepAlive: h.keepAlive, writeTimeout: h.writeTO, budget: &h.budget, body: body}
	st.ex.ProtocolVersion = first(rh["Mcp-Protocol-Version"])
	st.ex.Header = rh
	st.ex.Transport, st.ex.HTTPRequest = TransportHTTP, r
	st.ex.budget = st.budget
	if sseOK {
		st.ex.Notify = st.notify
	}
	var needs *scopeNeeds
	if h.scopeChallenge != nil {
		needs = new(scopeNeeds)
		ctx = context.WithValue(ctx, scopeNeedsKey{}, needs)
	}
	st.ctx = exchangeContext{Context: ctx, ex: &st.ex}
	status, resp := h.p.Handle(&st.ctx, caller, body)
	if needs != nil && h.challenge(w, r, needs, caller, body, st) {
		return
	}
	if d := st.ex.retryAfter; d > 0 {
		hdr.Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
	} else if _, set := hdr["Retry-After"]; status == http.StatusServiceUnavailable && !set {
		hdr.Set("Retry-After", strconv.Itoa(listenRetryAfter)) // a server limit refused the request
	}
	st.finish(status, resp)
	st.release()
}

// fail writes a transport-level JSON-RPC error without id.
func (h *Handler) fail(w http.ResponseWriter, status int, message string, data any) {
	writeJSON(w, status, appendError(make([]byte, 0, 128), nil, CodeInvalidRequest, message, data))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	hdr := w.Header()
	hdr["Content-Type"] = hdrJSON
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// authRetryAfter is the Retry-After of a request whose credentials could
// not be checked for now (ErrAuthUnavailable).
const authRetryAfter = 2 * time.Second

// unauthorized answers 401 with the Bearer challenge, or 503 with
// Retry-After when the credentials could not be checked (a condition of
// the server: the client must keep its token). The error's text is logged;
// verifier errors never carry the token (BearerAuth removes it).
func (h *Handler) unauthorized(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, ErrAuthUnavailable):
		h.logger.LogAttrs(r.Context(), slog.LevelWarn, "mcp: authentication unavailable",
			slog.String("remote", r.RemoteAddr), slog.String("error", err.Error()))
		w.Header().Set("Retry-After", strconv.Itoa(int(authRetryAfter/time.Second)))
		writeJSON(w, http.StatusServiceUnavailable, appendError(make([]byte, 0, 256), nil, CodeLimitExceeded,
			"Service unavailable: the bearer token cannot be checked now (the authorization server is busy or "+
				"unreachable); keep it and retry in "+authRetryAfter.String(),
			map[string]any{"retryAfterMs": authRetryAfter.Milliseconds()}))
		return
	case errors.Is(err, ErrInvalidToken):
		h.logger.LogAttrs(r.Context(), slog.LevelInfo, "mcp: invalid credentials",
			slog.String("remote", r.RemoteAddr), slog.String("error", err.Error()))
	case errors.Is(err, ErrUnauthenticated):
		h.logger.LogAttrs(r.Context(), slog.LevelDebug, "mcp: no credentials",
			slog.String("remote", r.RemoteAddr), slog.String("error", err.Error()))
	default:
		h.logger.LogAttrs(r.Context(), slog.LevelWarn, "mcp: authenticator failed",
			slog.String("remote", r.RemoteAddr), slog.String("error", err.Error()))
	}
	w.Header().Set("WWW-Authenticate", wwwAuthenticate(err, h.metaURL, h.scope))
	msg := "Unauthorized: send a valid bearer token in the Authorization header"
	if errors.Is(err, ErrInvalidToken) {
		msg = "Unauthorized: the bearer token was rejected"
	}
	h.fail(w, http.StatusUnauthorized, msg, nil)
}

// preflight answers a CORS preflight request from an allowed origin.
func (h *Handler) preflight(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Access-Control-Allow-Methods", "POST")
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		hdr.Set("Access-Control-Allow-Headers", req)
	}
	hdr.Set("Access-Control-Max-Age", "600")
	hdr.Set("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	w.WriteHeader(http.StatusNoContent)
}

// isJSONContentType reports whether ct is application/json, with no charset
// or UTF-8.
func isJSONContentType(ct string) bool {
	if ct == "application/json" {
		return true
	}
	mt, params, _ := strings.Cut(ct, ";")
	if !strings.EqualFold(strings.TrimSpace(mt), "application/json") {
		return false
	}
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "charset") {
			v = strings.Trim(strings.TrimSpace(v), `"`)
			if !strings.EqualFold(v, "utf-8") && !strings.EqualFold(v, "utf8") {
				return false
			}
		}
	}
	return true
}

// acceptable reports whether the Accept header values allow
// application/json and text/event-stream. The most specific matching media
// range decides (so "*/*, text/event-stream;q=0" allows only JSON); no
// Accept at all allows both.
func acceptable(values []string) (jsonOK, sseOK bool) {
	if len(values) == 1 && values[0] == acceptBoth {
		return true, true // what MCP clients send
	}
	jSpec, sSpec := -1, -1
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			mt, params, _ := strings.Cut(part, ";")
			mt = strings.TrimSpace(mt)
			if mt == "" {
				continue
			}
			ok := qPositive(params)
			if s := matchRange(mt, "application", "json"); s > jSpec || (s == jSpec && s >= 0 && !ok) {
				jSpec, jsonOK = s, ok
			}
			if s := matchRange(mt, "text", "event-stream"); s > sSpec || (s == sSpec && s >= 0 && !ok) {
				sSpec, sseOK = s, ok
			}
		}
	}
	if jSpec < 0 && sSpec < 0 && !hasRange(values) {
		return true, true
	}
	return jsonOK, sseOK
}

// acceptBoth is the Accept header MCP clients send.
const acceptBoth = "application/json, text/event-stream"

// first returns the first of a header's values, "" if it has none: what
// http.Header.Get returns, for a name already canonical.
func first(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}

func hasRange(values []string) bool {
	for _, v := range values {
		if strings.Trim(v, " \t,") != "" {
			return true
		}
	}
	return false
}

// matchRange returns how specifically media range mt matches typ/sub: 2 for
// typ/sub, 1 for typ/*, 0 for */*, -1 for no match.
func matchRange(mt, typ, sub string) int {
	t, s, ok := strings.Cut(mt, "/")
	if !ok {
		return -1
	}
	switch {
	case t == "*" && s == "*":
		return 0
	case !strings.EqualFold(t, typ):
		return -1
	case s == "*":
		return 1
	case strings.EqualFold(s, sub):
		return 2
	}
	return -1
}

// qPositive reports whether a media range's parameters leave its quality
// above zero.
func qPositive(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err != nil || q > 0
		}
	}
	return true
}

// authenticate calls a, turning a panic into an error, so that a broken
// Authenticator fails closed (401) instead of crashing the request.
func authenticate(a Authenticator, r *http.Request) (c Caller, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = Caller{}, fmt.Errorf("mcp: the authenticator panicked: %v", p)
		}
	}()
	return a.Authenticate(r)
}
