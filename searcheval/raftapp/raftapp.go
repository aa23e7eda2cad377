// Package raftapp is a real service of the search evaluation: a team's
// replicated configuration store (hashicorp/raft, github.com/hashicorp/raft,
// with go-hclog and go-msgpack; nobody here wrote them) that three nodes run
// together. Each node applies set and delete commands to an in-memory
// key-value state machine, takes snapshots, talks to its peers over TCP or,
// in tests, an in-memory transport, and logs leadership changes with slog.
// A small HTTP API reads and writes keys and lets an operator add and remove
// peers; at /mcp, the service serves the code tools and the tool enquiry
// over a source snapshot of the service and its dependencies, as an adopter
// would serve them. Command raftserver runs it.
package raftapp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures one node of the store.
type Config struct {
	NodeID        string        // the node's id in the cluster, such as "cfg-1"
	RaftAddr      string        // TCP address of the Raft transport, one peers can reach; "" for an in-memory transport
	DataDir       string        // directory of the snapshots; "" keeps them in memory
	Bootstrap     bool          // form a new cluster of this node alone when there is no state yet
	MaxKeys       int           // keys the store holds at most; 0 for 10000
	MaxValueBytes int           // bytes of one value at most; 0 for 64 KiB
	ApplyTimeout  time.Duration // how long a write waits to be committed; 0 for 5s
	RetainSnaps   int           // snapshots kept on disk; 0 for 3
	RaftLogLevel  string        // level of the Raft library's own log; "" for WARN
}

// Node is one running node: its Raft instance, state machine and transport.
type Node struct {
	cfg    Config
	raft   *raft.Raft
	fsm    *store
	trans  raft.Transport
	logger *slog.Logger
	obs    *raft.Observer
	done   chan struct{}
}

// NewService starts the node and returns the MCP server over snapshot (a
// directory written by mcpsnapshot; nil for none), the node and the HTTP
// handler that serves the key-value and admin API and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Node, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "raftserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "raftserver", Version: "0.1.0", Logger: logger})
	n, err := startNode(cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /kv/{key}", n.handleGet)
	mux.HandleFunc("PUT /kv/{key}", n.handleSet)
	mux.HandleFunc("DELETE /kv/{key}", n.handleDelete)
	mux.HandleFunc("GET /admin/status", n.handleStatus)
	mux.HandleFunc("POST /admin/peers", n.handleJoin)
	mux.HandleFunc("DELETE /admin/peers/{id}", n.handleLeave)
	mux.HandleFunc("POST /admin/snapshot", n.handleSnapshot)
	mux.HandleFunc("POST /admin/step-down", n.handleStepDown)
	return srv, n, mux, nil
}

