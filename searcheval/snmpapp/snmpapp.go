// Package snmpapp is a real service of the search evaluation: the network
// monitor of a team's switches and routers over SNMP (gosnmp,
// github.com/gosnmp/gosnmp; nobody here wrote it). It receives traps and
// informs (v2c with the team's communities, v3 with USM users), polls the
// devices' uptime and interface counters on a schedule with timeouts and
// retries, and shows the last traps and poll results on a small HTTP admin
// API. At /mcp, the service serves the code tools and the tool enquiry over
// a source snapshot of the service and its dependencies, as an adopter
// would serve them. Command snmpserver runs it.
package snmpapp

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/big"
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
	"github.com/gosnmp/gosnmp"
	"golang.org/x/sync/semaphore"
	"golang.org/x/sync/singleflight"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// OIDs the monitor reads or recognises.
const (
	oidSysUpTime    = ".1.3.6.1.2.1.1.3.0"
	oidSysName      = ".1.3.6.1.2.1.1.5.0"
	oidIfHCInOctets = ".1.3.6.1.2.1.31.1.1.1.6"
	oidIfHCOutOcts  = ".1.3.6.1.2.1.31.1.1.1.10"
	oidSnmpTrapOID  = ".1.3.6.1.6.3.1.1.4.1.0"
)

// trapNames are the generic traps of SNMPv2-MIB and IF-MIB by OID.
var trapNames = map[string]string{
	".1.3.6.1.6.3.1.1.5.1": "coldStart",
	".1.3.6.1.6.3.1.1.5.2": "warmStart",
	".1.3.6.1.6.3.1.1.5.3": "linkDown",
	".1.3.6.1.6.3.1.1.5.4": "linkUp",
	".1.3.6.1.6.3.1.1.5.5": "authenticationFailure",
}

// User is an SNMPv3 USM user whose traps the monitor accepts, or with which
// it polls.
type User struct {
	Name         string
	AuthProtocol gosnmp.SnmpV3AuthProtocol // gosnmp.NoAuth, SHA, SHA256, ...
	AuthPass     string
	PrivProtocol gosnmp.SnmpV3PrivProtocol // gosnmp.NoPriv, AES, ...
	PrivPass     string
}

// Device is a switch or router the monitor polls.
type Device struct {
	Name      string
	Addr      string // host or host:port; port 161 when absent
	Community string // v2c community; ignored when User is set
	User      string // name of a v3 user of Config.Users; "" for v2c
}

// Config configures the monitor.
type Config struct {
	TrapAddr       string        // UDP address the trap receiver listens on; "" picks a free loopback port
	Communities    []string      // v2c communities whose traps are accepted
	Users          []User        // v3 users whose traps are accepted and who may poll
	Devices        []Device      // devices polled on every round
	PollInterval   time.Duration // time between poll rounds; 0 for one minute
	PollTimeout    time.Duration // time one request waits for its answer; 0 for 2 s
	Retries        int           // requests sent again after a timeout; 0 for 2
	MaxRepetitions uint32        // rows one GETBULK asks for; 0 for 25
	MaxInterfaces  int           // interface rows kept per device; 0 for 512
	MaxParallel    int           // devices polled at the same time; 0 for 4
	MaxTraps       int           // traps kept for the admin API; 0 for 200
}

// Trap is one trap or inform the receiver accepted.
type Trap struct {
	At       time.Time         `json:"at"`
	From     string            `json:"from"`
	Version  string            `json:"version"`
	Security string            `json:"security"` // community or v3 user name
	Inform   bool              `json:"inform,omitempty"`
	Name     string            `json:"name"` // such as linkDown, or the trap OID
	Vars     map[string]string `json:"vars"`
}

