package taskengine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// A task store can lose tasks: a Redis that evicts keys under memory
// pressure, one restarted without persistence, a failover that drops the
// writes not yet replicated. A replica cannot tell a lost task from an
// expired one by asking the store, which knows neither; it can by
// remembering what it acknowledged. The ledger keeps, for a bounded
// number of the tasks this replica created or ran, who they belong to and
// when they expire. A task the store no longer has though its ledger entry
// has not expired was lost: the replica says so (an ERROR log with the
// id), stops its tool at once, tells the listen streams following it that
// it failed, answers tasks/get with a failed task saying the store lost it,
// and writes that failed task back to the store (best effort), so that the
// other replicas answer the same.

// ledgerMax bounds the tasks a ledger remembers (about 200 bytes each); the
// oldest are forgotten first.
const ledgerMax = 10000

// ledgerGrace: a task this close to its expiry is taken as expired, not
// lost, when the store no longer has it (the store's clock may run ahead).
const ledgerGrace = 2 * time.Second

// Ledger is a bounded record of the tasks this replica acknowledged. Its
// zero value is empty and ready for use.
type Ledger struct {
	mu    sync.Mutex
	tasks map[string]ackedTask
	order []string // insertion order, a ring of up to ledgerMax
	head  int
}

// ackedTask is what a replica remembers of a task it acknowledged: enough
// to answer for it as a failed task, kept small (a value in the map, times
// as Unix nanoseconds), since up to ledgerMax of them are kept.
type ackedTask struct {
	version                             uint64
	created, updated, expires           int64 // Unix nanoseconds
	pollInterval                        time.Duration
	principal, server, permission, tool string
	protocolVersion                     string
	lost                                bool // reported lost already
}

// Note remembers rec (or updates what is remembered of it).
func (l *Ledger) Note(rec *tasks.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tasks == nil {
		l.tasks = map[string]ackedTask{}
	}
	if a, ok := l.tasks[rec.ID]; ok {
		a.version = max(a.version, rec.Version)
		l.tasks[rec.ID] = a
		return
	}
	a := ackedTask{version: rec.Version, created: rec.Created.UnixNano(), updated: rec.Updated.UnixNano(),
		expires: rec.Expires.UnixNano(), pollInterval: rec.PollInterval, principal: rec.Principal, server: rec.Server,
		permission: rec.Permission, tool: rec.Tool, protocolVersion: rec.ProtocolVersion}
	if len(l.order) < ledgerMax {
		l.order = append(l.order, rec.ID)
	} else {
		delete(l.tasks, l.order[l.head])
		l.order[l.head] = rec.ID
		l.head = (l.head + 1) % ledgerMax
	}
	l.tasks[rec.ID] = a
}

// Lookup returns what is remembered of id as a record (ID, ownership, tool
// and times; no arguments, result or input), if it has not expired at now,
// and whether it was reported lost before (marking it so).
func (l *Ledger) Lookup(id string, now time.Time) (rec tasks.Record, reported, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a, found := l.tasks[id]
	expires := time.Unix(0, a.expires)
	if !found || !now.Before(expires.Add(-ledgerGrace)) {
		return tasks.Record{}, false, false
	}
	reported = a.lost
	a.lost = true
	l.tasks[id] = a
	return tasks.Record{ID: id, Version: a.version, Created: time.Unix(0, a.created), Updated: time.Unix(0, a.updated),
		Expires: expires, PollInterval: a.pollInterval, Principal: a.principal, Server: a.server,
		Permission: a.permission, Tool: a.tool, ProtocolVersion: a.protocolVersion}, reported, true
}

// rtt follows the round trips of lease renewals: a maximum that decays by
// an eighth per renewal, so that one slow renewal widens the timeout for a
// while.
type rtt struct {
	max    atomic.Int64 // nanoseconds
	warned atomic.Int64 // unix nanoseconds of the last warning
}

// safeRoundTrips is how many renewal round trips a lease must last at
// least: a renewal every third of the lease, each allowed several round
// trips, leaves room for one lost renewal.
const safeRoundTrips = 10

// renewTimeout bounds one renewal: at least a third of the lease (the
// renewal interval), four measured round trips when that is longer, but
// never two thirds of the lease, after which the renewal comes too late.
func (e *Engine) renewTimeout() time.Duration {
	return min(max(e.lease/3, 4*time.Duration(e.rtt.max.Load())), 2*e.lease/3)
}

