package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/embedmcp/mcp/internal/taskengine"
	"github.com/embedmcp/mcp/tasks"
)

// The Server's glue to the task engine (internal/taskengine), which keeps
// the leases, the heartbeat, the reaping of tasks whose replica stopped,
// the ledger of lost tasks and the running slots. The Server resolves
// Options.Tasks and answers the protocol; the engine runs the tasks.

// taskEngine is the engine with the options it was made from, resolved.
type taskEngine struct {
	*taskengine.Engine
	store   tasks.Store
	ttl     time.Duration
	poll    time.Duration
	lease   time.Duration
	replica string
	max     int
	quota   runQuota // running tasks per caller
}

// Causes of a running task's cancellation, and of a task refused because
// the Server shuts down.
var (
	errTaskCancelled = taskengine.ErrCancelled
	errTaskStopped   = taskengine.ErrStopped
	errShutdown      = taskengine.ErrShutdown
	errTaskLost      = taskengine.ErrLost
)

// ownerKey is the caller a task or stream belongs to.
type ownerKey struct{ principal, server string }

// newTaskEngine resolves the options (reporting those out of range) and
// starts no goroutine: the engine's heartbeat runs while tasks do.
func newTaskEngine(o TaskOptions, logger *slog.Logger) (*taskEngine, error) {
	var errs []error
	check := func(name string, d *time.Duration, def time.Duration, min time.Duration) {
		switch {
		case *d == 0:
			*d = def
		case *d < min:
			errs = append(errs, fmt.Errorf("mcp: Options.Tasks.%s %v is less than %v", name, *d, min))
		}
	}
	check("TTL", &o.TTL, tasks.DefaultTTL, time.Millisecond)
	check("PollInterval", &o.PollInterval, tasks.DefaultPollInterval, time.Millisecond)
	check("Lease", &o.Lease, tasks.DefaultLease, 30*time.Millisecond)
	if o.Store == nil {
		o.Store = tasks.NewMemoryStore(nil)
	}
	if o.MaxRunning == 0 {
		o.MaxRunning = tasks.DefaultMaxRunning
	}
	if o.MaxRunningPerPrincipal == 0 {
		o.MaxRunningPerPrincipal = tasks.DefaultMaxRunningPerPrincipal
	}
	if o.Replica == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		o.Replica = host + "-" + hex.EncodeToString(b[:])
	}
	eng := taskengine.New(taskengine.Config{Store: o.Store, Lease: o.Lease, Replica: o.Replica,
		MaxRunning: o.MaxRunning, MaxRunningPerPrincipal: o.MaxRunningPerPrincipal, Logger: logger,
		InternalError: func(message string) json.RawMessage {
			return appendRPCError(nil, &Error{Code: CodeInternalError, Message: message})
		}})
	e := &taskEngine{Engine: eng, store: o.Store, ttl: o.TTL, poll: o.PollInterval, lease: o.Lease,
		replica: o.Replica, max: o.MaxRunning, quota: runQuota{&eng.Quota}}
	return e, errors.Join(errs...)
}

// The engine's operations, under the names the protocol code uses.

func (e *taskEngine) now() time.Time { return e.Now() }

// reserve takes a running slot for id (taskengine.Engine.Reserve); beyond
// MaxRunning it refuses with -32001.
func (e *taskEngine) reserve(id string, known uint64, cancel context.CancelCauseFunc) error {
	err := e.Reserve(id, known, cancel)
	if errors.Is(err, taskengine.ErrAtCapacity) {
		return e.limitError()
	}
	return err
}

func (e *taskEngine) release(id string)                  { e.Release(id) }
func (e *taskEngine) stopLocal(id string, cause error)   { e.StopLocal(id, cause) }
func (e *taskEngine) activate(rec *tasks.Record)         { e.Activate(rec) }
func (e *taskEngine) shutdown(ctx context.Context) error { return e.Shutdown(ctx) }
func (e *taskEngine) lostTask(ctx context.Context, id string) *tasks.Record {
	return e.LostTask(ctx, id)
}

