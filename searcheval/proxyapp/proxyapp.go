// Package proxyapp is a real service of the search evaluation: an office's
// egress proxy built on goproxy (github.com/elazarl/goproxy, an HTTP and
// HTTPS forward proxy library; nobody here wrote it). It refuses the hosts
// on a block list, stamps every request it forwards with the office's
// headers, opens the TLS of selected domains only (signing their
// certificates with a CA of its own), logs each request with log/slog and
// keeps the latest in memory for a small HTTP admin API. At /mcp, the
// service serves the code tools and the tool enquiry over a source snapshot
// of the service and its dependencies, as an adopter would serve them.
// Command proxyserver runs it.
package proxyapp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/elazarl/goproxy"
	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the egress proxy.
type Config struct {
	ProxyAddr       string            // address the proxy listens on; "" picks a free loopback port
	Blocked         []string          // hosts refused, with their subdomains
	Inspect         []string          // domains whose HTTPS the proxy opens, with their subdomains
	AddHeaders      map[string]string // headers set on every forwarded request
	Upstream        string            // parent proxy URL every request goes through; "" for none
	UpstreamAuth    string            // Proxy-Authorization value sent to the parent proxy
	MaxRequestBytes int64             // largest request body forwarded; 0 for 10 MiB
	MaxCerts        int               // signed certificates kept for reuse; 0 for 500
	KeepRequests    int               // requests the admin API shows; 0 for 200
	DialTimeout     time.Duration     // time to connect to a destination; 0 for 10s
	Verbose         bool              // log goproxy's own per-request lines at debug level
}

// Gateway is the running proxy, its block list and its request log.
type Gateway struct {
	proxy   *goproxy.ProxyHttpServer
	ln      net.Listener
	hs      *http.Server
	ca      tls.Certificate
	caPEM   []byte
	cfg     Config
	logger  *slog.Logger
	mu      sync.Mutex
	blocked map[string]bool
	recent  []Entry // oldest first, at most cfg.KeepRequests
	counts  map[string]int
}

// Entry is one request the proxy handled, as the admin API shows it.
type Entry struct {
	Time     time.Time     `json:"time"`
	Client   string        `json:"client"`
	Method   string        `json:"method"`
	URL      string        `json:"url"`
	Status   int           `json:"status"`
	Duration time.Duration `json:"duration_ns"`
	Outcome  string        `json:"outcome"` // forwarded, blocked, inspected, failed
}

// NewService starts the proxy and returns the MCP server over snapshot (a
// directory written by mcpsnapshot; nil for none), the gateway and the HTTP
// handler that serves the admin API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Gateway, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "proxyserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "proxyserver", Version: "0.1.0", Logger: logger})
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = 10 << 20
	}
	if cfg.MaxCerts <= 0 {
		cfg.MaxCerts = 500
	}
	if cfg.KeepRequests <= 0 {
		cfg.KeepRequests = 200
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 10 * time.Second
	}
	g := &Gateway{cfg: cfg, logger: logger, blocked: map[string]bool{}, counts: map[string]int{}}
	for _, h := range cfg.Blocked {
		g.blocked[strings.ToLower(h)] = true
	}
	var err error
	if g.ca, g.caPEM, err = newCA(); err != nil {
		return nil, nil, nil, fmt.Errorf("office CA: %w", err)
	}
	if err := g.setupProxy(); err != nil {
		return nil, nil, nil, err
	}
	addr := cfg.ProxyAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if g.ln, err = net.Listen("tcp", addr); err != nil {
		return nil, nil, nil, fmt.Errorf("proxy listen: %w", err)
	}
	g.hs = &http.Server{Handler: g.proxy, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := g.hs.Serve(g.ln); err != nil && err != http.ErrServerClosed {
			logger.Error("proxy stopped", "error", err)
		}
	}()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/requests", g.handleRequests)
	mux.HandleFunc("GET /admin/blocked", g.handleBlocked)
	mux.HandleFunc("PUT /admin/blocked/{host}", g.handleBlock)
	mux.HandleFunc("DELETE /admin/blocked/{host}", g.handleUnblock)
	mux.HandleFunc("GET /admin/ca.pem", g.handleCA)
	return srv, g, mux, nil
}

// Addr is the address of the proxy listener.
func (g *Gateway) Addr() string { return g.ln.Addr().String() }

// Close stops the proxy.
func (g *Gateway) Close() error { return g.hs.Close() }