// Poll is the last poll of one device.
type Poll struct {
	Device  string            `json:"device"`
	At      time.Time         `json:"at"`
	SysName string            `json:"sysName,omitempty"`
	Uptime  uint32            `json:"uptimeTicks,omitempty"`
	InOcts  map[string]string `json:"inOctets,omitempty"`  // by ifIndex
	OutOcts map[string]string `json:"outOctets,omitempty"` // by ifIndex
	Error   string            `json:"error,omitempty"`
}

// Monitor is the running trap receiver and poller.
type Monitor struct {
	cfg      Config
	logger   *slog.Logger
	listener *gosnmp.TrapListener
	addr     string
	users    map[string]User
	slots    *semaphore.Weighted // one per device polled at the same time
	inflight singleflight.Group  // one poll of a device at a time, by name
	mu       sync.Mutex
	traps    []Trap // newest last, at most cfg.MaxTraps
	polls    map[string]Poll
}

// errTooManyInterfaces ends a walk over more rows than MaxInterfaces.
var errTooManyInterfaces = errors.New("snmpapp: too many interfaces")

// NewService starts the trap receiver and returns the MCP server over
// snapshot (a directory written by mcpsnapshot; nil for none), the monitor
// and the HTTP handler that serves the admin API and MCP at /mcp. The
// caller runs the poller with Monitor.Run.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Monitor, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "snmpserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "snmpserver", Version: "0.1.0", Logger: logger})
	m, err := newMonitor(cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := m.listen(); err != nil {
		return nil, nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/traps", m.handleTraps)
	mux.HandleFunc("GET /admin/polls", m.handlePolls)
	mux.HandleFunc("POST /admin/polls/{device}", m.handlePollNow)
	return srv, m, mux, nil
}

// newMonitor applies the defaults of cfg.
func newMonitor(cfg Config, logger *slog.Logger) (*Monitor, error) {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Minute
	}
	if cfg.PollTimeout <= 0 {
		cfg.PollTimeout = 2 * time.Second
	}
	if cfg.Retries <= 0 {
		cfg.Retries = 2
	}
	if cfg.MaxRepetitions == 0 {
		cfg.MaxRepetitions = 25
	}
	if cfg.MaxInterfaces <= 0 {
		cfg.MaxInterfaces = 512
	}
	if cfg.MaxParallel <= 0 {
		cfg.MaxParallel = 4
	}
	if cfg.MaxTraps <= 0 {
		cfg.MaxTraps = 200
	}
	m := &Monitor{cfg: cfg, logger: logger, users: map[string]User{}, slots: semaphore.NewWeighted(int64(cfg.MaxParallel)), polls: map[string]Poll{}}
	for _, u := range cfg.Users {
		m.users[u.Name] = u
	}
	for _, d := range cfg.Devices {
		if d.User != "" {
			if _, ok := m.users[d.User]; !ok {
				return nil, fmt.Errorf("device %s: no v3 user %q", d.Name, d.User)
			}
		}
	}
	return m, nil
}

// slogPrinter hands gosnmp's debug lines to slog at debug level.
type slogPrinter struct{ logger *slog.Logger }

