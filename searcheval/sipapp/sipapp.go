// Package sipapp is a real service of the search evaluation: the SIP
// registrar and stateful proxy of an office phone system, over sipgo
// (github.com/emiago/sipgo, its user agent, server, client and transaction
// layer, with github.com/icholy/digest for digest authentication; nobody
// here wrote them). Desk phones REGISTER their extension with a password,
// within expiry limits; an INVITE to an extension is forwarded to the phone
// that registered it last, and BYE and ACK follow the call; the registrar
// pings every phone with OPTIONS and forgets those that stop answering. A
// small HTTP admin API lists and removes registrations. At /mcp, the
// service serves the code tools and the tool enquiry over a source snapshot
// of the service and its dependencies, as an adopter would serve them.
// Command sipserver runs it.
package sipapp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
	"github.com/icholy/digest"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the registrar and proxy.
type Config struct {
	SIPAddr      string            // UDP address SIP listens on; "" picks a free loopback port
	Realm        string            // digest realm the phones authenticate in; "" for "office"
	Users        map[string]string // extension to password
	MinExpires   time.Duration     // shortest registration accepted; 0 for 60s
	MaxExpires   time.Duration     // longest registration granted; 0 for one hour
	MaxContacts  int               // phones one extension may register at once; 0 for 5
	NonceTTL     time.Duration     // how long a digest challenge may be answered; 0 for 5 minutes
	RingTimeout  time.Duration     // how long a forwarded INVITE may ring; 0 for 30s
	PingInterval time.Duration     // interval of the OPTIONS pings to registered phones; 0 for 30s
	MaxMissed    int               // unanswered pings before a phone is dropped; 0 for 3
}

// Registrar is the running SIP registrar and proxy.
type Registrar struct {
	cfg    Config
	ua     *sipgo.UserAgent
	srv    *sipgo.Server
	client *sipgo.Client
	conn   net.PacketConn
	logger *slog.Logger
	stop   context.CancelFunc

	mu       sync.Mutex
	bindings map[string][]*binding // by extension, the latest last
	nonces   map[string]time.Time  // challenge nonce to when it expires
}

// binding is one phone registered for an extension.
type binding struct {
	contact   sip.Uri
	expires   time.Time
	source    string
	userAgent string
	missed    int
}

// NewService starts the SIP registrar and returns the MCP server over
// snapshot (a directory written by mcpsnapshot; nil for none), the
// registrar and the HTTP handler that serves the admin API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Registrar, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "sipserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "sipserver", Version: "0.1.0", Logger: logger})
	r, err := newRegistrar(cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/registrations", r.handleList)
	mux.HandleFunc("DELETE /admin/registrations/{ext}", r.handleUnregister)
	return srv, r, mux, nil
}

// newRegistrar applies the defaults of cfg, builds the user agent and
// starts serving SIP over UDP.
func newRegistrar(cfg Config, logger *slog.Logger) (*Registrar, error) {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.MinExpires, time.Minute)
	def(&cfg.MaxExpires, time.Hour)
	def(&cfg.NonceTTL, 5*time.Minute)
	def(&cfg.RingTimeout, 30*time.Second)
	def(&cfg.PingInterval, 30*time.Second)
	if cfg.Realm == "" {
		cfg.Realm = "office"
	}
	if cfg.MaxContacts <= 0 {
		cfg.MaxContacts = 5
	}
	if cfg.MaxMissed <= 0 {
		cfg.MaxMissed = 3
	}
	addr := cfg.SIPAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	conn, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("sip listen: %w", err)
	}
	host, port, _ := sip.ParseAddr(conn.LocalAddr().String())
	ua, err := sipgo.NewUA(sipgo.WithUserAgent("office-registrar"), sipgo.WithUserAgentHostname(host),
		sipgo.WithUserAgentTransactionLayerOptions(sip.WithTransactionLayerLogger(logger)))
	if err != nil {
		conn.Close()
		return nil, err
	}
	r := &Registrar{cfg: cfg, ua: ua, conn: conn, logger: logger,
		bindings: map[string][]*binding{}, nonces: map[string]time.Time{}}
	if r.srv, err = sipgo.NewServer(ua, sipgo.WithServerLogger(logger)); err == nil {
		r.client, err = sipgo.NewClient(ua, sipgo.WithClientLogger(logger), sipgo.WithClientHostname(host), sipgo.WithClientPort(port))
	}
	if err != nil {
		ua.Close()
		conn.Close()
		return nil, err
	}
	r.srv.OnRegister(r.handleRegister)
	r.srv.OnInvite(r.handleInvite)
	r.srv.OnAck(r.handleAck)
	r.srv.OnBye(r.handleBye)
	r.srv.OnOptions(r.handleOptions)
	ctx, stop := context.WithCancel(context.Background())
	r.stop = stop
	go r.srv.ServeUDP(conn)
	go r.keepAlive(ctx)
	return r, nil
}