// startNode fills in the defaults, opens the transport and the stores,
// starts Raft and bootstraps the cluster when asked to.
func startNode(cfg Config, logger *slog.Logger) (*Node, error) {
	if cfg.NodeID == "" {
		return nil, errors.New("raft: a node id is required")
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = 10000
	}
	if cfg.MaxValueBytes <= 0 {
		cfg.MaxValueBytes = 64 << 10
	}
	if cfg.ApplyTimeout <= 0 {
		cfg.ApplyTimeout = 5 * time.Second
	}
	if cfg.RetainSnaps <= 0 {
		cfg.RetainSnaps = 3
	}
	if cfg.RaftLogLevel == "" {
		cfg.RaftLogLevel = "WARN"
	}
	hlog := hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.LevelFromString(cfg.RaftLogLevel),
		Output: slogWriter{logger}, DisableTime: true})
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.NodeID)
	rc.Logger = hlog
	rc.SnapshotThreshold = 1024
	n := &Node{cfg: cfg, fsm: &store{data: map[string]string{}, maxKeys: cfg.MaxKeys}, logger: logger, done: make(chan struct{})}
	var snaps raft.SnapshotStore = raft.NewInmemSnapshotStore()
	if cfg.DataDir != "" {
		fss, err := raft.NewFileSnapshotStoreWithLogger(cfg.DataDir, cfg.RetainSnaps, hlog)
		if err != nil {
			return nil, fmt.Errorf("raft snapshots: %w", err)
		}
		snaps = fss
	}
	if cfg.RaftAddr == "" {
		_, n.trans = raft.NewInmemTransport(raft.ServerAddress("inmem-" + cfg.NodeID))
	} else {
		var err error
		if n.trans, err = raft.NewTCPTransportWithLogger(cfg.RaftAddr, nil, 3, 10*time.Second, hlog); err != nil {
			return nil, fmt.Errorf("raft listen: %w", err)
		}
	}
	logs := raft.NewInmemStore()
	r, err := raft.NewRaft(rc, n.fsm, logs, logs, snaps, n.trans)
	if err != nil {
		closeTransport(n.trans)
		return nil, fmt.Errorf("raft: %w", err)
	}
	n.raft = r
	if cfg.Bootstrap {
		boot := raft.Configuration{Servers: []raft.Server{{Suffrage: raft.Voter, ID: rc.LocalID, Address: n.trans.LocalAddr()}}}
		if err := r.BootstrapCluster(boot).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
			n.Close()
			return nil, fmt.Errorf("raft bootstrap: %w", err)
		}
	}
	ch := make(chan raft.Observation, 16)
	n.obs = raft.NewObserver(ch, false, func(o *raft.Observation) bool {
		switch o.Data.(type) {
		case raft.LeaderObservation, raft.PeerObservation, raft.FailedHeartbeatObservation:
			return true
		}
		return false
	})
	r.RegisterObserver(n.obs)
	go n.watch(ch)
	return n, nil
}

// watch logs leadership changes, peers that come and go and peers that
// stop answering heartbeats, until the node closes.
func (n *Node) watch(ch <-chan raft.Observation) {
	for {
		select {
		case <-n.done:
			return
		case o := <-ch:
			switch d := o.Data.(type) {
			case raft.LeaderObservation:
				if d.LeaderID == "" {
					n.logger.Warn("raft cluster has no leader", "node", n.cfg.NodeID)
					continue
				}
				n.logger.Info("raft leader changed", "node", n.cfg.NodeID, "leader", string(d.LeaderID), "addr", string(d.LeaderAddr))
			case raft.PeerObservation:
				n.logger.Info("raft peer changed", "peer", string(d.Peer.ID), "addr", string(d.Peer.Address), "removed", d.Removed)
			case raft.FailedHeartbeatObservation:
				n.logger.Warn("raft peer not answering", "peer", string(d.PeerID), "last_contact", d.LastContact)
			}
		}
	}
}

// Addr is the address peers reach the node's Raft transport at.
func (n *Node) Addr() string { return string(n.trans.LocalAddr()) }

// Close stops Raft and the transport.
func (n *Node) Close() error {
	select {
	case <-n.done:
		return nil
	default:
		close(n.done)
	}
	if n.obs != nil {
		n.raft.DeregisterObserver(n.obs)
	}
	err := n.raft.Shutdown().Error()
	return errors.Join(err, closeTransport(n.trans))
}

// closeTransport closes the transport's listener or in-memory pipes.
func closeTransport(t raft.Transport) error {
	if c, ok := t.(raft.WithClose); ok {
		return c.Close()
	}
	return nil
}

