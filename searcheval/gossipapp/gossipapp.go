// Package gossipapp is a real service of the search evaluation: a team's
// cache fleet registry (hashicorp/memberlist, github.com/hashicorp/memberlist,
// with go-sockaddr, go-metrics and go-msgpack; nobody here wrote them). Each
// cache node joins a gossip cluster, advertises its role, zone and HTTP
// address as node metadata, and spreads "drain" marks (a node to take out of
// the load balancer's rotation) to every member through gossip broadcasts,
// with a full exchange of the marks when nodes sync. Joins, departures and
// failures are logged with slog. A small HTTP API lists the members and
// their health, joins seeds, leaves, and sets and clears drain marks; at
// /mcp, the service serves the code tools and the tool enquiry over a
// source snapshot of the service and its dependencies, as an adopter would
// serve them. Command gossipserver runs it.
package gossipapp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
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
	"github.com/hashicorp/memberlist"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures one node of the registry.
type Config struct {
	Name      string   // the node's unique name, such as "cache-1"
	BindAddr  string   // gossip address (UDP and TCP); "" for 127.0.0.1
	BindPort  int      // gossip port; 0 picks a free one
	Seeds     []string // host:port of members to join at start; none forms a new cluster
	Role      string   // advertised role, such as "cache" or "edge"
	Zone      string   // advertised availability zone
	HTTPAddr  string   // advertised address of the node's HTTP API
	Key       string   // base64 AES key of the gossip encryption (16, 24 or 32 bytes); "" for none
	Cluster   string   // label that keeps other clusters' gossip out; "" for none
	LeaveWait time.Duration
}

// meta is what a node advertises to the others, as memberlist's node
// metadata (at most memberlist.MetaMaxSize bytes).
type meta struct {
	Role string `json:"r"`
	Zone string `json:"z"`
	HTTP string `json:"h"`
}

// Registry is one running node: its memberlist and the drain marks.
type Registry struct {
	cfg    Config
	list   *memberlist.Memberlist
	queue  *memberlist.TransmitLimitedQueue
	logger *slog.Logger

	mu     sync.Mutex
	drains map[string]drain // by node name
}

// drain is a mark that takes a node out of rotation, or clears the mark;
// the newest version of a node's mark wins.
type drain struct {
	Node    string `json:"node"`
	On      bool   `json:"on"`
	Reason  string `json:"reason,omitempty"`
	Version int64  `json:"v"`
}

// NewService starts the node and returns the MCP server over snapshot (a
// directory written by mcpsnapshot; nil for none), the node and the HTTP
// handler of the registry API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Registry, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "gossipserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "gossipserver", Version: "0.1.0", Logger: logger})
	r, err := Start(cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /members", r.handleMembers)
	mux.HandleFunc("POST /join", r.handleJoin)
	mux.HandleFunc("POST /leave", r.handleLeave)
	mux.HandleFunc("PUT /drain/{node}", r.handleDrain)
	mux.HandleFunc("DELETE /drain/{node}", r.handleUndrain)
	return srv, r, mux, nil
}

// Start creates the node's memberlist on a LAN profile, with loopback-fast
// timings when it binds to loopback, and joins the seeds.
func Start(cfg Config, logger *slog.Logger) (*Registry, error) {
	if cfg.Name == "" {
		return nil, errors.New("gossip: a node name is required")
	}
	if cfg.BindAddr == "" {
		cfg.BindAddr = "127.0.0.1"
	}
	if cfg.LeaveWait <= 0 {
		cfg.LeaveWait = 2 * time.Second
	}
	r := &Registry{cfg: cfg, logger: logger, drains: map[string]drain{}}
	mc := memberlist.DefaultLANConfig()
	if ip := net.ParseIP(cfg.BindAddr); ip != nil && ip.IsLoopback() {
		mc = memberlist.DefaultLocalConfig()
	}
	mc.Name = cfg.Name
	mc.BindAddr, mc.BindPort = cfg.BindAddr, cfg.BindPort
	mc.AdvertisePort = cfg.BindPort
	mc.Label = cfg.Cluster
	mc.Delegate = r
	mc.Events = &events{r}
	mc.Logger = log.New(logWriter{logger}, "", 0)
	if cfg.Key != "" {
		key, err := base64.StdEncoding.DecodeString(cfg.Key)
		if err != nil {
			return nil, fmt.Errorf("gossip key: %w", err)
		}
		kr, err := memberlist.NewKeyring(nil, key)
		if err != nil {
			return nil, fmt.Errorf("gossip key: %w", err)
		}
		mc.Keyring = kr
		mc.GossipVerifyIncoming, mc.GossipVerifyOutgoing = true, true
	}
	list, err := memberlist.Create(mc)
	if err != nil {
		return nil, fmt.Errorf("gossip: %w", err)
	}
	r.list = list
	if cfg.BindPort == 0 {
		// memberlist picked the port: advertise the one it bound.
		r.cfg.BindPort = int(list.LocalNode().Port)
	}
	r.queue = &memberlist.TransmitLimitedQueue{NumNodes: list.NumMembers, RetransmitMult: mc.RetransmitMult}
	if len(cfg.Seeds) > 0 {
		if n, err := list.Join(cfg.Seeds); err != nil {
			list.Shutdown()
			return nil, fmt.Errorf("gossip join (%d reached): %w", n, err)
		}
	}
	return r, nil
}

