package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// taskEngine is a Server's side of the Tasks extension: the store, the
// tasks this replica runs, and the heartbeat that keeps their leases. The
// store holds all task state; the engine holds only the cancel functions
// of the tools running here.
type taskEngine struct {
	store   TaskStore
	ttl     time.Duration
	poll    time.Duration
	lease   time.Duration
	replica string
	max     int
	quota   runQuota // running tasks per caller
	logger  *slog.Logger
	now     func() time.Time

	mu      sync.Mutex
	running map[string]*running
	follow  map[string]map[chan TaskChange]struct{} // listen streams, by the task they follow
	closed  bool                                    // Shutdown began: no new tasks
	quit    chan struct{}                           // closed to end the heartbeat goroutine; nil when none runs
	wg      sync.WaitGroup

	wmu       sync.Mutex // guards the store watch, held while a task runs or a stream follows one
	watchRefs int
	watchStop func()

	ledger ledger // the tasks this replica acknowledged, to tell a lost task from an expired one
	rtt    rtt    // round trips of lease renewals, for their timeout
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

// Causes of a running task's cancellation.
var (
	errTaskCancelled = errors.New("mcp: task cancelled by the client")
	errTaskStopped   = errors.New("mcp: task no longer running here")
	errShutdown      = errors.New("mcp: server shut down")
	errTaskLost      = errors.New("mcp: the task store lost the task")
)

func newTaskEngine(o TaskOptions, logger *slog.Logger) (*taskEngine, error) {
	e := &taskEngine{store: o.Store, ttl: o.TTL, poll: o.PollInterval, lease: o.Lease, replica: o.Replica,
		max: o.MaxRunning, logger: logger, now: time.Now, running: map[string]*running{},
		follow: map[string]map[chan TaskChange]struct{}{}}
	var errs []error
	check := func(name string, d *time.Duration, def time.Duration, min time.Duration) {
		switch {
		case *d == 0:
			*d = def
		case *d < min:
			errs = append(errs, fmt.Errorf("mcp: Options.Tasks.%s %v is less than %v", name, *d, min))
		}
	}
	check("TTL", &e.ttl, DefaultTaskTTL, time.Millisecond)
	check("PollInterval", &e.poll, DefaultTaskPollInterval, time.Millisecond)
	check("Lease", &e.lease, DefaultTaskLease, 30*time.Millisecond)
	if e.store == nil {
		e.store = NewMemoryTaskStore(nil)
	}
	if e.max == 0 {
		e.max = DefaultTaskMaxRunning
	}
	if e.quota.max = o.MaxRunningPerPrincipal; e.quota.max == 0 {
		e.quota.max = DefaultTaskMaxRunningPerPrincipal
	}
	if e.replica == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		e.replica = host + "-" + hex.EncodeToString(b[:])
	}
	return e, errors.Join(errs...)
}

// newTaskID returns 128 random bits, base64url without padding (22
// characters).
func newTaskID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// validTaskID reports whether id has the form of an ID newTaskID makes.
func validTaskID(id string) bool {
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

// errTaskLimit refuses a task beyond MaxRunning.
func (e *taskEngine) limitError() *Error {
	return &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf(
		"Too many tasks: %d are running on this server, the most it allows (TaskOptions.MaxRunning); retry later", e.max)}
}