// slogWriter hands each line that the Raft library logs to slog.
type slogWriter struct{ logger *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.logger.Info("raft", "line", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// notLeader answers a write or a consistent read sent to a follower with
// the leader's address, for the client to retry there.
func (n *Node) notLeader(w http.ResponseWriter) {
	addr, id := n.raft.LeaderWithID()
	w.Header().Set("X-Raft-Leader", string(id))
	http.Error(w, fmt.Sprintf("not the leader; the leader is %q at %s", id, addr), http.StatusMisdirectedRequest)
}

// apply replicates one command and waits until it is applied here.
func (n *Node) apply(w http.ResponseWriter, c command) {
	data, err := json.Marshal(c)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f := n.raft.Apply(data, n.cfg.ApplyTimeout)
	if err := f.Error(); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
			n.notLeader(w)
			return
		}
		n.logger.Warn("raft apply failed", "op", c.Op, "key", c.Key, "error", err)
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if err, ok := f.Response().(error); ok && err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleGet reads a key from this node's state; ?consistent=1 first checks
// that this node is still the leader, so the value is not stale.
func (n *Node) handleGet(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("consistent") == "1" {
		if err := n.raft.VerifyLeader().Error(); err != nil {
			n.notLeader(w)
			return
		}
	}
	v, ok := n.fsm.get(r.PathValue("key"))
	if !ok {
		http.Error(w, "no such key", http.StatusNotFound)
		return
	}
	io.WriteString(w, v)
}

// handleSet writes a key through the leader.
func (n *Node) handleSet(w http.ResponseWriter, r *http.Request) {
	if n.raft.State() != raft.Leader {
		n.notLeader(w)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(n.cfg.MaxValueBytes)))
	if err != nil {
		http.Error(w, fmt.Sprintf("value longer than %d bytes", n.cfg.MaxValueBytes), http.StatusRequestEntityTooLarge)
		return
	}
	n.apply(w, command{Op: "set", Key: r.PathValue("key"), Value: string(body)})
}

// handleDelete deletes a key through the leader.
func (n *Node) handleDelete(w http.ResponseWriter, r *http.Request) {
	if n.raft.State() != raft.Leader {
		n.notLeader(w)
		return
	}
	n.apply(w, command{Op: "delete", Key: r.PathValue("key")})
}

// status is the answer of the status endpoint.
type status struct {
	Node    string            `json:"node"`
	State   string            `json:"state"`
	Leader  string            `json:"leader"`
	Term    uint64            `json:"term"`
	Applied uint64            `json:"applied"`
	Peers   []peer            `json:"peers"`
	Stats   map[string]string `json:"stats"`
}

// peer is one server of the cluster's configuration.
type peer struct {
	ID    string `json:"id"`
	Addr  string `json:"addr"`
	Voter bool   `json:"voter"`
}

// handleStatus answers the node's role, term, the cluster's members and
// Raft's own statistics.
func (n *Node) handleStatus(w http.ResponseWriter, _ *http.Request) {
	_, leader := n.raft.LeaderWithID()
	st := status{Node: n.cfg.NodeID, State: n.raft.State().String(), Leader: string(leader),
		Term: n.raft.CurrentTerm(), Applied: n.raft.AppliedIndex(), Peers: []peer{}, Stats: n.raft.Stats()}
	if f := n.raft.GetConfiguration(); f.Error() == nil {
		for _, s := range f.Configuration().Servers {
			st.Peers = append(st.Peers, peer{ID: string(s.ID), Addr: string(s.Address), Voter: s.Suffrage == raft.Voter})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(st); err != nil {
		n.logger.Warn("status", "error", err)
	}
}

// handleJoin adds a node to the cluster, as a voter unless it asks to be a
// non-voting replica; a node already known under the same id and address
// is left as it is, one known under another address is replaced.
func (n *Node) handleJoin(w http.ResponseWriter, r *http.Request) {
	var p peer
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10)).Decode(&p); err != nil || p.ID == "" || p.Addr == "" {
		http.Error(w, `want {"id": ..., "addr": ..., "voter": true|false}`, http.StatusBadRequest)
		return
	}
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	for _, s := range f.Configuration().Servers {
		if s.ID == raft.ServerID(p.ID) && s.Address == raft.ServerAddress(p.Addr) {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if s.ID == raft.ServerID(p.ID) || s.Address == raft.ServerAddress(p.Addr) {
			if err := n.raft.RemoveServer(s.ID, 0, n.cfg.ApplyTimeout).Error(); err != nil {
				n.membershipError(w, "remove", string(s.ID), err)
				return
			}
		}
	}
	var err error
	if p.Voter {
		err = n.raft.AddVoter(raft.ServerID(p.ID), raft.ServerAddress(p.Addr), 0, n.cfg.ApplyTimeout).Error()
	} else {
		err = n.raft.AddNonvoter(raft.ServerID(p.ID), raft.ServerAddress(p.Addr), 0, n.cfg.ApplyTimeout).Error()
	}
	if err != nil {
		n.membershipError(w, "add", p.ID, err)
		return
	}
	n.logger.Info("raft peer joined", "peer", p.ID, "addr", p.Addr, "voter", p.Voter, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// handleLeave removes a node from the cluster.
func (n *Node) handleLeave(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := n.raft.RemoveServer(raft.ServerID(id), 0, n.cfg.ApplyTimeout).Error(); err != nil {
		n.membershipError(w, "remove", id, err)
		return
	}
	n.logger.Info("raft peer removed by admin", "peer", id, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// membershipError answers a failed change of the cluster's members.
func (n *Node) membershipError(w http.ResponseWriter, op, id string, err error) {
	if errors.Is(err, raft.ErrNotLeader) {
		n.notLeader(w)
		return
	}
	n.logger.Warn("raft membership change failed", "op", op, "peer", id, "error", err)
	http.Error(w, fmt.Sprintf("%s %s: %v", op, id, err), http.StatusServiceUnavailable)
}

// handleSnapshot takes a snapshot now rather than at the next threshold.
func (n *Node) handleSnapshot(w http.ResponseWriter, _ *http.Request) {
	f := n.raft.Snapshot()
	if err := f.Error(); err != nil {
		if errors.Is(err, raft.ErrNothingNewToSnapshot) {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	meta, rc, err := f.Open()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	rc.Close()
	n.logger.Info("raft snapshot taken", "id", meta.ID, "index", meta.Index, "bytes", meta.Size)
	fmt.Fprintf(w, "%s\n", meta.ID)
}

// handleStepDown hands leadership to another voter, before maintenance.
func (n *Node) handleStepDown(w http.ResponseWriter, r *http.Request) {
	if err := n.raft.LeadershipTransfer().Error(); err != nil {
		if errors.Is(err, raft.ErrNotLeader) {
			n.notLeader(w)
			return
		}
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	n.logger.Info("raft leadership handed over", "node", n.cfg.NodeID, "remote", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

// command is one change to the store, as the Raft log carries it.
type command struct {
	Op    string `json:"op"` // "set" or "delete"
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
}

// errFull is the response to a set of a new key when the store holds
// MaxKeys keys.
var errFull = errors.New("raftapp: the store is full")

// store is the replicated state machine: the keys and their values.
type store struct {
	mu      sync.RWMutex
	data    map[string]string
	maxKeys int
}

func (s *store) get(key string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.data[key]
	return v, ok
}

// Apply applies one committed command; what it returns is the response of
// the leader's ApplyFuture.
func (s *store) Apply(l *raft.Log) any {
	var c command
	if err := json.Unmarshal(l.Data, &c); err != nil {
		return fmt.Errorf("log entry %d: %w", l.Index, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch c.Op {
	case "set":
		if _, ok := s.data[c.Key]; !ok && len(s.data) >= s.maxKeys {
			return errFull
		}
		s.data[c.Key] = c.Value
	case "delete":
		delete(s.data, c.Key)
	default:
		return fmt.Errorf("log entry %d: unknown op %q", l.Index, c.Op)
	}
	return nil
}

// Snapshot copies the keys for Persist to write while Apply goes on.
func (s *store) Snapshot() (raft.FSMSnapshot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	cp := make(map[string]string, len(s.data))
	for k, v := range s.data {
		cp[k] = v
	}
	return snapshot(cp), nil
}

// Restore replaces the keys with those of a snapshot.
func (s *store) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	data := map[string]string{}
	if err := json.NewDecoder(rc).Decode(&data); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	s.mu.Lock()
	s.data = data
	s.mu.Unlock()
	return nil
}

// snapshot is a copy of the keys at one log index.
type snapshot map[string]string

// Persist writes the keys as JSON into the sink.
func (s snapshot) Persist(sink raft.SnapshotSink) error {
	if err := json.NewEncoder(sink).Encode(map[string]string(s)); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

// Release does nothing: the copy is garbage once Persist returns.
func (snapshot) Release() {}