// Addr is the host:port other nodes join this one at.
func (r *Registry) Addr() string {
	n := r.list.LocalNode()
	return net.JoinHostPort(n.Addr.String(), strconv.Itoa(int(n.Port)))
}

// Close leaves the cluster, waiting up to LeaveWait for the others to
// hear it, and stops gossiping.
func (r *Registry) Close() error {
	err := r.list.Leave(r.cfg.LeaveWait)
	return errors.Join(err, r.list.Shutdown())
}

// logWriter hands each line that memberlist logs to slog, at the level its
// "[WARN]"-style prefix names.
type logWriter struct{ logger *slog.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	line := strings.TrimRight(string(p), "\n")
	level := slog.LevelInfo
	switch {
	case strings.HasPrefix(line, "[ERR]"):
		level = slog.LevelError
	case strings.HasPrefix(line, "[WARN]"):
		level = slog.LevelWarn
	case strings.HasPrefix(line, "[DEBUG]"):
		level = slog.LevelDebug
	}
	w.logger.Log(context.Background(), level, "memberlist", "line", line)
	return len(p), nil
}

// NodeMeta advertises the node's role, zone and HTTP address.
func (r *Registry) NodeMeta(limit int) []byte {
	b, _ := json.Marshal(meta{Role: r.cfg.Role, Zone: r.cfg.Zone, HTTP: r.cfg.HTTPAddr})
	if len(b) > limit {
		r.logger.Warn("gossip metadata too long, not advertised", "bytes", len(b), "limit", limit)
		return nil
	}
	return b
}

// NotifyMsg applies a drain mark gossiped by another node.
func (r *Registry) NotifyMsg(b []byte) {
	var d drain
	if err := json.Unmarshal(b, &d); err != nil {
		r.logger.Warn("gossip: bad drain message", "error", err)
		return
	}
	if r.merge(d) {
		// Pass it on: a node that learns a newer mark spreads it too.
		r.queue.QueueBroadcast(drainBroadcast{d: d, msg: append([]byte(nil), b...)})
	}
}

// GetBroadcasts hands memberlist the queued drain marks to piggyback on
// its own gossip.
func (r *Registry) GetBroadcasts(overhead, limit int) [][]byte {
	return r.queue.GetBroadcasts(overhead, limit)
}

// LocalState sends every drain mark this node knows in a push/pull sync.
func (r *Registry) LocalState(join bool) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := make([]drain, 0, len(r.drains))
	for _, d := range r.drains {
		all = append(all, d)
	}
	b, _ := json.Marshal(all)
	return b
}

// MergeRemoteState keeps the newer of each node's mark from a push/pull
// sync.
func (r *Registry) MergeRemoteState(buf []byte, join bool) {
	var all []drain
	if err := json.Unmarshal(buf, &all); err != nil {
		r.logger.Warn("gossip: bad remote state", "error", err, "join", join)
		return
	}
	for _, d := range all {
		r.merge(d)
	}
}

// merge records d unless the node's mark is already as new; it reports
// whether d was newer.
func (r *Registry) merge(d drain) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.drains[d.Node]; ok && cur.Version >= d.Version {
		return false
	}
	r.drains[d.Node] = d
	return true
}

// drainBroadcast is a drain mark in the broadcast queue; a newer mark for
// the same node replaces it.
type drainBroadcast struct {
	d   drain
	msg []byte
}