// setupProxy builds the goproxy server: its transport, upstream, logger
// and the handlers of the office's policy, in the order they must run.
func (g *Gateway) setupProxy() error {
	p := goproxy.NewProxyHttpServer()
	p.Verbose = g.cfg.Verbose
	p.Logger = printfLogger{g.logger}
	p.CertStore = &certCache{max: g.cfg.MaxCerts, certs: map[string]*tls.Certificate{}}
	p.Tr.DialContext = (&net.Dialer{Timeout: g.cfg.DialTimeout}).DialContext
	p.ConnectDial = nil // the office decides its upstream, not HTTPS_PROXY
	if g.cfg.Upstream != "" {
		u, err := url.Parse(g.cfg.Upstream)
		if err != nil {
			return fmt.Errorf("upstream proxy %q: %w", g.cfg.Upstream, err)
		}
		p.Tr.Proxy = http.ProxyURL(u)
		p.ConnectDial = p.NewConnectDialToProxyWithHandler(g.cfg.Upstream, func(req *http.Request) {
			if g.cfg.UpstreamAuth != "" {
				req.Header.Set("Proxy-Authorization", g.cfg.UpstreamAuth)
			}
		})
	}
	p.NonproxyHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "office egress proxy: configure me as your HTTP proxy", http.StatusBadRequest)
	})
	p.ConnectionErrHandler = func(w io.Writer, ctx *goproxy.ProxyCtx, err error) {
		g.logger.Warn("proxy connect failed", "host", ctx.Req.Host, "error", err)
		msg := "office proxy could not reach " + ctx.Req.Host
		fmt.Fprintf(w, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg)
	}
	p.OnRequest().HandleConnectFunc(g.onConnect)
	p.OnRequest(goproxy.ReqConditionFunc(g.isBlocked)).DoFunc(g.refuse)
	p.OnRequest().DoFunc(g.stamp)
	p.OnResponse().DoFunc(g.record)
	g.proxy = p
	return nil
}

// onConnect decides what happens to a CONNECT: refused when the host is
// blocked, opened with the office CA when it is to be inspected, tunnelled
// untouched otherwise.
func (g *Gateway) onConnect(host string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
	name := hostOnly(host)
	if g.blockedHost(name) {
		g.logger.Info("proxy CONNECT refused", "host", name, "client", ctx.Req.RemoteAddr)
		g.note(Entry{Time: time.Now(), Client: ctx.Req.RemoteAddr, Method: http.MethodConnect, URL: host,
			Status: http.StatusForbidden, Outcome: "blocked"})
		ctx.Resp = goproxy.NewResponse(ctx.Req, goproxy.ContentTypeText, http.StatusForbidden, "blocked by office policy: "+name)
		return goproxy.RejectConnect, host
	}
	if matchDomain(name, g.cfg.Inspect) {
		return &goproxy.ConnectAction{Action: goproxy.ConnectMitm, TLSConfig: goproxy.TLSConfigFromCA(&g.ca)}, host
	}
	return goproxy.OkConnect, host
}

// isBlocked says whether a plain or inspected request goes to a blocked
// host.
func (g *Gateway) isBlocked(req *http.Request, _ *goproxy.ProxyCtx) bool {
	return g.blockedHost(req.URL.Hostname())
}

// refuse answers a request to a blocked host with 403 without forwarding
// it.
func (g *Gateway) refuse(req *http.Request, ctx *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	g.logger.Info("proxy request refused", "host", req.URL.Hostname(), "client", req.RemoteAddr)
	g.note(Entry{Time: time.Now(), Client: req.RemoteAddr, Method: req.Method, URL: req.URL.String(),
		Status: http.StatusForbidden, Outcome: "blocked"})
	return req, goproxy.NewResponse(req, goproxy.ContentTypeText, http.StatusForbidden,
		"blocked by office policy: "+req.URL.Hostname())
}

// stamp sets the office's headers on a request, refuses bodies over the
// limit and remembers when the request left.
func (g *Gateway) stamp(req *http.Request, ctx *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	if req.ContentLength > g.cfg.MaxRequestBytes {
		g.logger.Warn("proxy request too large", "url", req.URL.String(), "bytes", req.ContentLength, "limit", g.cfg.MaxRequestBytes)
		return req, goproxy.NewResponse(req, goproxy.ContentTypeText, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("request body over %d bytes", g.cfg.MaxRequestBytes))
	}
	if req.Body != nil {
		req.Body = http.MaxBytesReader(nil, req.Body, g.cfg.MaxRequestBytes)
	}
	for k, v := range g.cfg.AddHeaders {
		req.Header.Set(k, v)
	}
	ctx.UserData = time.Now()
	return req, nil
}

// record logs a response (or the failure to get one) and keeps it for the
// admin API.
func (g *Gateway) record(resp *http.Response, ctx *goproxy.ProxyCtx) *http.Response {
	req := ctx.Req
	e := Entry{Time: time.Now(), Client: req.RemoteAddr, Method: req.Method, URL: req.URL.String(), Outcome: "forwarded"}
	if start, ok := ctx.UserData.(time.Time); ok {
		e.Duration = time.Since(start)
	}
	if req.URL.Scheme == "https" {
		e.Outcome = "inspected"
	}
	switch {
	case resp == nil:
		e.Status, e.Outcome = http.StatusBadGateway, "failed"
		g.logger.Warn("proxy upstream failed", "url", e.URL, "error", ctx.Error)
	case resp.StatusCode == http.StatusForbidden && g.blockedHost(req.URL.Hostname()):
		return resp // refuse has logged it
	default:
		e.Status = resp.StatusCode
		g.logger.Info("proxy request", "method", e.Method, "url", e.URL, "status", e.Status,
			"client", e.Client, "duration", e.Duration, "outcome", e.Outcome)
	}
	g.note(e)
	return resp
}