// observeRenewal records a renewal's round trip, and warns (once a minute)
// when the lease lasts fewer than safeRoundTrips of them.
func (e *Engine) observeRenewal(ctx context.Context, d time.Duration) {
	old := e.rtt.max.Load()
	e.rtt.max.Store(max(int64(d), old-old/8))
	if d*safeRoundTrips <= e.lease {
		return
	}
	now := e.now().UnixNano()
	if last := e.rtt.warned.Load(); now-last < int64(time.Minute) || !e.rtt.warned.CompareAndSwap(last, now) {
		return
	}
	e.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: renewing task leases takes too long for the lease; tasks may be failed while they run",
		slog.Duration("roundTrip", d), slog.Duration("lease", e.lease),
		slog.String("fix", "make Options.Tasks.Lease at least "+(d*safeRoundTrips).Round(time.Millisecond).String()+", or bring the store closer"))
}

// Activate marks a task whose record the store now holds as working here:
// the heartbeat renews its lease from now on. It remembers the task in the
// ledger.
func (e *Engine) Activate(rec *tasks.Record) {
	e.Ledger.Note(rec)
	e.mu.Lock()
	if r := e.running[rec.ID]; r != nil {
		r.live = true
	}
	e.mu.Unlock()
}

// runsHere reports whether rec is a working task this replica runs and
// renews: its lease is this replica's to keep, whatever it says now.
func (e *Engine) runsHere(rec *tasks.Record) bool {
	if rec.Owner != e.replica {
		return false
	}
	e.mu.Lock()
	r := e.running[rec.ID]
	e.mu.Unlock()
	return r != nil && r.live
}

// checkStopped handles a task running here that a renewal did not renew:
// finished, cancelled or taken over meanwhile (its tool stops), or gone
// from the store before its time (lost).
func (e *Engine) checkStopped(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), e.renewTimeout())
	defer cancel()
	_, err := e.store.Get(ctx, id)
	if errors.Is(err, tasks.ErrNotFound) {
		if e.LostTask(ctx, id) != nil {
			return
		}
	}
	e.StopLocal(id, ErrStopped)
}

// LostVersionJump is added to the last version a replica saw of a task it
// records as lost.
const LostVersionJump = 1 << 32

// lostMessage is the status message of a task the store lost.
const lostMessage = "The task store lost this task before it expired (its record vanished: evicted under memory " +
	"pressure, flushed, or the store restarted or failed over without it); its work is lost: call the tool again"

// LostTask handles a task the store does not have: if the ledger says it
// was acknowledged here and has not expired, the store lost it. The first
// time, that is logged at ERROR, the tool running it here is stopped, the
// listen streams following it are woken, and a failed record saying so is
// written back to the store (best effort). It returns the task as failed,
// or nil when the replica cannot tell (not acknowledged here, or expired).
func (e *Engine) LostTask(ctx context.Context, id string) *tasks.Record {
	a, reported, ok := e.Ledger.Lookup(id, e.now())
	if !ok {
		return nil
	}
	rec := &a
	// The failed record's version jumps past any the store may have
	// written since this replica last saw the task (input rounds answered
	// elsewhere), so that listen streams take it as news.
	rec.Version += LostVersionJump
	if now := e.now(); now.After(rec.Updated) {
		rec.Updated = now
	}
	Fail(rec, e.internalError("Internal error: the task store lost the task"), lostMessage)
	if reported {
		return rec
	}
	e.logger.LogAttrs(ctx, slog.LevelError, "mcp: task lost: the task store no longer has a task this replica acknowledged, before it expired",
		slog.String("task", id), slog.String("tool", rec.Tool), slog.String("principal", rec.Principal),
		slog.Time("created", rec.Created), slog.Time("expires", rec.Expires),
		slog.String("check", "the store's eviction policy (Redis: maxmemory-policy noeviction), persistence and failover"))
	e.StopLocal(id, ErrLost)
	e.mu.Lock()
	for c := range e.follow[id] {
		select {
		case c <- tasks.Change{ID: id, Version: rec.Version, Status: tasks.Failed}:
		default:
		}
	}
	e.mu.Unlock()
	tomb := *rec
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		if err := e.store.Create(ctx, &tomb, 0); err != nil && !errors.Is(err, tasks.ErrExists) {
			e.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: recording a lost task as failed in the store failed; other replicas answer it as not found",
				slog.String("task", id), slog.String("error", err.Error()))
		}
	}()
	return rec
}
