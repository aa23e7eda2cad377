// Package dhcpapp is a real service of the search evaluation: the DHCP
// server of a test lab (insomniacslk/dhcp, github.com/insomniacslk/dhcp,
// its DHCPv4 codec and server4 package, over u-root's uio; nobody here wrote
// them) that leases addresses of one range, with fixed addresses for known
// machines, the lab's router and DNS servers, a small HTTP admin API and,
// at /mcp, the code tools and the tool enquiry over a source snapshot of
// the service and its dependencies, as an adopter would serve them.
// Command dhcpserver runs it.
package dhcpapp

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/dhcpv4/server4"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the DHCP server.
type Config struct {
	Addr         string            // UDP address DHCP listens on; "" for 0.0.0.0:67
	Interface    string            // network interface the socket is bound to; "" for none
	ServerIP     net.IP            // the server's own address, sent as its identifier
	RangeStart   net.IP            // first address of the pool
	RangeEnd     net.IP            // last address of the pool
	Netmask      net.IPMask        // subnet mask sent to clients
	Router       net.IP            // default gateway sent to clients; nil for none
	DNS          []net.IP          // name servers sent to clients
	LeaseTime    time.Duration     // how long a lease lasts; 0 for one hour
	Reservations map[string]net.IP // fixed address by hardware address, such as 52:54:00:12:34:56
}

// Lease is one address leased to a client.
type Lease struct {
	MAC     string    `json:"mac"`
	IP      string    `json:"ip"`
	Host    string    `json:"host,omitempty"`
	Expires time.Time `json:"expires"`
}

// Pool is the server's addresses and leases.
type Pool struct {
	cfg    Config
	first  uint32
	last   uint32
	logger *slog.Logger
	mu     sync.Mutex
	leases map[string]*Lease // by hardware address
}

// NewService starts the DHCP server and returns the MCP server over
// snapshot (a directory written by mcpsnapshot; nil for none), the DHCP
// server, its pool and the HTTP handler that serves the admin API and MCP
// at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *server4.Server, *Pool, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "dhcpserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "dhcpserver", Version: "0.1.0", Logger: logger})
	p, err := newPool(cfg, logger)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	addr := &net.UDPAddr{Port: dhcpv4.ServerPort}
	if cfg.Addr != "" {
		if addr, err = net.ResolveUDPAddr("udp4", cfg.Addr); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("dhcp address: %w", err)
		}
	}
	ds, err := server4.NewServer(cfg.Interface, addr, p.handle, server4.WithLogger(slogLogger{logger}))
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("dhcp listen: %w", err)
	}
	go func() {
		if err := ds.Serve(); err != nil && !strings.Contains(err.Error(), "use of closed") {
			logger.Error("dhcp", "error", err)
		}
	}()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/leases", p.handleList)
	mux.HandleFunc("DELETE /admin/leases/{mac}", p.handleRevoke)
	return srv, ds, p, mux, nil
}

// newPool checks the configuration's range and reservations.
func newPool(cfg Config, logger *slog.Logger) (*Pool, error) {
	start, end := cfg.RangeStart.To4(), cfg.RangeEnd.To4()
	if start == nil || end == nil || binary.BigEndian.Uint32(start) > binary.BigEndian.Uint32(end) {
		return nil, fmt.Errorf("range %v-%v: want two IPv4 addresses, the first not after the last", cfg.RangeStart, cfg.RangeEnd)
	}
	if cfg.ServerIP.To4() == nil {
		return nil, fmt.Errorf("server address %v is not IPv4", cfg.ServerIP)
	}
	if cfg.LeaseTime <= 0 {
		cfg.LeaseTime = time.Hour
	}
	for mac := range cfg.Reservations {
		if _, err := net.ParseMAC(mac); err != nil {
			return nil, fmt.Errorf("reservation %q: %w", mac, err)
		}
	}
	return &Pool{cfg: cfg, first: binary.BigEndian.Uint32(start), last: binary.BigEndian.Uint32(end),
		logger: logger, leases: map[string]*Lease{}}, nil
}

// slogLogger sends the library's log lines to the service's log at debug
// level.
type slogLogger struct{ l *slog.Logger }

// Printf logs a line of the library.
func (s slogLogger) Printf(format string, v ...any) { s.l.Debug(fmt.Sprintf(format, v...)) }

// PrintMessage logs a DHCP message in one line.
func (s slogLogger) PrintMessage(prefix string, m *dhcpv4.DHCPv4) {
	s.l.Debug(prefix, "type", m.MessageType().String(), "xid", m.TransactionID.String(), "mac", m.ClientHWAddr.String())
}