// note keeps e among the latest requests and counts its outcome.
func (g *Gateway) note(e Entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.counts[e.Outcome]++
	g.recent = append(g.recent, e)
	if over := len(g.recent) - g.cfg.KeepRequests; over > 0 {
		g.recent = append(g.recent[:0], g.recent[over:]...)
	}
}

// blockedHost says whether host or one of its parent domains is on the
// block list.
func (g *Gateway) blockedHost(host string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	host = strings.ToLower(host)
	for {
		if g.blocked[host] {
			return true
		}
		_, parent, ok := strings.Cut(host, ".")
		if !ok {
			return false
		}
		host = parent
	}
}

// matchDomain says whether host is one of domains or a subdomain of one.
func matchDomain(host string, domains []string) bool {
	host = strings.ToLower(host)
	for _, d := range domains {
		d = strings.ToLower(d)
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// hostOnly drops the port of a CONNECT target.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// certCache keeps the certificates signed for inspected hosts, so each is
// signed once; when full it forgets them all.
type certCache struct {
	mu    sync.Mutex
	max   int
	certs map[string]*tls.Certificate
}

// Fetch returns the certificate of host, signing it with gen the first
// time.
func (c *certCache) Fetch(host string, gen func() (*tls.Certificate, error)) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cert, ok := c.certs[host]; ok {
		return cert, nil
	}
	cert, err := gen()
	if err != nil {
		return nil, err
	}
	if len(c.certs) >= c.max {
		c.certs = map[string]*tls.Certificate{}
	}
	c.certs[host] = cert
	return cert, nil
}

// printfLogger hands goproxy's Printf lines to slog at debug level.
type printfLogger struct{ l *slog.Logger }

// Printf logs one goproxy line.
func (p printfLogger) Printf(format string, v ...any) {
	p.l.Debug("goproxy", "line", strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// newCA makes the office's own CA, an ECDSA P-256 key with a self-signed
// certificate valid for a year, and returns it with its PEM.
func newCA() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "Office egress proxy CA", Organization: []string{"Office IT"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// handleRequests answers the latest requests, newest first, and the counts
// of each outcome as JSON.
func (g *Gateway) handleRequests(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	out := struct {
		Counts   map[string]int `json:"counts"`
		Requests []Entry        `json:"requests"`
	}{Counts: map[string]int{}, Requests: make([]Entry, 0, len(g.recent))}
	for k, n := range g.counts {
		out.Counts[k] = n
	}
	for i := len(g.recent) - 1; i >= 0; i-- {
		out.Requests = append(out.Requests, g.recent[i])
	}
	g.mu.Unlock()
	writeJSON(w, g.logger, out)
}

// handleBlocked answers the block list as JSON.
func (g *Gateway) handleBlocked(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	hosts := make([]string, 0, len(g.blocked))
	for h := range g.blocked {
		hosts = append(hosts, h)
	}
	g.mu.Unlock()
	sort.Strings(hosts)
	writeJSON(w, g.logger, hosts)
}

// handleBlock adds a host to the block list.
func (g *Gateway) handleBlock(w http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.PathValue("host"))
	if host == "" || len(host) > 253 || strings.ContainsAny(host, "/: ") {
		http.Error(w, "host must be a DNS name of at most 253 characters", http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	g.blocked[host] = true
	g.mu.Unlock()
	g.logger.Info("host blocked by admin", "host", host, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// handleUnblock removes a host from the block list.
func (g *Gateway) handleUnblock(w http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.PathValue("host"))
	g.mu.Lock()
	ok := g.blocked[host]
	delete(g.blocked, host)
	g.mu.Unlock()
	if !ok {
		http.Error(w, "host is not blocked", http.StatusNotFound)
		return
	}
	g.logger.Info("host unblocked by admin", "host", host, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// handleCA serves the office CA's certificate for browsers to trust.
func (g *Gateway) handleCA(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-pem-file")
	w.Header().Set("Content-Disposition", `attachment; filename="office-proxy-ca.pem"`)
	if _, err := w.Write(g.caPEM); err != nil {
		g.logger.Warn("ca.pem", "error", err)
	}
}

// writeJSON writes v as JSON.
func writeJSON(w http.ResponseWriter, logger *slog.Logger, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		logger.Warn("admin answer", "error", err)
	}
}
