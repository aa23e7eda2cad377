package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) lets a
// server answer a tools/call under 2026-07-28 with a task handle instead of
// the result: the tool runs on, and the client polls tasks/get from any
// replica, answers the task's input requests with tasks/update and may end
// it with tasks/cancel. The state of every task lives in a TaskStore that
// all replicas share; the Server keeps nothing else.

// TaskExtension is the identifier of the Tasks extension, the key clients
// and servers declare it under in their capabilities' extensions.
const TaskExtension = "io.modelcontextprotocol/tasks"

// TaskSupport says whether a tool runs as a task (ToolInfo.TaskSupport).
type TaskSupport string

const (
	// TaskNever (the zero value): the tool is always answered at once.
	TaskNever TaskSupport = ""
	// TaskOptional: the tool runs as a task when the request's client
	// capabilities declare the Tasks extension, and is answered at once
	// otherwise (and when the task store is unavailable).
	TaskOptional TaskSupport = "optional"
	// TaskRequired: the tool runs only as a task; a request whose client
	// does not declare the extension is refused with -32021
	// (CodeMissingClientCapability).
	TaskRequired TaskSupport = "required"
)

// valid reports whether ts is one of the TaskSupport constants.
func (ts TaskSupport) valid() bool {
	return ts == TaskNever || ts == TaskOptional || ts == TaskRequired
}

// TaskStatus is the state of a task.
type TaskStatus string

