// Package taskengine runs a Server's side of the Tasks extension over a
// tasks.Store: the tasks this replica runs and the leases it keeps on them
// (heartbeat), the failing of tasks whose replica stopped (reaping), the
// ledger that tells a task the store lost from one that expired, the
// running slots per caller, and the store's change feed for the tasks run
// or followed here. It depends on the store contract only; the mcp package
// holds the protocol (what a task answers) and calls it.
package taskengine

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/embedmcp/mcp/internal/boundedjson"
	"github.com/embedmcp/mcp/tasks"
)

// storeTimeout bounds one operation on the store the engine makes on its
// own (the mcp package bounds those made for a request the same).
const storeTimeout = 5 * time.Second

// Config is what an Engine runs with, every default already applied.
type Config struct {
	Store   tasks.Store
	Lease   time.Duration // a replica's claim on a running task without renewal
	Replica string        // this replica's name in records and logs
	// MaxRunning caps the tasks running here (negative: no cap), and
	// MaxRunningPerPrincipal those of one caller (Quota).
	MaxRunning             int
	MaxRunningPerPrincipal int
	Logger                 *slog.Logger
	// InternalError encodes the JSON-RPC error object (code -32603) of a
	// task the engine fails, with message.
	InternalError func(message string) json.RawMessage
}

// Engine is a Server's side of the Tasks extension: the store, the tasks
// this replica runs, and the heartbeat that keeps their leases. The store
// holds all task state; the engine holds only the cancel functions of the
// tools running here.
type Engine struct {
	store         tasks.Store
	lease         time.Duration
	replica       string
	max           int
	logger        *slog.Logger
	internalError func(message string) json.RawMessage
	now           func() time.Time

	// Quota counts the tasks running here per caller; Ledger the tasks
	// this replica acknowledged, to tell a lost task from an expired one.
	Quota  Quota
	Ledger Ledger

	mu      sync.Mutex
	running map[string]*running
	follow  map[string]map[chan tasks.Change]struct{} // listen streams, by the task they follow
	closed  bool                                      // Shutdown began: no new tasks
	quit    chan struct{}                             // closed to end the heartbeat goroutine; nil when none runs
	wg      sync.WaitGroup

	wmu       sync.Mutex // guards the store watch, held while a task runs or a stream follows one
	watchRefs int
	watchStop func()

	rtt rtt // round trips of lease renewals, for their timeout
}

// running is a task whose tool runs here.
type running struct {
	cancel context.CancelCauseFunc
	known  uint64 // changes up to this version are this replica's own, or stale
	// live: the store holds the task as working here (Create or Swap
	// returned); only then does the heartbeat renew its lease. A renewal
	// sent before the record exists would find none and stop the task at
	// its birth.
	live bool
}

// Causes of a running task's cancellation (context.Cause of its tool's
// context), and ErrShutdown of a task refused because the Server shuts
// down.
var (
	ErrCancelled = errors.New("mcp: task cancelled by the client")
	ErrStopped   = errors.New("mcp: task no longer running here")
	ErrShutdown  = errors.New("mcp: server shut down")
	ErrLost      = errors.New("mcp: the task store lost the task")
)

// ErrAtCapacity: Reserve found Config.MaxRunning tasks running here.
var ErrAtCapacity = errors.New("mcp: as many tasks run here as the server allows")

// New returns an Engine running with c.
func New(c Config) *Engine {
	e := &Engine{store: c.Store, lease: c.Lease, replica: c.Replica, max: c.MaxRunning, logger: c.Logger,
		internalError: c.InternalError, now: time.Now, running: map[string]*running{},
		follow: map[string]map[chan tasks.Change]struct{}{}}
	e.Quota.max = c.MaxRunningPerPrincipal
	return e
}

// Now returns the engine's clock's time.
func (e *Engine) Now() time.Time { return e.now() }

