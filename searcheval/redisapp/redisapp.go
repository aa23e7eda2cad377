// Package redisapp is a real service of the search evaluation: an embedded
// Redis server for development and tests (miniredis,
// github.com/alicebob/miniredis/v2, nobody here wrote it) with a small HTTP
// admin API and, at /mcp, the code tools and the tool enquiry over a source
// snapshot of the service and its dependencies, as an adopter would serve
// them. Command redisserver runs it.
package redisapp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the service.
type Config struct {
	RedisAddr   string        // address the Redis protocol listens on; "" picks a free loopback port
	Password    string        // password the Redis clients must send with AUTH; "" for none
	Fixtures    io.Reader     // key=value lines loaded at start; nil for none
	TickEvery   time.Duration // how often the fake clock advances key expiry; 0 leaves expiry to the commands
	AdminPrefix string        // path prefix of the admin API; "/admin/" when empty
}

// Service is the running Redis server and its admin API.
type Service struct {
	redis  *miniredis.Miniredis
	logger *slog.Logger
	stop   chan struct{}
}

// NewService starts the Redis server and returns the MCP server over
// snapshot (a directory written by mcpsnapshot; nil for none), the service
// and the HTTP handler that serves the admin API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Service, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "redisserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "redisserver", Version: "0.1.0", Logger: logger})
	m := miniredis.NewMiniRedis()
	if cfg.Password != "" {
		m.RequireAuth(cfg.Password)
	}
	addr := cfg.RedisAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if err := m.StartAddr(addr); err != nil {
		return nil, nil, nil, fmt.Errorf("redis: %w", err)
	}
	s := &Service{redis: m, logger: logger, stop: make(chan struct{})}
	if cfg.Fixtures != nil {
		if err := loadFixtures(m, cfg.Fixtures); err != nil {
			m.Close()
			return nil, nil, nil, err
		}
	}
	if cfg.TickEvery > 0 {
		go s.advanceClock(cfg.TickEvery)
	}
	prefix := cfg.AdminPrefix
	if prefix == "" {
		prefix = "/admin/"
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("POST "+prefix+"flush", s.handleFlush)
	mux.HandleFunc("GET "+prefix+"stats", s.handleStats)
	return srv, s, mux, nil
}

// Addr is the address of the Redis protocol listener.
func (s *Service) Addr() string { return s.redis.Addr() }

// Close stops the Redis server and the clock.
func (s *Service) Close() {
	close(s.stop)
	s.redis.Close()
}

// loadFixtures sets one key per "key=value" line of r; blank lines and
// lines starting with # are skipped.
func loadFixtures(m *miniredis.Miniredis, r io.Reader) error {
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return fmt.Errorf("fixtures line %d: no '=' in %q", n, line)
		}
		if err := m.Set(k, v); err != nil {
			return fmt.Errorf("fixtures line %d: %w", n, err)
		}
	}
	return sc.Err()
}

// advanceClock moves the server's clock forward every tick, so that keys
// with a TTL expire while the service runs.
func (s *Service) advanceClock(tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.redis.FastForward(tick)
		}
	}
}

// handleFlush deletes every key of every database.
func (s *Service) handleFlush(w http.ResponseWriter, r *http.Request) {
	s.redis.FlushAll()
	s.logger.Info("flushed all databases", "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// stats is the answer of the stats endpoint.
type stats struct {
	Connections int `json:"connections"`
	Commands    int `json:"commands"`
	Keys        int `json:"keys"`
}

// handleStats answers the number of connected clients, of commands served
// and of keys in the selected database.
func (s *Service) handleStats(w http.ResponseWriter, r *http.Request) {
	st := stats{
		Connections: s.redis.CurrentConnectionCount(),
		Commands:    s.redis.CommandCount(),
		Keys:        len(s.redis.Keys()),
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(st); err != nil {
		s.logger.Warn("stats", "error", err)
	}
}