// Addr is the address of the SIP listener.
func (r *Registrar) Addr() string { return r.conn.LocalAddr().String() }

// Close stops the pings, the transaction and transport layers and the
// listener.
func (r *Registrar) Close() error {
	r.stop()
	r.ua.Close()
	return r.conn.Close()
}

// reply answers req with a response that has no body.
func (r *Registrar) reply(req *sip.Request, tx sip.ServerTransaction, code int, reason string, headers ...sip.Header) {
	res := sip.NewResponseFromRequest(req, code, reason, nil)
	for _, h := range headers {
		res.AppendHeader(h)
	}
	if err := tx.Respond(res); err != nil {
		r.logger.Warn("sip respond", "method", req.Method, "code", code, "error", err)
	}
}

// challenge answers 401 with a fresh digest nonce.
func (r *Registrar) challenge(req *sip.Request, tx sip.ServerTransaction, stale bool) {
	b := make([]byte, 16)
	rand.Read(b)
	nonce := hex.EncodeToString(b)
	r.mu.Lock()
	r.nonces[nonce] = time.Now().Add(r.cfg.NonceTTL)
	r.mu.Unlock()
	chal := digest.Challenge{Realm: r.cfg.Realm, Nonce: nonce, Algorithm: "MD5", Stale: stale, QOP: []string{"auth"}}
	r.reply(req, tx, sip.StatusUnauthorized, "Unauthorized", sip.NewHeader("WWW-Authenticate", chal.String()))
}

// authenticate checks the digest credentials of req and returns the
// extension; when they are missing, stale or wrong it answers req itself.
func (r *Registrar) authenticate(req *sip.Request, tx sip.ServerTransaction) (string, bool) {
	h := req.GetHeader("Authorization")
	if h == nil {
		r.challenge(req, tx, false)
		return "", false
	}
	cred, err := digest.ParseCredentials(h.Value())
	if err != nil {
		r.reply(req, tx, sip.StatusBadRequest, "Malformed Authorization header")
		return "", false
	}
	r.mu.Lock()
	until, known := r.nonces[cred.Nonce]
	r.mu.Unlock()
	if !known || time.Now().After(until) || cred.Realm != r.cfg.Realm {
		r.challenge(req, tx, known)
		return "", false
	}
	password, ok := r.cfg.Users[cred.Username]
	if ok {
		chal := &digest.Challenge{Realm: r.cfg.Realm, Nonce: cred.Nonce, Algorithm: "MD5"}
		if cred.QOP != "" {
			chal.QOP = []string{cred.QOP}
		}
		want, err := digest.Digest(chal, digest.Options{Method: req.Method.String(), URI: cred.URI,
			Username: cred.Username, Password: password, Cnonce: cred.Cnonce, Count: cred.Nc})
		ok = err == nil && subtle.ConstantTimeCompare([]byte(want.Response), []byte(cred.Response)) == 1
	}
	if !ok {
		r.logger.Warn("sip authentication failed", "user", cred.Username, "source", req.Source())
		r.reply(req, tx, sip.StatusForbidden, "Forbidden")
		return "", false
	}
	return cred.Username, true
}