// NewID returns a new task ID: 128 random bits, base64url without padding
// (22 characters).
func NewID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// ValidID reports whether id has the form of an ID NewID makes.
func ValidID(id string) bool {
	if len(id) != 22 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Reserve takes a running slot for id, whose stored version is known (or
// about to become known+1 by this replica's own write); Release gives it
// back. It returns ErrShutdown once Shutdown began, ErrAtCapacity when
// Config.MaxRunning tasks run here.
func (e *Engine) Reserve(id string, known uint64, cancel context.CancelCauseFunc) error {
	e.mu.Lock()
	switch {
	case e.closed:
		e.mu.Unlock()
		return ErrShutdown
	case e.max >= 0 && len(e.running) >= e.max:
		e.mu.Unlock()
		return ErrAtCapacity
	}
	e.running[id] = &running{cancel: cancel, known: known}
	e.wg.Add(1)
	if e.quit == nil {
		e.quit = make(chan struct{})
		go e.heartbeat(e.quit)
	}
	e.mu.Unlock()
	e.holdWatch()
	return nil
}

// Release forgets a task that no longer runs here, and ends the heartbeat
// when none does.
func (e *Engine) Release(id string) {
	e.mu.Lock()
	if _, ok := e.running[id]; !ok {
		e.mu.Unlock()
		return
	}
	delete(e.running, id)
	e.wg.Done()
	if len(e.running) == 0 && e.quit != nil {
		close(e.quit)
		e.quit = nil
	}
	e.mu.Unlock()
	e.dropWatch()
}

// StopLocal cancels a task running here, with cause.
func (e *Engine) StopLocal(id string, cause error) {
	e.mu.Lock()
	r := e.running[id]
	e.mu.Unlock()
	if r != nil {
		r.cancel(cause)
	}
}

// holdWatch and dropWatch keep the store's change feed followed while a
// task runs here or a listen stream follows one. Neither is called with mu
// held: a feed may wait for a delivery in progress (onChange) when it
// stops.
func (e *Engine) holdWatch() {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if e.watchRefs == 0 {
		e.watchStop = e.store.Watch(e.onChange)
	}
	e.watchRefs++
}

func (e *Engine) dropWatch() {
	e.wmu.Lock()
	e.watchRefs--
	var stop func()
	if e.watchRefs == 0 {
		stop, e.watchStop = e.watchStop, nil
	}
	e.wmu.Unlock()
	if stop != nil {
		stop()
	}
}

// onChange handles a change the store reports: it stops a task running
// here that was cancelled, failed or taken over (changes at or below the
// version the task was started from are this replica's own, or stale), and
// wakes the listen streams following the task.
func (e *Engine) onChange(ch tasks.Change) {
	e.mu.Lock()
	r := e.running[ch.ID]
	stop := r != nil && ch.Version > r.known && (ch.Status != tasks.Working || ch.Owner != e.replica)
	for c := range e.follow[ch.ID] {
		select {
		case c <- ch:
		default: // the stream's poll catches up
		}
	}
	e.mu.Unlock()
	if stop && ch.Status == tasks.Cancelled {
		r.cancel(ErrCancelled)
	} else if stop {
		r.cancel(ErrStopped)
	}
}

// Follow sends the changes of ids to c until stop is called (a listen
// stream following them); a change c has no room for is dropped.
func (e *Engine) Follow(ids []string, c chan tasks.Change) (stop func()) {
	e.holdWatch()
	e.mu.Lock()
	for _, id := range ids {
		if e.follow[id] == nil {
			e.follow[id] = map[chan tasks.Change]struct{}{}
		}
		e.follow[id][c] = struct{}{}
	}
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		for _, id := range ids {
			delete(e.follow[id], c)
			if len(e.follow[id]) == 0 {
				delete(e.follow, id)
			}
		}
		e.mu.Unlock()
		e.dropWatch()
	}
}

// heartbeat renews the leases of the tasks running here every third of a
// lease, and stops those the store says are no longer theirs, until quit
// is closed (no task runs). Tasks whose record is not stored yet are left
// out (running.live).
func (e *Engine) heartbeat(quit <-chan struct{}) {
	t := time.NewTicker(e.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-quit:
			return
		case <-t.C:
			e.renew()
		}
	}
}

