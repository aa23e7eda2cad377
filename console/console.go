package console

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// Permissions of the console, asked of Options.Authorizer.
const (
	// PermissionRead lets a caller see the console's pages.
	PermissionRead = "diagnostics.console.read"
	// PermissionWrite lets a caller act from them: cancel a task.
	PermissionWrite = "diagnostics.console.write"
	// PermissionProfile lets a caller download pprof profiles; it is
	// runtimetools' PermissionProfile, since a profile costs the same.
	PermissionProfile = "diagnostics.runtime.profile"
)

// Options configure a Console. Registry is required; the rest may be zero.
type Options struct {
	// Title names the service on every page. Default "MCP console".
	Title string
	// Registry holds the tools the Tools page shows: the Server's.
	Registry mcp.Registry
	// Authenticator turns each request into the Caller: the MCP
	// endpoint's. Browsers send the token as the password of HTTP Basic
	// credentials (any user name), then the session cookie set after them;
	// both reach the Authenticator as a bearer token. Nil admits every
	// request as the zero Caller, as mcp.HandlerOptions does.
	Authenticator mcp.Authenticator
	// Authorizer decides who may read (PermissionRead), act
	// (PermissionWrite) and download profiles (PermissionProfile), and
	// answers the Tools page's "who may call" preview: the Server's. Nil
	// denies everything.
	Authorizer mcp.Authorizer
	// Tasks is the Server's task store (mcp.TaskOptions.Store); nil leaves
	// the Tasks page empty. The console follows it through Watch.
	Tasks tasks.Store
	// Calls is how many recent requests are kept. Default 10 000.
	Calls int
	// SampleInterval is how often the process is sampled for the Process
	// page; an hour of samples is kept. Default 10 seconds.
	SampleInterval time.Duration
	// SessionKey seals the session cookie and signs CSRF tokens; replicas
	// behind one load balancer share it. Nil means a random key per
	// Console: sessions then last as long as the process.
	SessionKey []byte
	// SessionTTL is how long a session cookie is valid. Default 12 hours.
	SessionTTL time.Duration
	// AllowedHosts are the Host names (without port) accepted on requests
	// that arrive on a loopback address, besides the loopback names; any
	// other Host is answered with 403, since it is how DNS rebinding
	// reaches a local console. "*" turns the check off. As
	// mcp.HandlerOptions.AllowedHosts.
	AllowedHosts []string
	// Logger receives refused requests at Debug and cancellations at Info.
	// Nil discards.
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultCalls          = 10_000
	DefaultSampleInterval = 10 * time.Second
	DefaultSessionTTL     = 12 * time.Hour
)

// ErrNoRegistry: New was given no Registry.
var ErrNoRegistry = errors.New("console: Options.Registry is required")

// A Console is the operator console: an http.Handler showing a Server's
// tools, the requests it answered (fed by Record), its tasks and its
// process. Mount it on the host's mux under a path of its own, with
// http.StripPrefix: its links are relative, so any prefix works.
type Console struct {
	title      string
	reg        mcp.Registry
	auth       mcp.Authenticator
	az         mcp.Authorizer
	logger     *slog.Logger
	keys       *keys
	sessionTTL time.Duration
	now        func() time.Time
	started    time.Time

	rec     *recorder
	sampler *sampler
	tasks   *taskIndex
	views   views
	hosts   map[string]bool // Options.AllowedHosts, lower case
	cpu     sync.Mutex      // one CPU profile at a time (runtime/pprof allows no more)
	pages   map[string]*template.Template
	sizes   map[string]*atomic.Int64 // the last size of each page, to size the next one's buffer
}