// The task states of SEP-2663. A task starts working, may wait for input
// (input_required) and back, and ends completed (the tool returned a
// result, isError results included), failed (a JSON-RPC error: the tool
// returned an *Error, panicked, or its replica stopped) or cancelled.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is a final state: completed, failed or
// cancelled.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// TaskRecord is one task as a TaskStore keeps it: its state, the request
// that created it (so that any replica can resume it after input), the
// caller it belongs to, and its outcome. The Server writes records; stores
// keep them as they are (encoding/json encodes them losslessly) and must
// not interpret fields beyond those their methods name.
//
// Records handed to a store and returned by it are values: neither side
// modifies the maps or byte slices of a record after handing it over.
type TaskRecord struct {
	// ID is the task's identifier: 128 random bits, base64url.
	ID string `json:"id"`
	// Version counts the record's changes: 1 when created, one more on
	// every Swap.
	Version uint64 `json:"version"`
	// Status and StatusMessage are the task's state and its description.
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	// Created and Updated are when the task was created and last changed.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Expires is when the task may be discarded (Created plus its time to
	// live); a store forgets it then.
	Expires time.Time `json:"expires"`
	// PollInterval is the polling interval suggested to the client.
	PollInterval time.Duration `json:"pollInterval"`

	// Principal and Server are those of the caller that created the task:
	// no other caller can see it.
	Principal string `json:"principal"`
	Server    string `json:"server,omitempty"`
	// Permission is the tool's permission, asked of the Authorizer again
	// on every request about the task.
	Permission string `json:"permission,omitempty"`

	// Tool, Arguments, Meta and ProtocolVersion are the tools/call that
	// created the task: the tool's name, its arguments and the request's
	// _meta (client capabilities), exactly as sent.
	Tool            string          `json:"tool"`
	Arguments       json.RawMessage `json:"arguments,omitempty"`
	Meta            json.RawMessage `json:"meta,omitempty"`
	ProtocolVersion string          `json:"protocolVersion"`

	// Owner names the replica running the task (TaskOptions.Replica) while
	// it is working.
	Owner string `json:"owner,omitempty"`
	// Lease is when the owner's lease on the working task ends unless it
	// renews it; zero when there is none. Stores set it on Get from their
	// own bookkeeping (Create, Swap and Renew); it is not stored with the
	// record.
	Lease time.Time `json:"-"`

	// Round counts the tool's requests for input; InputRequests are those
	// still unanswered (by key, each an encoded InputRequest),
	// InputResponses those answered so far in this round, and State the
	// tool's state for the next run (InputRequired.State).
	Round          int                        `json:"round,omitempty"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	State          []byte                     `json:"state,omitempty"`

	// Result is the encoded CallToolResult of a completed task; Error the
	// encoded JSON-RPC error object of a failed one.
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// Errors of task stores, for errors.Is.
var (
	// ErrTaskNotFound: no task of that ID, or one that expired.
	ErrTaskNotFound = errors.New("mcp: task not found")
	// ErrTaskExists: Create was given an ID that is taken.
	ErrTaskExists = errors.New("mcp: task exists")
	// ErrTaskConflict: Swap lost a race; the stored task changed since the
	// version the new record was made from.
	ErrTaskConflict = errors.New("mcp: task changed concurrently")
	// ErrTaskStoreFull: the store holds as many tasks as it may.
	ErrTaskStoreFull = errors.New("mcp: task store full")
	// ErrTaskQuota: the store holds as many tasks of the record's caller
	// (Principal and Server) as it keeps for one caller.
	ErrTaskQuota = errors.New("mcp: task store holds as many tasks of this caller as it keeps for one")
)

// A TaskStore keeps tasks where every replica of a service sees them. Its
// methods are atomic: each sees and leaves a task whole, and a Swap applies
// only to the version it was made from, so that of two racing changes (a
// cancellation and a completion) exactly one wins and the other learns it.
// MemoryTaskStore is the default, for one process; the redisstore module
// keeps tasks in Redis for replicas behind a load balancer.
//
// Leases: the replica running a working task holds a lease on it, taken by
// Create and Swap and extended by Renew. When the lease ends unrenewed (the
// replica died, or lost the store), the Server that next reads the task
// marks it failed.
//
// Implementations must be safe for concurrent use.
type TaskStore interface {
	// Create stores a new task (rec.Version 1) and, when it is working, a
	// lease of rec.Owner on it for lease. It returns ErrTaskExists if the
	// ID is taken, ErrTaskStoreFull (matched with errors.Is) when the store
	// holds all it may. When it returns nil, a Get on any replica finds the
	// task, for as long as the store keeps what it acknowledged (a Redis
	// that evicts keys, restarts empty or fails over may not: a replica
	// that acknowledged a task the store then lost reports it failed,
	// saying so).
	Create(ctx context.Context, rec *TaskRecord, lease time.Duration) error
	// Get returns the task stored under id, with Lease set, or
	// ErrTaskNotFound.
	Get(ctx context.Context, id string) (*TaskRecord, error)
	// Swap replaces the stored task by rec if the stored one's Version is
	// rec.Version-1; ErrTaskConflict if it is not, ErrTaskNotFound if there
	// is none. A working rec takes a lease of rec.Owner for lease; any
	// other ends the lease.
	Swap(ctx context.Context, rec *TaskRecord, lease time.Duration) error
	// Renew extends by lease the lease of each of ids that is working and
	// owned by owner, and returns those of ids that are not (finished,
	// waiting for input, cancelled, taken over or gone), so that their
	// owner stops running them.
	Renew(ctx context.Context, owner string, ids []string, lease time.Duration) (stopped []string, err error)
	// Watch calls fn with every task created or changed (by Create or
	// Swap, on any replica), until stop is called. Delivery is best effort
	// (the Server also polls), and a change may be reported late, after a
	// later one; fn must return quickly. A store without a change feed
	// returns a stop that does nothing.
	Watch(fn func(TaskChange)) (stop func())
}

// TaskChange is what a TaskStore's Watch reports of a task created or
// changed: enough for a replica to see that a task it runs was cancelled,
// or that a task a client follows moved on, without reading it.
type TaskChange struct {
	ID      string     // the task's ID
	Version uint64     // the record's version after the change
	Status  TaskStatus // the task's status after the change
	Owner   string     // the replica running the task (TaskOptions.Replica), if any
}

// TaskOptions configure the Tasks extension of a Server (Options.Tasks).
// The zero value serves tasks from a MemoryTaskStore, which is right for
// one process; replicas behind a load balancer share a store (the
// redisstore module).
type TaskOptions struct {
	// Disabled turns the extension off: it is not advertised, tasks/*
	// methods are unknown (-32601), TaskOptional tools are answered at
	// once, and TaskRequired tools fail with -32603 (a configuration
	// error, logged).
	Disabled bool
	// Store keeps the tasks. Default: NewMemoryTaskStore(nil).
	Store TaskStore
	// TTL is how long a task is kept from its creation (ttlMs): its tool
	// runs at most that long, and its outcome can be read until then.
	// Default 1 hour.
	TTL time.Duration
	// PollInterval is the interval between tasks/get polls suggested to
	// clients (pollIntervalMs). Default 1 second.
	PollInterval time.Duration
	// Lease is how long a replica's claim on a running task lasts without
	// renewal; the Server renews it every third of it (once the task is
	// stored), each renewal allowed a third of it or four measured round
	// trips, whichever is longer, and warns when the lease lasts fewer
	// than ten round trips. A task whose
	// replica stops (a crash, a lost store) is failed once its lease has
	// ended, when next read. Default 30 seconds.
	Lease time.Duration
	// Replica names this Server among the replicas sharing the store, in
	// records and logs. Default: the host name and a random suffix.
	Replica string
	// MaxRunning caps the tasks this Server runs at once; a tools/call
	// that would start one more runs at once instead if its tool is
	// TaskOptional, and is refused otherwise (-32001; 503 with Retry-After
	// over HTTP). Default 1000; negative means no cap.
	MaxRunning int
	// MaxRunningPerPrincipal caps the tasks this Server runs at once for
	// one caller (one Principal of one Server; anonymous callers share
	// one), so that one caller cannot take every slot of MaxRunning: beyond
	// it a TaskOptional tool runs at once, and a TaskRequired one is refused
	// like beyond MaxRunning. Default DefaultTaskMaxRunningPerPrincipal
	// (100); negative means no cap.
	MaxRunningPerPrincipal int
}

// Defaults of TaskOptions.
const (
	DefaultTaskTTL          = time.Hour
	DefaultTaskPollInterval = time.Second
	DefaultTaskLease        = 30 * time.Second
	DefaultTaskMaxRunning   = 1000
)