// handle answers one DHCP message: an offer to a discover, an ack or a
// nak to a request, and frees the address of a release.
func (p *Pool) handle(conn net.PacketConn, peer net.Addr, m *dhcpv4.DHCPv4) {
	if m.OpCode != dhcpv4.OpcodeBootRequest {
		return
	}
	mac := m.ClientHWAddr.String()
	var reply *dhcpv4.DHCPv4
	var err error
	switch m.MessageType() {
	case dhcpv4.MessageTypeDiscover:
		ip := p.offer(mac)
		if ip == nil {
			p.logger.Warn("dhcp pool exhausted", "mac", mac)
			return
		}
		reply, err = p.reply(m, dhcpv4.MessageTypeOffer, ip)
	case dhcpv4.MessageTypeRequest:
		want := m.RequestedIPAddress()
		if want == nil {
			want = m.ClientIPAddr
		}
		if sid := m.ServerIdentifier(); sid != nil && !sid.Equal(p.cfg.ServerIP) {
			return // the client chose another server
		}
		if p.commit(mac, want, m.HostName()) {
			reply, err = p.reply(m, dhcpv4.MessageTypeAck, want)
		} else {
			p.logger.Info("dhcp request refused", "mac", mac, "requested", want.String())
			reply, err = dhcpv4.NewReplyFromRequest(m, dhcpv4.WithMessageType(dhcpv4.MessageTypeNak),
				dhcpv4.WithOption(dhcpv4.OptServerIdentifier(p.cfg.ServerIP)), dhcpv4.WithOption(dhcpv4.OptMessage("address not available")))
		}
	case dhcpv4.MessageTypeRelease:
		p.release(mac)
		return
	default:
		return
	}
	if err != nil {
		p.logger.Warn("dhcp reply", "mac", mac, "error", err)
		return
	}
	if _, err := conn.WriteTo(reply.ToBytes(), peer); err != nil {
		p.logger.Warn("dhcp send", "mac", mac, "peer", peer.String(), "error", err)
	}
}

// reply builds an offer or an ack of ip with the lab's options.
func (p *Pool) reply(m *dhcpv4.DHCPv4, t dhcpv4.MessageType, ip net.IP) (*dhcpv4.DHCPv4, error) {
	mods := []dhcpv4.Modifier{
		dhcpv4.WithMessageType(t),
		dhcpv4.WithYourIP(ip),
		dhcpv4.WithServerIP(p.cfg.ServerIP),
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(p.cfg.ServerIP)),
		dhcpv4.WithOption(dhcpv4.OptIPAddressLeaseTime(p.cfg.LeaseTime)),
		dhcpv4.WithNetmask(p.cfg.Netmask),
	}
	if p.cfg.Router != nil && m.IsOptionRequested(dhcpv4.OptionRouter) {
		mods = append(mods, dhcpv4.WithRouter(p.cfg.Router))
	}
	if len(p.cfg.DNS) > 0 && m.IsOptionRequested(dhcpv4.OptionDomainNameServer) {
		mods = append(mods, dhcpv4.WithDNS(p.cfg.DNS...))
	}
	return dhcpv4.NewReplyFromRequest(m, mods...)
}

// offer returns the address a client gets: its reservation, its current
// lease, or the first free address of the range; nil when the range is
// full.
func (p *Pool) offer(mac string) net.IP {
	if ip, ok := p.cfg.Reservations[mac]; ok {
		return ip
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.leases[mac]; ok {
		return net.ParseIP(l.IP)
	}
	used := map[string]bool{}
	now := time.Now()
	for _, l := range p.leases {
		if l.Expires.After(now) {
			used[l.IP] = true
		}
	}
	for _, ip := range p.cfg.Reservations {
		used[ip.String()] = true
	}
	for n := p.first; n <= p.last && n >= p.first; n++ {
		ip := make(net.IP, 4)
		binary.BigEndian.PutUint32(ip, n)
		if !used[ip.String()] {
			return ip
		}
	}
	return nil
}

// commit leases ip to a client when it is the client's reservation, or a
// free address of the range; it says whether it did.
func (p *Pool) commit(mac string, ip net.IP, host string) bool {
	ip4 := ip.To4()
	if ip4 == nil {
		return false
	}
	if r, ok := p.cfg.Reservations[mac]; ok && !r.Equal(ip4) {
		return false
	}
	n := binary.BigEndian.Uint32(ip4)
	if _, reserved := p.cfg.Reservations[mac]; !reserved && (n < p.first || n > p.last) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for other, l := range p.leases {
		if other != mac && l.IP == ip4.String() && l.Expires.After(now) {
			return false
		}
	}
	p.leases[mac] = &Lease{MAC: mac, IP: ip4.String(), Host: host, Expires: now.Add(p.cfg.LeaseTime)}
	p.logger.Info("dhcp lease", "mac", mac, "ip", ip4.String(), "host", host)
	return true
}

// release frees a client's lease.
func (p *Pool) release(mac string) {
	p.mu.Lock()
	delete(p.leases, mac)
	p.mu.Unlock()
}

// handleList answers the leases as JSON, sorted by address.
func (p *Pool) handleList(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	out := make([]Lease, 0, len(p.leases))
	for _, l := range p.leases {
		out = append(out, *l)
	}
	p.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].IP < out[j].IP })
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(out); err != nil {
		p.logger.Warn("leases", "error", err)
	}
}

// handleRevoke ends a client's lease before it expires.
func (p *Pool) handleRevoke(w http.ResponseWriter, r *http.Request) {
	mac := strings.ToLower(r.PathValue("mac"))
	p.mu.Lock()
	l, ok := p.leases[mac]
	delete(p.leases, mac)
	p.mu.Unlock()
	if !ok {
		http.Error(w, "no such lease", http.StatusNotFound)
		return
	}
	p.logger.Info("lease revoked by admin", "mac", mac, "ip", l.IP, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}
