package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// Redis replicates asynchronously: a primary that fails right after
// acknowledging a task may take it along, the replica promoted in its place
// never having had it. The task's record is gone; its creation is not
// forgotten, though, by the replicas of the service: every Create
// publishes the task's birth (who it belongs to, its tool, when it
// expires) on the change feed, and a publication reaches the subscribers
// at once, without waiting for replication. Each Store remembers the
// births it saw, the most recent first (Options.RememberTasks), and
// answers Get of a remembered task whose record is gone before its expiry
// with the task failed, saying that the task store lost it; it writes that
// failed task back to Redis (best effort), so that replicas which did not
// see the birth (started later) answer the same. A failover loses the last
// writes before it, which are the ones remembered.
//
// One window remains: Redis answers the creator before it writes the
// publication to the subscribers, so a primary killed within microseconds
// of acknowledging a task may take its birth along as well. The replica
// running that task learns at its next renewal (within a third of the
// lease) that Redis lost it, and records it failed; until then the other
// replicas answer it as unknown. TestLostWrites measures this.

// DefaultRememberTasks is the default of Options.RememberTasks.
const DefaultRememberTasks = 10000

// lostGrace: a task this close to its expiry is taken as expired, not
// lost, when Redis no longer has it (Redis's clock may run ahead).
const lostGrace = 2 * time.Second

// lostVersionJump is added to the last version seen of a task answered as
// lost, past any version written meanwhile.
const lostVersionJump = 1 << 32

// lostMessage is the status message of a task Redis lost.
const lostMessage = "The task store lost this task before it expired (Redis failed over before replicating it, " +
	"or evicted or flushed it); its work is lost: call the tool again"

// birth is what a Store remembers of a task created on any replica.
type birth struct {
	version                 uint64
	created, expires        int64 // Unix nanoseconds
	poll                    time.Duration
	principal, server, perm string
	tool, protocol          string
	reported                bool // answered as lost already
}

// births is a bounded record of recent task creations.
type births struct {
	max   int
	mu    sync.Mutex
	tasks map[string]birth
	order []string // a ring of up to max
	head  int
}

// note remembers the birth of the task a change describes, or raises the
// version remembered of a task already known.
func (b *births) note(w *wireChange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if old, ok := b.tasks[w.ID]; ok {
		old.version = max(old.version, w.Version)
		b.tasks[w.ID] = old
		return
	}
	if w.Born == nil {
		return
	}
	if b.tasks == nil {
		b.tasks = map[string]birth{}
	}
	if len(b.order) < b.max {
		b.order = append(b.order, w.ID)
	} else {
		delete(b.tasks, b.order[b.head])
		b.order[b.head] = w.ID
		b.head = (b.head + 1) % b.max
	}
	n := w.Born
	b.tasks[w.ID] = birth{version: w.Version, created: n.Created, expires: n.Expires, poll: time.Duration(n.Poll),
		principal: n.Principal, server: n.Server, perm: n.Permission, tool: n.Tool, protocol: n.Protocol}
}

// lost returns task id as failed, lost by the store, if its birth is
// remembered and it has not expired at now; first reports whether it is
// answered as lost for the first time here.
func (b *births) lost(id string, now time.Time) (rec *tasks.Record, first bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.tasks[id]
	if !ok || !now.Before(time.Unix(0, t.expires).Add(-lostGrace)) {
		return nil, false
	}
	first = !t.reported
	t.reported = true
	b.tasks[id] = t
	rpc, _ := json.Marshal(map[string]any{"code": mcp.CodeInternalError, "message": "Internal error: the task store lost the task"})
	return &tasks.Record{ID: id, Version: t.version + lostVersionJump, Status: tasks.Failed, StatusMessage: lostMessage,
		Created: time.Unix(0, t.created), Updated: now, Expires: time.Unix(0, t.expires), PollInterval: t.poll,
		Principal: t.principal, Server: t.server, Permission: t.perm, Tool: t.tool, ProtocolVersion: t.protocol,
		Error: rpc}, first
}

// wireBirth is what a create's change carries beyond wireChange: enough
// to answer for the task as failed.
type wireBirth struct {
	Created    int64  `json:"c"`
	Expires    int64  `json:"e"`
	Poll       int64  `json:"i,omitempty"`
	Principal  string `json:"p"`
	Server     string `json:"sv,omitempty"`
	Permission string `json:"pm,omitempty"`
	Tool       string `json:"t"`
	Protocol   string `json:"pv,omitempty"`
}

// rememberBirths starts, once, the Store's own subscription to the change
// feed, which fills s.births; Close stops it.
func (s *Store) rememberBirths() {
	if s.births == nil {
		return
	}
	s.birthOnce.Do(func() {
		deliver := func(payload string) {
			var w wireChange
			if json.Unmarshal([]byte(payload), &w) == nil && w.ID != "" {
				s.births.note(&w)
			}
		}
		stops := make([]func(), len(s.feeds))
		for i, f := range s.feeds {
			stops[i] = f.watch(deliver)
		}
		s.stopBirths = func() {
			for _, stop := range stops {
				stop()
			}
		}
	})
}

// Close stops what the Store started: its subscription to the change
// feed, by which it remembers the tasks created (Options.RememberTasks),
// and the feed's subscription kept for a minute after the last Watch
// stopped (ended at once if no Watch is running).
// It does not close the Redis client. The Store stays usable, though it
// remembers no more births.
func (s *Store) Close() error {
	s.birthOnce.Do(func() {}) // none started later
	if s.stopBirths != nil {
		s.stopBirths()
	}
	for _, f := range s.feeds { // not lingering
		f.endIdle()
	}
	return nil
}

// lostTask answers Get of task id, which Redis does not have: failed, if
// its birth is remembered and it has not expired; nil otherwise. The first
// time, it logs the loss and writes the failed task back (best effort).
func (s *Store) lostTask(id string) *tasks.Record {
	if s.births == nil {
		return nil
	}
	rec, first := s.births.lost(id, time.Now())
	if rec == nil || !first {
		return rec
	}
	s.logger.LogAttrs(context.Background(), slog.LevelError, "redisstore: task lost: Redis no longer has a task created before it expired",
		slog.String("task", id), slog.String("tool", rec.Tool), slog.Time("created", rec.Created), slog.Time("expires", rec.Expires),
		slog.String("check", "a failover before the task was replicated (Options.WaitReplicas prevents it), eviction (maxmemory-policy), persistence"))
	tomb := *rec
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Create(ctx, &tomb, 0); err != nil && !errors.Is(err, tasks.ErrExists) {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "redisstore: recording a lost task as failed failed",
				slog.String("task", id), slog.String("error", err.Error()))
		}
	}()
	return rec
}