// requestedExpiry is how long a contact asks to stay registered: its
// expires parameter, else the Expires header, else the longest allowed.
func (r *Registrar) requestedExpiry(req *sip.Request, c *sip.ContactHeader) time.Duration {
	v, ok := c.Params.Get("expires")
	if !ok {
		if h := req.GetHeader("Expires"); h != nil {
			v, ok = h.Value(), true
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); ok && err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	return r.cfg.MaxExpires
}

// handleRegister authenticates a phone and adds, refreshes or removes the
// bindings of its extension within the expiry limits.
func (r *Registrar) handleRegister(req *sip.Request, tx sip.ServerTransaction) {
	ext, ok := r.authenticate(req, tx)
	if !ok {
		return
	}
	if to := req.To(); to == nil || to.Address.User != ext {
		r.reply(req, tx, sip.StatusForbidden, "Cannot register another extension")
		return
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range req.GetHeaders("Contact") {
		c, ok := h.(*sip.ContactHeader)
		if !ok {
			continue
		}
		exp := r.requestedExpiry(req, c)
		if c.Address.Wildcard {
			delete(r.bindings, ext)
			r.logger.Info("sip unregistered all", "ext", ext)
			continue
		}
		if exp > 0 && exp < r.cfg.MinExpires {
			r.reply(req, tx, sip.StatusIntervalToBrief, "Interval Too Brief",
				sip.NewHeader("Min-Expires", strconv.Itoa(int(r.cfg.MinExpires/time.Second))))
			return
		}
		exp = min(exp, r.cfg.MaxExpires)
		kept := r.bindings[ext][:0]
		for _, b := range r.bindings[ext] {
			if b.contact.Addr() != c.Address.Addr() {
				kept = append(kept, b)
			}
		}
		if exp > 0 {
			if len(kept) >= r.cfg.MaxContacts {
				r.logger.Warn("sip too many contacts", "ext", ext, "contacts", len(kept))
				r.reply(req, tx, sip.StatusForbidden, "Too Many Registered Phones")
				return
			}
			ua := ""
			if h := req.GetHeader("User-Agent"); h != nil {
				ua = h.Value()
			}
			kept = append(kept, &binding{contact: *c.Address.Clone(), expires: now.Add(exp), source: req.Source(), userAgent: ua})
			r.logger.Info("sip registered", "ext", ext, "contact", c.Address.String(), "expires", exp)
		}
		r.bindings[ext] = kept
	}
	res := sip.NewResponseFromRequest(req, sip.StatusOK, "OK", nil)
	for _, b := range r.bindings[ext] {
		c := &sip.ContactHeader{Address: b.contact}
		c.Params.Add("expires", strconv.Itoa(int(b.expires.Sub(now)/time.Second)))
		res.AppendHeader(c)
	}
	if err := tx.Respond(res); err != nil {
		r.logger.Warn("sip respond", "method", req.Method, "code", sip.StatusOK, "error", err)
	}
}

// lookup is the contact of the phone that registered ext last.
func (r *Registrar) lookup(ext string) (sip.Uri, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	bs := r.bindings[ext]
	for i := len(bs) - 1; i >= 0; i-- {
		if time.Now().Before(bs[i].expires) {
			return bs[i].contact, true
		}
	}
	return sip.Uri{}, false
}

// handleInvite forwards a call to the phone registered for the extension
// dialled, relays its answers, and cancels it when the caller hangs up or
// nobody picks up within the ring timeout.
func (r *Registrar) handleInvite(req *sip.Request, tx sip.ServerTransaction) {
	ext := req.Recipient.User
	if _, ok := r.cfg.Users[ext]; !ok {
		r.reply(req, tx, sip.StatusNotFound, "Not Found")
		return
	}
	target, ok := r.lookup(ext)
	if !ok {
		r.reply(req, tx, sip.StatusTemporarilyUnavailable, "Temporarily Unavailable")
		return
	}
	if mf := req.MaxForwards(); mf != nil && mf.Val() <= 1 {
		r.reply(req, tx, sip.StatusTooManyHops, "Too Many Hops")
		return
	}
	r.reply(req, tx, sip.StatusTrying, "Trying")
	ctx, cancel := context.WithTimeout(sip.ServerTransactionContext(tx), r.cfg.RingTimeout)
	defer cancel()
	fwd := req.Clone()
	fwd.Recipient = *target.Clone()
	ftx, err := r.client.TransactionRequest(ctx, fwd, sipgo.ClientRequestDecreaseMaxForward,
		sipgo.ClientRequestAddVia, sipgo.ClientRequestAddRecordRoute)
	if err != nil {
		r.logger.Warn("sip forward failed", "ext", ext, "contact", target.String(), "error", err)
		r.reply(req, tx, sip.StatusBadGateway, "Bad Gateway")
		return
	}
	defer ftx.Terminate()
	for {
		select {
		case res := <-ftx.Responses():
			if res.StatusCode == sip.StatusTrying {
				continue
			}
			r.relay(res, tx)
			if !res.IsProvisional() {
				return
			}
		case <-ftx.Done():
			r.logger.Warn("sip forward failed", "ext", ext, "contact", target.String(), "error", ftx.Err())
			r.reply(req, tx, sip.StatusRequestTimeout, "Request Timeout")
			return
		case <-ctx.Done():
			r.cancelForward(fwd)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				r.logger.Info("sip call not answered", "ext", ext, "caller", req.From().Address.User, "after", r.cfg.RingTimeout)
				r.reply(req, tx, sip.StatusRequestTimeout, "Request Timeout")
			}
			return
		}
	}
}

// cancelForward sends CANCEL for a forwarded INVITE that still rings.
func (r *Registrar) cancelForward(fwd *sip.Request) {
	c := sip.NewRequest(sip.CANCEL, fwd.Recipient)
	c.AppendHeader(fwd.Via().Clone())
	for _, name := range []string{"From", "To", "Call-ID", "Route"} {
		sip.CopyHeaders(name, fwd, c)
	}
	c.AppendHeader(&sip.CSeqHeader{SeqNo: fwd.CSeq().SeqNo, MethodName: sip.CANCEL})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := r.client.Do(ctx, c, sipgo.ClientRequestBuild); err != nil {
		r.logger.Debug("sip cancel", "error", err)
	}
}

// relay sends a response of the forwarded request back upstream without
// the proxy's own Via.
func (r *Registrar) relay(res *sip.Response, tx sip.ServerTransaction) {
	out := sip.CopyResponse(res)
	out.RemoveHeader("Via")
	if err := tx.Respond(out); err != nil {
		r.logger.Warn("sip relay", "code", res.StatusCode, "error", err)
	}
}

// handleAck passes the ACK of an answered call on to the phone, without a
// transaction.
func (r *Registrar) handleAck(req *sip.Request, tx sip.ServerTransaction) {
	fwd := req.Clone()
	fwd.RemoveHeader("Route")
	if err := r.client.WriteRequest(fwd, sipgo.ClientRequestAddVia, sipgo.ClientRequestDecreaseMaxForward); err != nil {
		r.logger.Warn("sip ack forward", "to", fwd.Recipient.String(), "error", err)
	}
}

// handleBye passes a hang-up within a call on to the other phone and
// relays its answer.
func (r *Registrar) handleBye(req *sip.Request, tx sip.ServerTransaction) {
	fwd := req.Clone()
	fwd.RemoveHeader("Route")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := r.client.Do(ctx, fwd, sipgo.ClientRequestAddVia, sipgo.ClientRequestDecreaseMaxForward)
	if err != nil {
		r.logger.Warn("sip bye forward", "to", fwd.Recipient.String(), "error", err)
		r.reply(req, tx, sip.StatusCallTransactionDoesNotExists, "Call Leg/Transaction Does Not Exist")
		return
	}
	r.relay(res, tx)
}

// handleOptions answers a phone's keepalive with the methods served.
func (r *Registrar) handleOptions(req *sip.Request, tx sip.ServerTransaction) {
	methods := r.srv.RegisteredMethods()
	sort.Strings(methods)
	r.reply(req, tx, sip.StatusOK, "OK", sip.NewHeader("Allow", strings.Join(methods, ", ")),
		sip.NewHeader("Accept", "application/sdp"))
}

// keepAlive drops expired registrations and nonces and pings every
// registered phone with OPTIONS, dropping those that miss too many pings.
func (r *Registrar) keepAlive(ctx context.Context) {
	t := time.NewTicker(r.cfg.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			r.mu.Lock()
			for n, until := range r.nonces {
				if now.After(until) {
					delete(r.nonces, n)
				}
			}
			var all []*binding
			for ext, bs := range r.bindings {
				kept := bs[:0]
				for _, b := range bs {
					switch {
					case now.After(b.expires):
						r.logger.Info("sip registration expired", "ext", ext, "contact", b.contact.String())
					case b.missed >= r.cfg.MaxMissed:
						r.logger.Warn("sip phone unreachable, registration dropped", "ext", ext, "contact", b.contact.String(), "missed", b.missed)
					default:
						kept = append(kept, b)
						all = append(all, b)
					}
				}
				r.bindings[ext] = kept
			}
			r.mu.Unlock()
			for _, b := range all {
				r.ping(ctx, b)
			}
		}
	}
}

