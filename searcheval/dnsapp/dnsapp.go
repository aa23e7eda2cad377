// Package dnsapp is a real service of the search evaluation: the internal
// authoritative DNS server of a team's service zone (miekg/dns,
// github.com/miekg/dns, its server, message codec, zone file parser, TSIG
// and zone transfers; nobody here wrote them) that answers for one zone
// over UDP and TCP, limits the queries of each client, sends the whole zone
// only to its listed secondaries (signed with TSIG when keys are set) and
// notifies them of changes, with a small HTTP admin API to add and remove
// records and, at /mcp, the code tools and the tool enquiry over a source
// snapshot of the service and its dependencies, as an adopter would serve
// them. Command dnsserver runs it.
package dnsapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/miekg/dns"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the DNS server.
type Config struct {
	Zone        string            // the zone served, such as svc.example.internal.
	Addr        string            // UDP and TCP address DNS listens on; "" for 127.0.0.1:0
	PrimaryNS   string            // name of the primary name server, in the SOA and NS records
	Hostmaster  string            // mailbox of the zone's admin, as a name (hostmaster.example.com.)
	TTL         uint32            // TTL of records added without one; 0 for 300 seconds
	Secondaries []string          // IP addresses that may transfer the zone and get NOTIFY
	TSIGKeys    map[string]string // TSIG secrets (base64) by key name; transfers must be signed when set
	QPS         float64           // queries a client may send per second; 0 for 20
	Burst       int               // queries a client may send at once; 0 for 40
	MaxRecords  int               // records the zone may hold; 0 for 10 000
	UDPSize     int               // largest UDP query read; 0 for the library's default
}

// Zone is the records of the zone and the state of its clients.
type Zone struct {
	cfg     Config
	logger  *slog.Logger
	udp     *dns.Server
	tcp     *dns.Server
	mu      sync.Mutex
	serial  uint32
	records map[string][]dns.RR // by owner name, lower case
	count   int
	buckets map[string]*bucket // by client address
}

// maxClients is how many clients' buckets are kept before the idle ones
// are dropped.
const maxClients = 10000

// bucket is the token bucket of one client.
type bucket struct {
	tokens float64
	last   time.Time
}