// reserve takes a running slot for id, whose stored version is known (or
// about to become known+1 by this replica's own write); release gives it
// back.
func (e *taskEngine) reserve(id string, known uint64, cancel context.CancelCauseFunc) error {
	e.mu.Lock()
	switch {
	case e.closed:
		e.mu.Unlock()
		return errShutdown
	case e.max >= 0 && len(e.running) >= e.max:
		e.mu.Unlock()
		return e.limitError()
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

// release forgets a task that no longer runs here, and ends the heartbeat
// when none does.
func (e *taskEngine) release(id string) {
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

// stopLocal cancels a task running here, with cause.
func (e *taskEngine) stopLocal(id string, cause error) {
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
func (e *taskEngine) holdWatch() {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if e.watchRefs == 0 {
		e.watchStop = e.store.Watch(e.onChange)
	}
	e.watchRefs++
}

func (e *taskEngine) dropWatch() {
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
func (e *taskEngine) onChange(ch TaskChange) {
	e.mu.Lock()
	r := e.running[ch.ID]
	stop := r != nil && ch.Version > r.known && (ch.Status != TaskWorking || ch.Owner != e.replica)
	for c := range e.follow[ch.ID] {
		select {
		case c <- ch:
		default: // the stream's poll catches up
		}
	}
	e.mu.Unlock()
	if stop && ch.Status == TaskCancelled {
		r.cancel(errTaskCancelled)
	} else if stop {
		r.cancel(errTaskStopped)
	}
}

// followTasks sends the changes of ids to c until stop is called.
func (e *taskEngine) followTasks(ids []string, c chan TaskChange) (stop func()) {
	e.holdWatch()
	e.mu.Lock()
	for _, id := range ids {
		if e.follow[id] == nil {
			e.follow[id] = map[chan TaskChange]struct{}{}
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
func (e *taskEngine) heartbeat(quit <-chan struct{}) {
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
func (e *taskEngine) renew() {
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

// update applies change to the stored task until a Swap succeeds or change
// declines (returns false); it returns the record as stored last.
func (e *taskEngine) update(ctx context.Context, id string, change func(rec *TaskRecord) (bool, error)) (*TaskRecord, error) {
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
		if !errors.Is(err, ErrTaskConflict) {
			return nil, err
		}
	}
	return nil, ErrTaskConflict
}

// reap fails a working task whose lease ended: the replica running it
// stopped (or lost the store) before it finished. It returns the task as
// it now is.
func (e *taskEngine) reap(ctx context.Context, rec *TaskRecord) (*TaskRecord, error) {
	if rec.Status != TaskWorking || e.now().Before(rec.Lease) || e.runsHere(rec) {
		return rec, nil
	}
	owner := rec.Owner
	out, err := e.update(ctx, rec.ID, func(r *TaskRecord) (bool, error) {
		if r.Status != TaskWorking || e.now().Before(r.Lease) || e.runsHere(r) {
			return false, nil
		}
		failTask(r, &Error{Code: CodeInternalError, Message: "Internal error: the server running the task stopped before it finished"},
			"The server running this task stopped (or lost its task store) before the task finished, and its lease of "+
				e.lease.String()+" ran out; the work is lost: call the tool again")
		return true, nil
	})
	if err == nil && out.Status == TaskFailed {
		e.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: task failed: its replica's lease ended",
			slog.String("task", rec.ID), slog.String("owner", owner), slog.String("tool", rec.Tool))
	}
	return out, err
}

// failTask turns r into a failed task with the JSON-RPC error rpc.
func failTask(r *TaskRecord, rpc *Error, message string) {
	r.Status, r.StatusMessage = TaskFailed, shortenMessage(message)
	r.Error = appendRPCError(nil, rpc)
	r.Result, r.InputRequests, r.InputResponses, r.State, r.Owner = nil, nil, nil, nil, ""
}

// appendRPCError encodes a JSON-RPC error object.
func appendRPCError(b []byte, rpc *Error) []byte {
	full := appendErr(nil, nil, rpc) // {"jsonrpc":"2.0","id":null,"error":{...}}
	const prefix = `{"jsonrpc":"2.0","id":null,"error":`
	return append(b, full[len(prefix):len(full)-1]...)
}

// shortenMessage cuts a status message to a length a message can carry.
func shortenMessage(s string) string {
	const max = 1024
	if len(s) <= max {
		return s
	}
	return boundedjson.Truncate(s, max) + "…"
}

// shutdown stops new tasks, waits for the running ones until ctx ends,
// then cancels the rest, which fail, and waits for them to say so.
func (e *taskEngine) shutdown(ctx context.Context) error {
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
		r.cancel(errShutdown)
	}
	e.mu.Unlock()
	select {
	case <-done:
	case <-time.After(e.lease / 3):
	}
	return ctx.Err()
}

// Shutdown ends this Server's share of the tasks: it starts no more (a
// TaskOptional tool is answered at once instead, a TaskRequired one fails
// with -32603, and a tasks/update that would resume a task asks the client
// to send it again), waits until the tasks running here end or ctx does,
// then cancels those still running, which fail saying that their server
// shut down. It returns ctx.Err() if it had to cancel tasks, nil otherwise.
// Every other request is still served. Call it when the process stops,
// after http.Server.Shutdown:
//
//	srv.Shutdown(ctx)
//	server.Shutdown(ctx)
//
// It may be called more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.tasks == nil {
		return nil
	}
	return s.tasks.shutdown(ctx)
}