// New returns a Console, whose process sampler runs until Close. opts is
// required for the Registry.
func New(opts *Options) (*Console, error) {
	if opts == nil || opts.Registry == nil {
		return nil, ErrNoRegistry
	}
	o := *opts
	if o.Title == "" {
		o.Title = "MCP console"
	}
	if o.Calls <= 0 {
		o.Calls = DefaultCalls
	}
	if o.SampleInterval <= 0 {
		o.SampleInterval = DefaultSampleInterval
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = DefaultSessionTTL
	}
	if o.Authorizer == nil {
		o.Authorizer = mcp.DenyAll()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	k, err := newKeys(o.SessionKey)
	if err != nil {
		return nil, err
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	cells, err := parseCells()
	if err != nil {
		return nil, err
	}
	c := &Console{title: o.Title, reg: o.Registry, auth: o.Authenticator, az: o.Authorizer, logger: o.Logger,
		keys: k, sessionTTL: o.SessionTTL, now: time.Now, rec: newRecorder(o.Calls), pages: pages}
	c.views.cells = cells.Lookup("toolcells")
	c.hosts = map[string]bool{}
	for _, h := range o.AllowedHosts {
		c.hosts[strings.ToLower(strings.Trim(h, "[]"))] = true
	}
	c.sizes = map[string]*atomic.Int64{}
	for name := range pages {
		c.sizes[name] = new(atomic.Int64)
	}
	c.started = c.now()
	if o.Tasks != nil {
		c.tasks = newTaskIndex(o.Tasks, c.now)
	}
	c.sampler = newSampler(o.SampleInterval, c.requests)
	return c, nil
}

// requests returns how many requests were recorded.
func (c *Console) requests() uint64 {
	c.rec.mu.Lock()
	defer c.rec.mu.Unlock()
	return c.rec.total
}

// Close stops the process sampler and the task store's watch. The
// Console still answers afterwards, with the samples it has.
func (c *Console) Close() error {
	c.sampler.stop()
	if c.tasks != nil {
		c.tasks.stop()
	}
	return nil
}

// request is what a handler knows of the request it answers.
type request struct {
	caller  mcp.Caller
	nonce   string
	write   bool // the caller holds PermissionWrite
	profile bool // the caller holds PermissionProfile
}

// ServeHTTP implements http.Handler: it refuses a request a browser says
// another site's page made (Sec-Fetch-Site other than same-origin or
// none), authenticates the request, checks PermissionRead and answers the
// page. Every answer forbids framing,
// sniffing and caching, and carries a Content-Security-Policy that lets
// only the page's own style and script run.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	nonce := newNonce()
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'nonce-"+nonce+
		"'; img-src data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")

	if !hostAllowed(r, c.hosts) {
		http.Error(w, "403 forbidden: this Host is not allowed on a loopback address (Options.AllowedHosts)", http.StatusForbidden)
		return
	}
	if fromAnotherSite(r) {
		// Before authentication: another site's page (an <img>, a link, a
		// form) reaches neither the Authenticator nor any work.
		c.logger.LogAttrs(r.Context(), slog.LevelDebug, "console: request from another site refused",
			slog.String("path", r.URL.Path), slog.String("secFetchSite", truncate(r.Header.Get("Sec-Fetch-Site"), 40)))
		http.Error(w, "403 forbidden: a request from another site's page; open the console's address directly", http.StatusForbidden)
		return
	}
	caller, sealed, err := c.authenticate(r)
	if errors.Is(err, mcp.ErrAuthUnavailable) {
		// The token could not be checked (the issuer busy or down): a
		// server condition, so the session cookie stays and the browser
		// tries again, as the MCP endpoint answers it.
		c.logger.LogAttrs(r.Context(), slog.LevelWarn, "console: token not checked", slog.String("error", err.Error()))
		h.Set("Retry-After", "2")
		http.Error(w, "503 service unavailable: the token could not be checked now; try again", http.StatusServiceUnavailable)
		return
	}
	if err != nil {
		c.logger.LogAttrs(r.Context(), slog.LevelDebug, "console: unauthenticated", slog.String("error", err.Error()))
		if _, cerr := r.Cookie(sessionCookie); cerr == nil {
			http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: mountPath(r), MaxAge: -1, HttpOnly: true})
		}
		h.Set("WWW-Authenticate", `Basic realm="MCP console", charset="UTF-8"`)
		http.Error(w, "401 unauthorized: sign in with the MCP endpoint's token as the password", http.StatusUnauthorized)
		return
	}
	ctx := mcp.ContextWithCaller(r.Context(), caller)
	if !c.allowed(ctx, caller, PermissionRead) {
		c.logger.LogAttrs(ctx, slog.LevelDebug, "console: forbidden", slog.String("principal", caller.Principal))
		http.Error(w, "403 forbidden: "+PermissionRead+" is required", http.StatusForbidden)
		return
	}
	if sealed != "" {
		setSession(w, r, sealed, c.sessionTTL)
	}
	req := &request{caller: caller, nonce: nonce,
		write: c.allowed(ctx, caller, PermissionWrite), profile: c.allowed(ctx, caller, PermissionProfile)}
	r = r.WithContext(ctx)

	switch r.URL.Path {
	case "/", "":
		c.get(w, r, req, c.toolsPage)
	case "/calls":
		c.get(w, r, req, c.callsPage)
	case "/tasks":
		c.get(w, r, req, c.tasksPage)
	case "/process":
		c.get(w, r, req, c.processPage)
	case "/profile":
		if r.Method != http.MethodGet && r.Method != http.MethodPost {
			methodNotAllowed(w, "GET, POST")
			return
		}
		c.serveProfile(w, r, req)
	case "/cancel":
		if r.Method != http.MethodPost {
			methodNotAllowed(w, "POST")
			return
		}
		c.cancel(w, r, req)
	default:
		http.Error(w, "404 page not found", http.StatusNotFound)
	}
}

// allowed asks the Authorizer, treating a panic as a denial.
func (c *Console) allowed(ctx context.Context, caller mcp.Caller, permission string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return c.az.Allowed(ctx, caller, permission)
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
}

func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// badRequest is a form value the console refuses: answered 400 with its
// reason.
type badRequest struct{ reason string }

func (e *badRequest) Error() string { return e.reason }

// get answers a page for GET and HEAD: build returns the page's data or a
// *badRequest.
func (c *Console) get(w http.ResponseWriter, r *http.Request, req *request, build func(*http.Request, *request) (*page, error)) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	p, err := build(r, req)
	var bad *badRequest
	switch {
	case errors.As(err, &bad):
		http.Error(w, "400 bad request: "+bad.reason, http.StatusBadRequest)
		return
	case err != nil:
		c.logger.LogAttrs(r.Context(), slog.LevelWarn, "console: page failed", slog.String("path", r.URL.Path), slog.String("error", err.Error()))
		http.Error(w, "500 internal error: the page could not be built", http.StatusInternalServerError)
		return
	}
	c.render(w, r, req, p)
}