// NewService starts the DNS server and returns the MCP server over
// snapshot (a directory written by mcpsnapshot; nil for none), the zone
// and the HTTP handler that serves the admin API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Zone, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "dnsserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "dnsserver", Version: "0.1.0", Logger: logger})
	z, err := newZone(cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := z.listen(); err != nil {
		return nil, nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/records", z.handleList)
	mux.HandleFunc("POST /admin/records", z.handleAdd)
	mux.HandleFunc("DELETE /admin/records/{name}/{type}", z.handleRemove)
	return srv, z, mux, nil
}

// newZone checks the configuration and fills in its defaults.
func newZone(cfg Config, logger *slog.Logger) (*Zone, error) {
	if _, ok := dns.IsDomainName(cfg.Zone); !ok || cfg.Zone == "" {
		return nil, fmt.Errorf("zone %q is not a domain name", cfg.Zone)
	}
	cfg.Zone = dns.CanonicalName(cfg.Zone)
	if cfg.PrimaryNS == "" {
		cfg.PrimaryNS = "ns1." + cfg.Zone
	}
	if cfg.Hostmaster == "" {
		cfg.Hostmaster = "hostmaster." + cfg.Zone
	}
	if cfg.TTL == 0 {
		cfg.TTL = 300
	}
	if cfg.QPS <= 0 {
		cfg.QPS = 20
	}
	if cfg.Burst <= 0 {
		cfg.Burst = 40
	}
	if cfg.MaxRecords <= 0 {
		cfg.MaxRecords = 10000
	}
	for _, s := range cfg.Secondaries {
		if net.ParseIP(s) == nil {
			return nil, fmt.Errorf("secondary %q is not an IP address", s)
		}
	}
	keys := map[string]string{}
	for name, secret := range cfg.TSIGKeys {
		keys[dns.CanonicalName(name)] = secret
	}
	cfg.TSIGKeys = keys
	return &Zone{cfg: cfg, logger: logger, serial: uint32(time.Now().Unix()),
		records: map[string][]dns.RR{}, buckets: map[string]*bucket{}}, nil
}

// listen opens the UDP and TCP sockets on one port and serves them.
func (z *Zone) listen() error {
	addr := z.cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return fmt.Errorf("dns udp: %w", err)
	}
	l, err := net.Listen("tcp", pc.LocalAddr().String())
	if err != nil {
		pc.Close()
		return fmt.Errorf("dns tcp: %w", err)
	}
	mux := dns.NewServeMux()
	mux.HandleFunc(z.cfg.Zone, z.serveDNS)
	var secrets map[string]string
	if len(z.cfg.TSIGKeys) > 0 {
		secrets = z.cfg.TSIGKeys
	}
	invalid := func(m []byte, err error) { z.logger.Debug("dns malformed query", "bytes", len(m), "error", err) }
	z.udp = &dns.Server{PacketConn: pc, Handler: mux, UDPSize: z.cfg.UDPSize, TsigSecret: secrets, MsgInvalidFunc: invalid}
	z.tcp = &dns.Server{Listener: l, Handler: mux, TsigSecret: secrets, MsgInvalidFunc: invalid,
		ReadTimeout: 2 * time.Second, IdleTimeout: func() time.Duration { return 10 * time.Second }, MaxTCPQueries: 256}
	for _, s := range []*dns.Server{z.udp, z.tcp} {
		started := make(chan struct{})
		s.NotifyStartedFunc = func() { close(started) }
		go func() {
			if err := s.ActivateAndServe(); err != nil {
				z.logger.Error("dns serve", "error", err)
			}
		}()
		<-started
	}
	return nil
}

// Addr is the address the DNS server listens on.
func (z *Zone) Addr() string { return z.udp.PacketConn.LocalAddr().String() }

// Close stops the DNS server.
func (z *Zone) Close() error {
	return errors.Join(z.udp.Shutdown(), z.tcp.Shutdown())
}

// allow takes a token from the client's bucket; it says whether the
// client is under its limit.
func (z *Zone) allow(client string, now time.Time) bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	b, ok := z.buckets[client]
	if !ok && len(z.buckets) >= maxClients {
		for c, old := range z.buckets {
			if now.Sub(old.last) > time.Minute {
				delete(z.buckets, c)
			}
		}
	}
	if !ok {
		b = &bucket{tokens: float64(z.cfg.Burst), last: now}
		z.buckets[client] = b
	}
	b.tokens = min(float64(z.cfg.Burst), b.tokens+now.Sub(b.last).Seconds()*z.cfg.QPS)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// serveDNS answers one query for the zone: a transfer to a secondary, or
// the records of a name.
func (z *Zone) serveDNS(w dns.ResponseWriter, r *dns.Msg) {
	client, _, _ := net.SplitHostPort(w.RemoteAddr().String())
	if !z.allow(client, time.Now()) {
		z.logger.Warn("dns rate limited", "client", client)
		m := new(dns.Msg)
		w.WriteMsg(m.SetRcode(r, dns.RcodeRefused))
		return
	}
	q := r.Question[0]
	if q.Qtype == dns.TypeAXFR || q.Qtype == dns.TypeIXFR {
		z.transfer(w, r, client)
		return
	}
	m := z.answer(r)
	size := dns.MinMsgSize
	if opt := r.IsEdns0(); opt != nil {
		size = max(int(opt.UDPSize()), dns.MinMsgSize)
		m.SetEdns0(uint16(size), false)
	}
	if _, tcp := w.RemoteAddr().(*net.TCPAddr); !tcp {
		m.Truncate(size)
	}
	if err := w.WriteMsg(m); err != nil {
		z.logger.Warn("dns reply", "client", client, "error", err)
	}
}