func (p slogPrinter) Print(v ...any) { p.logger.Debug(strings.TrimSpace(fmt.Sprint(v...))) }
func (p slogPrinter) Printf(format string, v ...any) {
	p.logger.Debug(strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// usm is the USM security parameters of a user.
func usm(u User, logger gosnmp.Logger) (*gosnmp.UsmSecurityParameters, gosnmp.SnmpV3MsgFlags) {
	sp := &gosnmp.UsmSecurityParameters{UserName: u.Name, AuthenticationProtocol: gosnmp.NoAuth, PrivacyProtocol: gosnmp.NoPriv, Logger: logger}
	flags := gosnmp.NoAuthNoPriv
	if u.AuthProtocol > gosnmp.NoAuth {
		sp.AuthenticationProtocol, sp.AuthenticationPassphrase = u.AuthProtocol, u.AuthPass
		flags = gosnmp.AuthNoPriv
		if u.PrivProtocol > gosnmp.NoPriv {
			sp.PrivacyProtocol, sp.PrivacyPassphrase = u.PrivProtocol, u.PrivPass
			flags = gosnmp.AuthPriv
		}
	}
	return sp, flags
}

// listen starts the trap receiver and waits until it is ready.
func (m *Monitor) listen() error {
	addr := m.cfg.TrapAddr
	if addr == "" {
		// TrapListener does not tell its address: take a free port first.
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("trap listen: %w", err)
		}
		addr = pc.LocalAddr().String()
		pc.Close()
	}
	logger := gosnmp.NewLogger(slogPrinter{m.logger.With("component", "gosnmp")})
	// Version3 so that v3 traps are authenticated against the users'
	// table; v1 and v2c traps are decoded whatever the version here.
	params := &gosnmp.GoSNMP{Version: gosnmp.Version3, SecurityModel: gosnmp.UserSecurityModel, Logger: logger}
	table := gosnmp.NewSnmpV3SecurityParametersTable(logger)
	for _, u := range m.cfg.Users {
		sp, _ := usm(u, logger)
		if err := table.Add(u.Name, sp); err != nil {
			return fmt.Errorf("v3 user %s: %w", u.Name, err)
		}
	}
	params.SetTrapSecurityParametersTable(table)
	m.listener = gosnmp.NewTrapListener()
	m.listener.Params = params
	m.listener.OnNewTrap = m.onTrap
	m.listener.CloseTimeout = time.Second
	errc := make(chan error, 1)
	go func() { errc <- m.listener.Listen(addr) }()
	select {
	case <-m.listener.Listening():
		m.addr = addr
		m.logger.Info("trap receiver listening", "addr", addr, "communities", len(m.cfg.Communities), "users", len(m.cfg.Users))
		return nil
	case err := <-errc:
		return fmt.Errorf("trap listen on %s: %w", addr, err)
	}
}

// Addr is the UDP address of the trap receiver.
func (m *Monitor) Addr() string { return m.addr }

// Close stops the trap receiver.
func (m *Monitor) Close() error {
	m.listener.Close()
	return nil
}

// communityAllowed tells whether a v1 or v2c trap's community is one of
// the team's; gosnmp's listener accepts any.
func (m *Monitor) communityAllowed(community string) bool {
	for _, c := range m.cfg.Communities {
		if subtle.ConstantTimeCompare([]byte(c), []byte(community)) == 1 {
			return true
		}
	}
	return false
}

// onTrap records a trap or inform the listener decoded (v3 ones are
// already authenticated against the users' table).
func (m *Monitor) onTrap(p *gosnmp.SnmpPacket, from *net.UDPAddr) {
	t := Trap{At: time.Now(), From: from.String(), Version: p.Version.String(), Inform: p.PDUType == gosnmp.InformRequest, Vars: map[string]string{}}
	switch p.Version {
	case gosnmp.Version3:
		if sp, ok := p.SecurityParameters.(*gosnmp.UsmSecurityParameters); ok {
			t.Security = sp.UserName
		}
	default:
		if !m.communityAllowed(p.Community) {
			m.logger.Warn("snmp trap refused: unknown community", "from", t.From, "version", t.Version)
			return
		}
		t.Security = p.Community
	}
	if p.PDUType == gosnmp.Trap {
		t.Name = fmt.Sprintf("%s generic %d specific %d", p.Enterprise, p.GenericTrap, p.SpecificTrap)
	}
	for i, v := range p.Variables {
		if i >= 32 {
			break
		}
		val := formatValue(v)
		if v.Name == oidSnmpTrapOID {
			t.Name = val
			if n, ok := trapNames[val]; ok {
				t.Name = n
			}
			continue
		}
		t.Vars[v.Name] = val
	}
	m.logger.Info("snmp trap", "from", t.From, "name", t.Name, "security", t.Security, "inform", t.Inform)
	m.mu.Lock()
	m.traps = append(m.traps, t)
	if len(m.traps) > m.cfg.MaxTraps {
		m.traps = m.traps[len(m.traps)-m.cfg.MaxTraps:]
	}
	m.mu.Unlock()
}

// formatValue is a variable's value as text, at most 256 bytes.
func formatValue(v gosnmp.SnmpPDU) string {
	var s string
	switch v.Type {
	case gosnmp.OctetString:
		b, _ := v.Value.([]byte)
		s = string(b)
	case gosnmp.ObjectIdentifier, gosnmp.IPAddress:
		s, _ = v.Value.(string)
	case gosnmp.Counter32, gosnmp.Counter64, gosnmp.Gauge32, gosnmp.Integer, gosnmp.TimeTicks, gosnmp.Uinteger32:
		s = gosnmp.ToBigInt(v.Value).String()
	default:
		s = fmt.Sprintf("%s %v", v.Type, v.Value)
	}
	if len(s) > 256 {
		s = s[:256]
	}
	return s
}

// Run polls every device each PollInterval until ctx ends.
func (m *Monitor) Run(ctx context.Context) {
	tick := time.NewTicker(m.cfg.PollInterval)
	defer tick.Stop()
	for {
		var wg sync.WaitGroup
		for _, d := range m.cfg.Devices {
			wg.Add(1)
			go func() {
				defer wg.Done()
				m.pollDevice(ctx, d)
			}()
		}
		wg.Wait()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// pollDevice polls one device when a slot is free and records the result;
// a poll of the device already running is waited for instead of sent again.
func (m *Monitor) pollDevice(ctx context.Context, d Device) Poll {
	v, _, _ := m.inflight.Do(d.Name, func() (any, error) {
		if err := m.slots.Acquire(ctx, 1); err != nil {
			return Poll{Device: d.Name, At: time.Now(), Error: err.Error()}, nil
		}
		defer m.slots.Release(1)
		p, err := m.poll(ctx, d)
		if err != nil {
			p.Error = err.Error()
			m.logger.Warn("snmp poll failed", "device", d.Name, "addr", d.Addr, "error", err)
		}
		m.mu.Lock()
		m.polls[d.Name] = p
		m.mu.Unlock()
		return p, nil
	})
	return v.(Poll)
}

// client is the gosnmp client of a device, with the monitor's timeouts.
func (m *Monitor) client(ctx context.Context, d Device) (*gosnmp.GoSNMP, error) {
	host, port := d.Addr, uint16(161)
	if h, p, err := net.SplitHostPort(d.Addr); err == nil {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("device %s: bad port %q", d.Name, p)
		}
		host, port = h, uint16(n)
	}
	logger := gosnmp.NewLogger(slogPrinter{m.logger.With("component", "gosnmp", "device", d.Name)})
	g := &gosnmp.GoSNMP{Target: host, Port: port, Transport: "udp", Community: d.Community, Version: gosnmp.Version2c,
		Context: ctx, Timeout: m.cfg.PollTimeout, Retries: m.cfg.Retries, ExponentialTimeout: true,
		MaxOids: gosnmp.MaxOids, MaxRepetitions: m.cfg.MaxRepetitions, Logger: logger}
	if d.User != "" {
		sp, flags := usm(m.users[d.User], logger)
		g.Version, g.SecurityModel, g.SecurityParameters, g.MsgFlags = gosnmp.Version3, gosnmp.UserSecurityModel, sp, flags
	}
	return g, nil
}

// poll reads a device's name, uptime and 64-bit interface octet counters.
func (m *Monitor) poll(ctx context.Context, d Device) (Poll, error) {
	p := Poll{Device: d.Name, At: time.Now()}
	g, err := m.client(ctx, d)
	if err != nil {
		return p, err
	}
	if err := g.Connect(); err != nil {
		return p, fmt.Errorf("connect %s: %w", d.Addr, err)
	}
	defer g.Close()
	res, err := g.Get([]string{oidSysName, oidSysUpTime})
	if err != nil {
		if errors.Is(err, gosnmp.ErrMaxRetriesExceeded) {
			return p, fmt.Errorf("device %s did not answer after %d retries", d.Name, m.cfg.Retries)
		}
		return p, fmt.Errorf("get system: %w", err)
	}
	if res.Error != gosnmp.NoError {
		return p, fmt.Errorf("get system: agent answered %s at variable %d", res.Error, res.ErrorIndex)
	}
	for _, v := range res.Variables {
		switch v.Name {
		case oidSysName:
			p.SysName = formatValue(v)
		case oidSysUpTime:
			p.Uptime = uint32(gosnmp.ToBigInt(v.Value).Uint64())
		}
	}
	if p.InOcts, err = m.walkCounters(g, oidIfHCInOctets); err != nil {
		return p, fmt.Errorf("walk ifHCInOctets: %w", err)
	}
	if p.OutOcts, err = m.walkCounters(g, oidIfHCOutOcts); err != nil {
		return p, fmt.Errorf("walk ifHCOutOctets: %w", err)
	}
	return p, nil
}

// walkCounters walks a counter column of the interface table by GETBULK,
// keeping at most MaxInterfaces rows by ifIndex.
func (m *Monitor) walkCounters(g *gosnmp.GoSNMP, column string) (map[string]string, error) {
	out := map[string]string{}
	err := g.BulkWalk(column, func(v gosnmp.SnmpPDU) error {
		if len(out) >= m.cfg.MaxInterfaces {
			return errTooManyInterfaces
		}
		var n *big.Int
		if v.Type == gosnmp.Counter64 || v.Type == gosnmp.Counter32 {
			n = gosnmp.ToBigInt(v.Value)
		} else {
			return fmt.Errorf("%s is a %s, not a counter", v.Name, v.Type)
		}
		out[strings.TrimPrefix(v.Name, column+".")] = n.String()
		return nil
	})
	if errors.Is(err, errTooManyInterfaces) {
		m.logger.Warn("snmp interface limit reached", "host", g.Target, "limit", m.cfg.MaxInterfaces)
		err = nil
	}
	return out, err
}

// handleTraps answers the last traps, newest first, as JSON; ?limit= keeps
// fewer.
func (m *Monitor) handleTraps(w http.ResponseWriter, r *http.Request) {
	limit := m.cfg.MaxTraps
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			http.Error(w, "limit must be a positive integer", http.StatusBadRequest)
			return
		}
		limit = min(n, limit)
	}
	m.mu.Lock()
	out := make([]Trap, 0, min(limit, len(m.traps)))
	for i := len(m.traps) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, m.traps[i])
	}
	m.mu.Unlock()
	m.writeJSON(w, out)
}

// handlePolls answers the last poll of every device as JSON.
func (m *Monitor) handlePolls(w http.ResponseWriter, _ *http.Request) {
	m.mu.Lock()
	out := make([]Poll, 0, len(m.polls))
	for _, p := range m.polls {
		out = append(out, p)
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	m.writeJSON(w, out)
}

// handlePollNow polls one device at once and answers its result.
func (m *Monitor) handlePollNow(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("device")
	for _, d := range m.cfg.Devices {
		if d.Name == name {
			ctx, cancel := context.WithTimeout(r.Context(), time.Duration(m.cfg.Retries+1)*4*m.cfg.PollTimeout)
			defer cancel()
			m.logger.Info("poll requested by admin", "device", name, "remote", r.RemoteAddr)
			m.writeJSON(w, m.pollDevice(ctx, d))
			return
		}
	}
	http.Error(w, "no such device", http.StatusNotFound)
}

// writeJSON writes v as the JSON answer.
func (m *Monitor) writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		m.logger.Warn("admin answer", "error", err)
	}
}