func (e *taskEngine) followTasks(ids []string, c chan tasks.Change) (stop func()) {
	return e.Follow(ids, c)
}

func (e *taskEngine) update(ctx context.Context, id string, change func(rec *tasks.Record) (bool, error)) (*tasks.Record, error) {
	return e.Update(ctx, id, change)
}

func (e *taskEngine) reap(ctx context.Context, rec *tasks.Record) (*tasks.Record, error) {
	return e.Reap(ctx, rec)
}

// limitError refuses a task beyond MaxRunning.
func (e *taskEngine) limitError() *Error {
	return &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf(
		"Too many tasks: %d are running on this server, the most it allows (TaskOptions.MaxRunning); retry later", e.max)}
}

// runQuota is the engine's count of running tasks per caller.
type runQuota struct{ q *taskengine.Quota }

func (r runQuota) take(o ownerKey) bool {
	return r.q.Take(taskengine.Owner{Principal: o.principal, Server: o.server})
}

func (r runQuota) give(o ownerKey) {
	r.q.Give(taskengine.Owner{Principal: o.principal, Server: o.server})
}

// limitError refuses a caller's task beyond the cap.
func (r runQuota) limitError() *Error {
	return &Error{Code: CodeLimitExceeded, Message: "Too many tasks: " + strconv.Itoa(r.q.Max()) +
		" of yours are running on this server, the most it runs for one caller (TaskOptions.MaxRunningPerPrincipal); retry later"}
}

// taskOwner is the caller an admitted call's context carries.
func taskOwner(ctx context.Context) ownerKey {
	c, _ := CallerFromContext(ctx)
	return ownerKey{c.Principal, c.Server}
}

// taskQuotaError is the answer to a task-only call whose caller holds as
// many stored tasks as the store keeps for one.
func taskQuotaError(name string) *Error {
	return &Error{Code: CodeLimitExceeded, Message: "Too many tasks: the task store keeps as many of yours as it keeps for one caller " +
		"(tasks.MemoryStoreOptions.MaxTasksPerPrincipal), and tool " + quoteName(name) +
		" runs only as a task; retry when older ones expire (TaskOptions.TTL)"}
}

// newTaskID returns a new task ID (128 random bits, base64url).
func newTaskID() (string, error) { return taskengine.NewID() }

// validTaskID reports whether id has the form of an ID newTaskID makes.
func validTaskID(id string) bool { return taskengine.ValidID(id) }

// failTask turns r into a failed task with the JSON-RPC error rpc.
func failTask(r *tasks.Record, rpc *Error, message string) {
	taskengine.Fail(r, appendRPCError(nil, rpc), message)
}

// appendRPCError encodes a JSON-RPC error object.
func appendRPCError(b []byte, rpc *Error) []byte {
	full := appendErr(nil, nil, rpc) // {"jsonrpc":"2.0","id":null,"error":{...}}
	const prefix = `{"jsonrpc":"2.0","id":null,"error":`
	return append(b, full[len(prefix):len(full)-1]...)
}

// shortenMessage cuts a status message to a length a message can carry.
func shortenMessage(s string) string { return taskengine.ShortenMessage(s) }

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

// storeUnavailableRetry is the Retry-After of a request refused because
// the task store is unavailable: about the time a failover takes.
const storeUnavailableRetry = 2 * time.Second

// storeUnavailable is the answer to a request the task store cannot serve
// for now (tasks.ErrUnavailable).
func storeUnavailable(ctx context.Context, what string) *Error {
	if ex := ExchangeFromContext(ctx); ex != nil {
		ex.retryAfter = storeUnavailableRetry
	}
	return &Error{Code: CodeLimitExceeded, Message: "Task store unavailable: " + what + "; retry in " +
		storeUnavailableRetry.String(), Data: map[string]any{"retryAfterMs": storeUnavailableRetry.Milliseconds()}}
}