func (b drainBroadcast) Invalidates(other memberlist.Broadcast) bool {
	o, ok := other.(drainBroadcast)
	return ok && o.d.Node == b.d.Node
}

func (b drainBroadcast) Message() []byte { return b.msg }
func (b drainBroadcast) Finished()       {}

// events logs members that join, leave or change their metadata.
type events struct{ r *Registry }

func (e *events) NotifyJoin(n *memberlist.Node) {
	e.r.logger.Info("gossip member joined", "node", n.Name, "addr", n.Address(), "meta", string(n.Meta))
}

func (e *events) NotifyLeave(n *memberlist.Node) {
	if n.State == memberlist.StateDead {
		e.r.logger.Warn("gossip member failed", "node", n.Name, "addr", n.Address())
		return
	}
	e.r.logger.Info("gossip member left", "node", n.Name, "addr", n.Address())
}

func (e *events) NotifyUpdate(n *memberlist.Node) {
	e.r.logger.Info("gossip member updated", "node", n.Name, "meta", string(n.Meta))
}

// Member is one node of the cluster as the API lists it.
type Member struct {
	Name     string `json:"name"`
	Addr     string `json:"addr"`
	Role     string `json:"role,omitempty"`
	Zone     string `json:"zone,omitempty"`
	HTTP     string `json:"http,omitempty"`
	Draining bool   `json:"draining"`
	Reason   string `json:"reason,omitempty"`
}

// Members lists the live members, by name, with their advertised metadata
// and drain marks.
func (r *Registry) Members() []Member {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Member
	for _, n := range r.list.Members() {
		var m meta
		json.Unmarshal(n.Meta, &m)
		d := r.drains[n.Name]
		out = append(out, Member{Name: n.Name, Addr: n.Address(), Role: m.Role, Zone: m.Zone, HTTP: m.HTTP, Draining: d.On, Reason: d.Reason})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// handleMembers answers the members and the node's health score (0 is
// healthy; memberlist raises it when this node misses its own probes).
func (r *Registry) handleMembers(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(struct {
		Members []Member `json:"members"`
		Health  int      `json:"health"`
	}{r.Members(), r.list.GetHealthScore()})
}

// handleJoin joins the seeds that the body lists and answers how many
// were reached.
func (r *Registry) handleJoin(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Seeds []string `json:"seeds"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, req.Body, 4<<10)).Decode(&body); err != nil || len(body.Seeds) == 0 {
		http.Error(w, `want {"seeds": ["host:port", ...]}`, http.StatusBadRequest)
		return
	}
	n, err := r.list.Join(body.Seeds)
	if err != nil && n == 0 {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	r.logger.Info("gossip joined", "seeds", body.Seeds, "reached", n, "remote", req.RemoteAddr)
	fmt.Fprintf(w, "%d\n", n)
}

// handleLeave leaves the cluster gracefully, before maintenance; the node
// keeps serving its API.
func (r *Registry) handleLeave(w http.ResponseWriter, req *http.Request) {
	if err := r.list.Leave(r.cfg.LeaveWait); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	r.logger.Info("gossip left by admin", "node", r.cfg.Name, "remote", req.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// handleDrain marks a node as draining, with the reason of the body, and
// gossips the mark.
func (r *Registry) handleDrain(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Reason string `json:"reason"`
	}
	json.NewDecoder(http.MaxBytesReader(w, req.Body, 1<<10)).Decode(&body)
	r.setDrain(w, req.PathValue("node"), true, body.Reason)
}

// handleUndrain clears a node's drain mark and gossips that.
func (r *Registry) handleUndrain(w http.ResponseWriter, req *http.Request) {
	r.setDrain(w, req.PathValue("node"), false, "")
}

// setDrain records a new version of a node's mark and queues it for
// broadcast; a node that is not a member is refused.
func (r *Registry) setDrain(w http.ResponseWriter, node string, on bool, reason string) {
	known := false
	for _, n := range r.list.Members() {
		known = known || n.Name == node
	}
	if !known {
		http.Error(w, fmt.Sprintf("no member named %q", node), http.StatusNotFound)
		return
	}
	d := drain{Node: node, On: on, Reason: reason, Version: time.Now().UnixNano()}
	r.merge(d)
	msg, _ := json.Marshal(d)
	r.queue.QueueBroadcast(drainBroadcast{d: d, msg: msg})
	r.logger.Info("gossip drain mark", "node", node, "on", on, "reason", reason)
	w.WriteHeader(http.StatusNoContent)
}
