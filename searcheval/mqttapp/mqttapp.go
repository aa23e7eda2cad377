// Package mqttapp is a real service of the search evaluation: an MQTT
// broker (mochi-mqtt, github.com/mochi-mqtt/server/v2, nobody here wrote
// it) with TCP and websocket listeners, user accounts, an audit log of
// published messages and, at /mcp, the code tools and the tool enquiry over
// a source snapshot of the service and its dependencies, as an adopter
// would serve them. Command mqttserver runs it.
package mqttapp

import (
	"bytes"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the broker.
type Config struct {
	TCPAddr       string            // MQTT over TCP; "" for none
	WebsocketAddr string            // MQTT over websockets; "" for none
	Users         map[string]string // user name to password; empty lets anyone in
	AuditTopics   []string          // topic prefixes whose publishes are logged
	MaxClients    int64             // connected clients at most; 0 for no limit
}

// NewService starts the broker and returns the MCP server over snapshot (a
// directory written by mcpsnapshot; nil for none), the broker and the HTTP
// handler that serves MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *mqtt.Server, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "mqttserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "mqttserver", Version: "0.1.0", Logger: logger})
	broker, err := newBroker(cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	return srv, broker, mux, nil
}

// newBroker configures the broker: its limits, its hooks and its
// listeners. The caller starts it with Serve.
func newBroker(cfg Config, logger *slog.Logger) (*mqtt.Server, error) {
	caps := mqtt.NewDefaultServerCapabilities()
	if cfg.MaxClients > 0 {
		caps.MaximumClients = cfg.MaxClients
	}
	b := mqtt.New(&mqtt.Options{Capabilities: caps, Logger: logger, InlineClient: true})
	if len(cfg.Users) == 0 {
		if err := b.AddHook(new(auth.AllowHook), nil); err != nil {
			return nil, err
		}
	} else if err := b.AddHook(new(auth.Hook), &auth.Options{Ledger: accountLedger(cfg.Users)}); err != nil {
		return nil, err
	}
	if len(cfg.AuditTopics) > 0 {
		if err := b.AddHook(&auditHook{prefixes: cfg.AuditTopics, log: logger}, nil); err != nil {
			return nil, err
		}
	}
	if cfg.TCPAddr != "" {
		if err := b.AddListener(listeners.NewTCP(listeners.Config{ID: "tcp", Address: cfg.TCPAddr})); err != nil {
			return nil, fmt.Errorf("tcp listener: %w", err)
		}
	}
	if cfg.WebsocketAddr != "" {
		if err := b.AddListener(listeners.NewWebsocket(listeners.Config{ID: "ws", Address: cfg.WebsocketAddr})); err != nil {
			return nil, fmt.Errorf("websocket listener: %w", err)
		}
	}
	return b, nil
}

// accountLedger returns the auth rules that let each user in with their
// password, and nobody else.
func accountLedger(users map[string]string) *auth.Ledger {
	l := &auth.Ledger{Users: auth.Users{}}
	for name, pw := range users {
		l.Users[name] = auth.UserRule{Username: auth.RString(name), Password: auth.RString(pw), Disallow: false}
	}
	return l
}

// auditHook logs the messages published to the topics of its prefixes.
type auditHook struct {
	mqtt.HookBase
	prefixes []string
	log      *slog.Logger
}

// ID names the hook.
func (h *auditHook) ID() string { return "audit" }

// Provides says the hook sees publishes.
func (h *auditHook) Provides(b byte) bool {
	return bytes.Contains([]byte{mqtt.OnPublish}, []byte{b})
}

// OnPublish logs a message published to an audited topic and lets it
// through unchanged.
func (h *auditHook) OnPublish(cl *mqtt.Client, pk packets.Packet) (packets.Packet, error) {
	for _, p := range h.prefixes {
		if strings.HasPrefix(pk.TopicName, p) {
			h.log.Info("audit publish", "client", cl.ID, "topic", pk.TopicName, "bytes", len(pk.Payload))
			break
		}
	}
	return pk, nil
}