// renew extends the leases of the tasks running here.
func (e *Engine) renew() {
	e.mu.Lock()
	ids := make([]string, 0, len(e.running))
	for id, r := range e.running {
		if r.live {
			ids = append(ids, id)
		}
	}
	e.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.renewTimeout())
	defer cancel()
	start := time.Now()
	stopped, err := e.store.Renew(ctx, e.replica, ids, e.lease)
	e.observeRenewal(ctx, time.Since(start))
	if err != nil {
		e.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: renewing task leases failed; tasks running here fail if it lasts",
			slog.Int("tasks", len(ids)), slog.String("error", err.Error()))
		return
	}
	for _, id := range stopped {
		e.checkStopped(id)
	}
}

// Update applies change to the stored task until a Swap succeeds or change
// declines (returns false); it returns the record as stored last.
func (e *Engine) Update(ctx context.Context, id string, change func(rec *tasks.Record) (bool, error)) (*tasks.Record, error) {
	for range 32 {
		rec, err := e.store.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		ok, err := change(rec)
		if err != nil || !ok {
			return rec, err
		}
		rec.Version++
		if now := e.now(); now.After(rec.Updated) {
			rec.Updated = now
		}
		err = e.store.Swap(ctx, rec, e.lease)
		if err == nil {
			return rec, nil
		}
		if !errors.Is(err, tasks.ErrConflict) {
			return nil, err
		}
	}
	return nil, tasks.ErrConflict
}

// Reap fails a working task whose lease ended: the replica running it
// stopped (or lost the store) before it finished. It returns the task as
// it now is.
func (e *Engine) Reap(ctx context.Context, rec *tasks.Record) (*tasks.Record, error) {
	if rec.Status != tasks.Working || e.now().Before(rec.Lease) || e.runsHere(rec) {
		return rec, nil
	}
	owner := rec.Owner
	out, err := e.Update(ctx, rec.ID, func(r *tasks.Record) (bool, error) {
		if r.Status != tasks.Working || e.now().Before(r.Lease) || e.runsHere(r) {
			return false, nil
		}
		Fail(r, e.internalError("Internal error: the server running the task stopped before it finished"),
			"The server running this task stopped (or lost its task store) before the task finished, and its lease of "+
				e.lease.String()+" ran out; the work is lost: call the tool again")
		return true, nil
	})
	if err == nil && out.Status == tasks.Failed {
		e.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: task failed: its replica's lease ended",
			slog.String("task", rec.ID), slog.String("owner", owner), slog.String("tool", rec.Tool))
	}
	return out, err
}

// Fail turns r into a failed task with the encoded JSON-RPC error object
// rpc and the status message message.
func Fail(r *tasks.Record, rpc json.RawMessage, message string) {
	r.Status, r.StatusMessage = tasks.Failed, ShortenMessage(message)
	r.Error = rpc
	r.Result, r.InputRequests, r.InputResponses, r.State, r.Owner = nil, nil, nil, nil, ""
}

// ShortenMessage cuts a status message to a length a message can carry.
func ShortenMessage(s string) string {
	const max = 1024
	if len(s) <= max {
		return s
	}
	return boundedjson.Truncate(s, max) + "…"
}

// Shutdown stops new tasks, waits for the running ones until ctx ends,
// then cancels the rest, which fail, and waits for them to say so.
func (e *Engine) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	e.mu.Lock()
	for _, r := range e.running {
		r.cancel(ErrShutdown)
	}
	e.mu.Unlock()
	select {
	case <-done:
	case <-time.After(e.lease / 3):
	}
	return ctx.Err()
}