// answer looks a question up in the zone: the records of its type, a
// CNAME, no data with the SOA, or NXDOMAIN.
func (z *Zone) answer(r *dns.Msg) *dns.Msg {
	q := r.Question[0]
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	name := dns.CanonicalName(q.Name)
	z.mu.Lock()
	defer z.mu.Unlock()
	rrs := z.lookupLocked(name)
	if len(rrs) == 0 {
		m.Rcode = dns.RcodeNameError
		m.Ns = []dns.RR{z.soaLocked()}
		return m
	}
	for _, rr := range rrs {
		t := rr.Header().Rrtype
		if t == q.Qtype || q.Qtype == dns.TypeANY || (t == dns.TypeCNAME && q.Qtype != dns.TypeCNAME) {
			m.Answer = append(m.Answer, dns.Copy(rr))
		}
	}
	if len(m.Answer) == 0 {
		m.Ns = []dns.RR{z.soaLocked()}
	}
	return m
}

// lookupLocked returns the records of name, with the zone's own SOA and
// NS at its apex.
func (z *Zone) lookupLocked(name string) []dns.RR {
	rrs := z.records[name]
	if name == z.cfg.Zone {
		ns := &dns.NS{Hdr: dns.RR_Header{Name: z.cfg.Zone, Rrtype: dns.TypeNS, Class: dns.ClassINET, Ttl: z.cfg.TTL}, Ns: z.cfg.PrimaryNS}
		rrs = append([]dns.RR{z.soaLocked(), ns}, rrs...)
	}
	return rrs
}

// soaLocked is the zone's SOA record with its current serial.
func (z *Zone) soaLocked() *dns.SOA {
	return &dns.SOA{Hdr: dns.RR_Header{Name: z.cfg.Zone, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: z.cfg.TTL},
		Ns: z.cfg.PrimaryNS, Mbox: z.cfg.Hostmaster, Serial: z.serial, Refresh: 3600, Retry: 600, Expire: 604800, Minttl: z.cfg.TTL}
}

// transfer sends the whole zone, SOA first and last, to a listed
// secondary over TCP; others are refused.
func (z *Zone) transfer(w dns.ResponseWriter, r *dns.Msg, client string) {
	_, tcp := w.RemoteAddr().(*net.TCPAddr)
	signed := r.IsTsig() != nil && w.TsigStatus() == nil
	if !tcp || !slices.Contains(z.cfg.Secondaries, client) || (len(z.cfg.TSIGKeys) > 0 && !signed) {
		z.logger.Warn("zone transfer refused", "client", client, "tcp", tcp, "signed", signed)
		m := new(dns.Msg)
		w.WriteMsg(m.SetRcode(r, dns.RcodeRefused))
		return
	}
	z.mu.Lock()
	soa := z.soaLocked()
	all := []dns.RR{soa}
	for _, rrs := range z.records {
		all = append(all, rrs...)
	}
	z.mu.Unlock()
	all = append(all, soa)
	ch := make(chan *dns.Envelope, len(all)/100+1)
	for len(all) > 0 {
		n := min(len(all), 100)
		ch <- &dns.Envelope{RR: all[:n]}
		all = all[n:]
	}
	close(ch)
	tr := new(dns.Transfer)
	if err := tr.Out(w, r, ch); err != nil {
		z.logger.Warn("zone transfer", "client", client, "error", err)
		return
	}
	z.logger.Info("zone transferred", "client", client, "serial", soa.Serial)
}

// notify tells each secondary that the zone changed, so that it asks for
// a transfer before its refresh time.
func (z *Zone) notify(serial uint32) {
	c := &dns.Client{Net: "udp", Timeout: 2 * time.Second}
	for _, s := range z.cfg.Secondaries {
		m := new(dns.Msg).SetNotify(z.cfg.Zone)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		_, _, err := c.ExchangeContext(ctx, m, net.JoinHostPort(s, "53"))
		cancel()
		if err != nil {
			z.logger.Warn("dns notify", "secondary", s, "serial", serial, "error", err)
		}
	}
}

