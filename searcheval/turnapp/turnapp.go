// Package turnapp is a real service of the search evaluation: a TURN relay
// for WebRTC clients behind NATs (pion/turn, github.com/pion/turn/v4, nobody
// here wrote it) with static accounts, a per-user allocation quota and, at
// /mcp, the code tools and the tool enquiry over a source snapshot of the
// service and its dependencies, as an adopter would serve them. Command
// turnserver runs it.
package turnapp

import (
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/pion/turn/v4"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the relay.
type Config struct {
	ListenUDP      string            // UDP address TURN listens on
	PublicIP       string            // IP address the relayed addresses carry
	Realm          string            // realm of the long-term credentials
	Users          map[string]string // user name to password
	MinPort        uint16            // lowest relay port
	MaxPort        uint16            // highest relay port
	AllocationsPer int               // allocations one user may hold at once; 0 for no limit
}

// NewService starts the relay and returns the MCP server over snapshot (a
// directory written by mcpsnapshot; nil for none), the relay and the HTTP
// handler that serves MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *turn.Server, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "turnserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "turnserver", Version: "0.1.0", Logger: logger})
	relay, err := startRelay(cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	return srv, relay, mux, nil
}

// startRelay listens on the UDP address and starts the TURN server.
func startRelay(cfg Config, logger *slog.Logger) (*turn.Server, error) {
	conn, err := net.ListenPacket("udp4", cfg.ListenUDP)
	if err != nil {
		return nil, fmt.Errorf("turn listen: %w", err)
	}
	q := &userQuota{max: cfg.AllocationsPer, held: map[string]int{}}
	s, err := turn.NewServer(turn.ServerConfig{
		Realm:        cfg.Realm,
		AuthHandler:  staticAuth(cfg.Users, cfg.Realm),
		QuotaHandler: q.allow,
		EventHandler: turn.EventHandler{
			OnAllocationCreated: func(_, _ net.Addr, _, user, _ string, _ net.Addr, _ int) { q.add(user, 1) },
			OnAllocationDeleted: func(_, _ net.Addr, _, user, _ string) { q.add(user, -1) },
			OnAuth: func(src, _ net.Addr, _, user, _ string, method string, ok bool) {
				if !ok {
					logger.Warn("turn authentication failed", "user", user, "remote", src.String(), "method", method)
				}
			},
		},
		PacketConnConfigs: []turn.PacketConnConfig{{
			PacketConn: conn,
			RelayAddressGenerator: &turn.RelayAddressGeneratorPortRange{
				RelayAddress: net.ParseIP(cfg.PublicIP),
				Address:      "0.0.0.0",
				MinPort:      cfg.MinPort,
				MaxPort:      cfg.MaxPort,
			},
		}},
	})
	if err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

// staticAuth returns the AuthHandler that knows the users of the map: the
// key of a user's long-term credential, precomputed.
func staticAuth(users map[string]string, realm string) turn.AuthHandler {
	keys := make(map[string][]byte, len(users))
	for u, pw := range users {
		keys[u] = turn.GenerateAuthKey(u, realm, pw)
	}
	return func(username, _ string, _ net.Addr) ([]byte, bool) {
		k, ok := keys[username]
		return k, ok
	}
}

// userQuota counts the allocations each user holds.
type userQuota struct {
	mu   sync.Mutex
	max  int
	held map[string]int
}

// allow says whether the user may create another allocation.
func (q *userQuota) allow(username, _ string, _ net.Addr) bool {
	if q.max <= 0 {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.held[username] < q.max
}

// add changes the count of the user's allocations by n.
func (q *userQuota) add(username string, n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.held[username] += n
	if q.held[username] <= 0 {
		delete(q.held, username)
	}
}
