// Package sshapp is a real service of the search evaluation: a maintenance
// shell over SSH (gliderlabs/ssh, github.com/gliderlabs/ssh, over
// golang.org/x/crypto/ssh; nobody here wrote them) that lets operators with
// an authorized key run a few fixed commands and forward ports to allowed
// destinations, with a small HTTP admin API and, at /mcp, the code tools and
// the tool enquiry over a source snapshot of the service and its
// dependencies, as an adopter would serve them. Command sshserver runs it.
package sshapp

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/gliderlabs/ssh"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the shell.
type Config struct {
	SSHAddr        string              // address SSH listens on; "" picks a free loopback port
	HostKeyPEM     []byte              // PEM private host key; nil generates one at start
	AuthorizedKeys map[string][]string // user name to authorized_keys lines
	Banner         string              // text shown before login
	IdleTimeout    time.Duration       // a connection with no traffic this long is closed; 0 for never
	MaxSessionTime time.Duration       // a connection is closed this long after it opened; 0 for never
	ForwardTo      []string            // host:port destinations local port forwarding may reach; empty refuses all
}

// Service is the running SSH server and its admin API.
type Service struct {
	srv      *ssh.Server
	ln       net.Listener
	logger   *slog.Logger
	keys     map[string][]ssh.PublicKey
	forward  []string
	started  time.Time
	mu       sync.Mutex
	sessions map[string]ssh.Session // by session id
}

// NewService starts the SSH server and returns the MCP server over snapshot
// (a directory written by mcpsnapshot; nil for none), the service and the
// HTTP handler that serves the admin API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Service, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "sshserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "sshserver", Version: "0.1.0", Logger: logger})
	keys, err := parseAuthorizedKeys(cfg.AuthorizedKeys)
	if err != nil {
		return nil, nil, nil, err
	}
	s := &Service{logger: logger, keys: keys, forward: cfg.ForwardTo, started: time.Now(), sessions: map[string]ssh.Session{}}
	s.srv = &ssh.Server{
		Handler:                     s.handleSession,
		PublicKeyHandler:            s.authorize,
		LocalPortForwardingCallback: s.allowForward,
		Banner:                      cfg.Banner,
		IdleTimeout:                 cfg.IdleTimeout,
		MaxTimeout:                  cfg.MaxSessionTime,
		ChannelHandlers: map[string]ssh.ChannelHandler{
			"session":      ssh.DefaultSessionHandler,
			"direct-tcpip": ssh.DirectTCPIPHandler,
		},
		ConnectionFailedCallback: func(c net.Conn, err error) {
			logger.Warn("ssh handshake failed", "remote", c.RemoteAddr().String(), "error", err)
		},
	}
	if cfg.HostKeyPEM != nil {
		if err := s.srv.SetOption(ssh.HostKeyPEM(cfg.HostKeyPEM)); err != nil {
			return nil, nil, nil, fmt.Errorf("host key: %w", err)
		}
	}
	addr := cfg.SSHAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if s.ln, err = net.Listen("tcp", addr); err != nil {
		return nil, nil, nil, fmt.Errorf("ssh listen: %w", err)
	}
	go func() {
		if err := s.srv.Serve(s.ln); err != nil && err != ssh.ErrServerClosed {
			logger.Error("ssh", "error", err)
		}
	}()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /admin/sessions", s.handleList)
	mux.HandleFunc("DELETE /admin/sessions/{id}", s.handleKick)
	return srv, s, mux, nil
}

// Addr is the address of the SSH listener.
func (s *Service) Addr() string { return s.ln.Addr().String() }

// Close stops the SSH server and closes every connection.
func (s *Service) Close() error { return s.srv.Close() }

// parseAuthorizedKeys parses each user's authorized_keys lines.
func parseAuthorizedKeys(users map[string][]string) (map[string][]ssh.PublicKey, error) {
	out := make(map[string][]ssh.PublicKey, len(users))
	for user, lines := range users {
		for i, line := range lines {
			k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
			if err != nil {
				return nil, fmt.Errorf("authorized key %d of %q: %w", i+1, user, err)
			}
			out[user] = append(out[user], k)
		}
	}
	return out, nil
}

// authorize lets a user in when the key is one of the user's authorized
// keys.
func (s *Service) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	for _, k := range s.keys[ctx.User()] {
		if ssh.KeysEqual(k, key) {
			return true
		}
	}
	s.logger.Warn("ssh login refused", "user", ctx.User(), "remote", ctx.RemoteAddr().String(), "key", key.Type())
	return false
}

// allowForward lets a session forward a port to the configured
// destinations only.
func (s *Service) allowForward(ctx ssh.Context, host string, port uint32) bool {
	dest := net.JoinHostPort(host, strconv.FormatUint(uint64(port), 10))
	if slices.Contains(s.forward, dest) {
		return true
	}
	s.logger.Warn("port forwarding refused", "user", ctx.User(), "destination", dest)
	return false
}

// handleSession runs the command of a session: uptime, whoami or
// sessions. A session that asks for a shell gets the list of commands.
func (s *Service) handleSession(sess ssh.Session) {
	id := sess.Context().SessionID()
	s.mu.Lock()
	s.sessions[id] = sess
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sessions, id)
		s.mu.Unlock()
	}()
	args := sess.Command()
	if len(args) == 0 {
		io.WriteString(sess, "commands: uptime, whoami, sessions\n")
		return
	}
	switch args[0] {
	case "uptime":
		fmt.Fprintf(sess, "up %s\n", time.Since(s.started).Round(time.Second))
	case "whoami":
		fmt.Fprintf(sess, "%s from %s\n", sess.User(), sess.RemoteAddr())
	case "sessions":
		for _, info := range s.list() {
			fmt.Fprintf(sess, "%s %s %s\n", info.ID, info.User, info.Remote)
		}
	default:
		fmt.Fprintf(sess.Stderr(), "unknown command %q\n", args[0])
		sess.Exit(127)
	}
}

// sessionInfo is one open session in the answer of the sessions endpoint.
type sessionInfo struct {
	ID     string `json:"id"`
	User   string `json:"user"`
	Remote string `json:"remote"`
}

// list returns the open sessions, sorted by id.
func (s *Service) list() []sessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]sessionInfo, 0, len(s.sessions))
	for id, sess := range s.sessions {
		out = append(out, sessionInfo{ID: id, User: sess.User(), Remote: sess.RemoteAddr().String()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// handleList answers the open sessions as JSON.
func (s *Service) handleList(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(s.list()); err != nil {
		s.logger.Warn("sessions", "error", err)
	}
}

// handleKick closes one session: its command ends with exit status 130.
func (s *Service) handleKick(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	sess, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	sess.Exit(130)
	s.logger.Info("session closed by admin", "user", sess.User(), "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}