// handleList answers the zone's records in zone file format.
func (z *Zone) handleList(w http.ResponseWriter, r *http.Request) {
	z.mu.Lock()
	var b strings.Builder
	b.WriteString(z.soaLocked().String() + "\n")
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range z.records {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		for _, rr := range z.records[n] {
			b.WriteString(rr.String() + "\n")
		}
	}
	z.mu.Unlock()
	w.Header().Set("Content-Type", "text/dns")
	io.WriteString(w, b.String())
}

// handleAdd adds the record of the request's body, one line of a zone
// file such as "api 60 IN A 10.1.2.3", relative to the zone.
func (z *Zone) handleAdd(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4096))
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	zp := dns.NewZoneParser(strings.NewReader(string(body)), z.cfg.Zone, "")
	zp.SetDefaultTTL(z.cfg.TTL)
	rr, ok := zp.Next()
	if err := zp.Err(); err != nil || !ok {
		http.Error(w, fmt.Sprintf("bad record: %v", err), http.StatusBadRequest)
		return
	}
	name := dns.CanonicalName(rr.Header().Name)
	if !dns.IsSubDomain(z.cfg.Zone, name) {
		http.Error(w, fmt.Sprintf("%s is not in zone %s", name, z.cfg.Zone), http.StatusBadRequest)
		return
	}
	if t := rr.Header().Rrtype; t == dns.TypeSOA || t == dns.TypeTSIG || t == dns.TypeOPT {
		http.Error(w, "the zone's SOA and meta records cannot be added", http.StatusBadRequest)
		return
	}
	rr.Header().Name = name
	z.mu.Lock()
	if z.count >= z.cfg.MaxRecords {
		z.mu.Unlock()
		http.Error(w, fmt.Sprintf("zone is full (%d records)", z.cfg.MaxRecords), http.StatusInsufficientStorage)
		return
	}
	for _, old := range z.records[name] {
		if dns.IsDuplicate(old, rr) {
			z.mu.Unlock()
			http.Error(w, "record exists", http.StatusConflict)
			return
		}
	}
	z.records[name] = append(z.records[name], rr)
	z.count++
	z.serial++
	serial := z.serial
	z.mu.Unlock()
	z.logger.Info("record added", "record", rr.String(), "serial", serial, "remote", r.RemoteAddr)
	go z.notify(serial)
	w.WriteHeader(http.StatusCreated)
}

// handleRemove removes the records of a name and type, such as
// DELETE /admin/records/api.svc.example.internal./A.
func (z *Zone) handleRemove(w http.ResponseWriter, r *http.Request) {
	name := dns.CanonicalName(r.PathValue("name"))
	t, ok := dns.StringToType[strings.ToUpper(r.PathValue("type"))]
	if !ok {
		http.Error(w, "unknown record type", http.StatusBadRequest)
		return
	}
	z.mu.Lock()
	before := len(z.records[name])
	kept := slices.DeleteFunc(z.records[name], func(rr dns.RR) bool { return rr.Header().Rrtype == t })
	removed := before - len(kept)
	if len(kept) == 0 {
		delete(z.records, name)
	} else {
		z.records[name] = kept
	}
	z.count -= removed
	if removed > 0 {
		z.serial++
	}
	serial := z.serial
	z.mu.Unlock()
	if removed == 0 {
		http.Error(w, "no such records", http.StatusNotFound)
		return
	}
	z.logger.Info("records removed", "name", name, "type", dns.TypeToString[t], "count", removed, "serial", serial, "remote", r.RemoteAddr)
	go z.notify(serial)
	w.WriteHeader(http.StatusNoContent)
}