// ping sends OPTIONS to a registered phone and counts a missed answer.
func (r *Registrar) ping(ctx context.Context, b *binding) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r.mu.Lock()
	contact := b.contact
	r.mu.Unlock()
	res, err := r.client.Do(ctx, sip.NewRequest(sip.OPTIONS, contact))
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || res.StatusCode >= 500 {
		b.missed++
		return
	}
	b.missed = 0
}

// registration is one phone in the answer of the registrations endpoint.
type registration struct {
	Extension string    `json:"extension"`
	Contact   string    `json:"contact"`
	Expires   time.Time `json:"expires"`
	Source    string    `json:"source"`
	UserAgent string    `json:"user_agent,omitempty"`
	Missed    int       `json:"missed_pings"`
}

// handleList answers the registered phones as JSON.
func (r *Registrar) handleList(w http.ResponseWriter, req *http.Request) {
	out := []registration{}
	r.mu.Lock()
	for ext, bs := range r.bindings {
		for _, b := range bs {
			out = append(out, registration{Extension: ext, Contact: b.contact.String(), Expires: b.expires,
				Source: b.source, UserAgent: b.userAgent, Missed: b.missed})
		}
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Extension < out[j].Extension })
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(out); err != nil {
		r.logger.Warn("registrations", "error", err)
	}
}

// handleUnregister removes every registration of an extension, for a phone
// that was taken away.
func (r *Registrar) handleUnregister(w http.ResponseWriter, req *http.Request) {
	ext := req.PathValue("ext")
	r.mu.Lock()
	n := len(r.bindings[ext])
	delete(r.bindings, ext)
	r.mu.Unlock()
	if n == 0 {
		http.Error(w, "no registration for this extension", http.StatusNotFound)
		return
	}
	r.logger.Info("sip registration removed by admin", "ext", ext, "contacts", n, "remote", req.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}
