package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Defaults of the subscriptions/listen bounds of a Handler.
const (
	// DefaultMaxListenStreams is the default of
	// HandlerOptions.MaxListenStreams.
	DefaultMaxListenStreams = 1000
	// DefaultListenLifetime is the default of HandlerOptions.ListenLifetime.
	DefaultListenLifetime = 10 * time.Minute
	// DefaultMaxListenStreamsPerPrincipal is the default of
	// HandlerOptions.MaxListenStreamsPerPrincipal.
	DefaultMaxListenStreamsPerPrincipal = 100
)

// listenRetryAfter is the Retry-After of a listen refused at the cap, in
// seconds.
const listenRetryAfter = 5

var (
	errListenCap    = errors.New("mcp: too many listen streams")
	errListenQuota  = errors.New("mcp: too many listen streams of one caller")
	errListenClosed = errors.New("mcp: handler closed")
)

// listenStreams are the subscriptions/listen streams a Handler serves: at
// most max at once, each for at most life, all ended by Close.
//
// Under 2026-07-28 every HTTP request names its method in the Mcp-Method
// header, and the Server refuses a body whose method differs (-32020), so
// the Handler recognises a listen before parsing: a request that claims to
// be one takes a slot for as long as it runs, and one that is a listen
// cannot avoid taking one.
type listenStreams struct {
	max      int           // negative: no cap
	perOwner int           // per caller; negative: no cap
	life     time.Duration // zero or negative: none

	mu      sync.Mutex
	closed  bool
	open    map[*context.CancelFunc]*http.Server // the server of each stream, nil if unknown
	servers map[*http.Server]bool                // registered for Shutdown; true once it started
	owners  map[ownerKey]int                     // open streams by caller
}

func newListenStreams(max, perOwner int, life time.Duration) *listenStreams {
	if max == 0 {
		max = DefaultMaxListenStreams
	}
	if perOwner == 0 {
		perOwner = DefaultMaxListenStreamsPerPrincipal
	}
	if life == 0 {
		life = DefaultListenLifetime
	}
	return &listenStreams{max: max, perOwner: perOwner, life: life, open: make(map[*context.CancelFunc]*http.Server),
		servers: make(map[*http.Server]bool), owners: map[ownerKey]int{}}
}

// isListen reports whether the request says it is a subscriptions/listen.
func isListen(h http.Header) bool {
	for _, v := range h["Mcp-Method"] {
		if v == "subscriptions/listen" {
			return true
		}
	}
	return false
}

// acquire takes a slot for one stream of caller and returns the context it
// runs under (ended by its lifetime, by Close, or by the Shutdown of the
// http.Server serving it) and the function that gives the slot back.
//
// The first stream a server serves registers the streams with it
// (http.ServerContextKey, RegisterOnShutdown), so that its Shutdown ends
// them without a line from the host.
func (l *listenStreams) acquire(ctx context.Context, caller Caller) (context.Context, func(), error) {
	srv, _ := ctx.Value(http.ServerContextKey).(*http.Server)
	owner := ownerKey{caller.Principal, caller.Server}
	var cancel context.CancelFunc
	if l.life > 0 {
		ctx, cancel = context.WithTimeout(ctx, l.life)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	l.mu.Lock()
	down, known := l.servers[srv]
	switch {
	case l.closed || down:
		l.mu.Unlock()
		cancel()
		return nil, nil, errListenClosed
	case l.max >= 0 && len(l.open) >= l.max:
		l.mu.Unlock()
		cancel()
		return nil, nil, errListenCap
	case l.perOwner >= 0 && l.owners[owner] >= l.perOwner:
		l.mu.Unlock()
		cancel()
		return nil, nil, errListenQuota
	}
	key := &cancel
	l.open[key] = srv
	l.owners[owner]++
	register := srv != nil && !known
	if register {
		l.servers[srv] = false
	}
	l.mu.Unlock()
	if register {
		srv.RegisterOnShutdown(func() { l.shutdown(srv) })
	}
	return ctx, func() {
		l.mu.Lock()
		delete(l.open, key)
		if l.owners[owner] <= 1 {
			delete(l.owners, owner)
		} else {
			l.owners[owner]--
		}
		l.mu.Unlock()
		cancel()
	}, nil
}

// shutdown ends the streams srv serves and refuses new ones on it: srv
// is shutting down. Streams of other servers go on.
func (l *listenStreams) shutdown(srv *http.Server) {
	l.mu.Lock()
	l.servers[srv] = true
	var cancels []context.CancelFunc
	for c, s := range l.open {
		if s == srv {
			cancels = append(cancels, *c)
		}
	}
	l.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// close ends every stream and refuses new ones.
func (l *listenStreams) close() {
	l.mu.Lock()
	l.closed = true
	cancels := make([]context.CancelFunc, 0, len(l.open))
	for c := range l.open {
		cancels = append(cancels, *c)
	}
	l.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// Close ends the subscriptions/listen streams in flight, each with its
// completion result (a graceful closure after which clients listen again,
// here or on another replica), and refuses new ones with 503. Other
// requests are still served.
//
// A Handler served by an http.Server needs no Close for Shutdown: the
// first listen stream on a server registers the Handler with it
// (RegisterOnShutdown), and Shutdown then ends that server's streams in
// the same way, while streams on other servers go on. Close is for the
// other cases: a server other than net/http's, or ending every stream
// before Shutdown starts.
//
// Close always returns nil. It may be called more than once, and
// concurrently with ServeHTTP.
func (h *Handler) Close() error {
	h.listens.close()
	return nil
}

// refuseListen answers a listen the Handler has no slot for: 503 with
// Retry-After, and a JSON-RPC error carrying the request's id. The
// connection is closed, so that refused clients hold no descriptor.
func (h *Handler) refuseListen(w http.ResponseWriter, body []byte, err error) {
	msg := "The server is shutting down and opens no new subscriptions/listen streams; listen again on another server"
	retry := "1"
	switch {
	case errors.Is(err, errListenCap):
		msg = "Too many subscriptions/listen streams: " + strconv.Itoa(h.listens.max) +
			" are open, the most this server allows (HandlerOptions.MaxListenStreams); retry later"
		retry = strconv.Itoa(listenRetryAfter)
	case errors.Is(err, errListenQuota):
		msg = "Too many subscriptions/listen streams: " + strconv.Itoa(h.listens.perOwner) +
			" of yours are open, the most this server allows one caller (HandlerOptions.MaxListenStreamsPerPrincipal); close one or retry later"
		retry = strconv.Itoa(listenRetryAfter)
	}
	hdr := w.Header()
	hdr.Set("Retry-After", retry)
	hdr.Set("Connection", "close")
	writeJSON(w, http.StatusServiceUnavailable, appendError(make([]byte, 0, 256), requestID(body), CodeLimitExceeded, msg, nil))
}

// requestID returns the id of a JSON-RPC request body, if it is a string
// or a number, for errors the transport answers before the Protocol parses
// the body. It is off the fast path.
func requestID(body []byte) []byte {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &env) != nil || len(env.ID) == 0 {
		return nil
	}
	if c := env.ID[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
		return env.ID
	}
	return nil
}
