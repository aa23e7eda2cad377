// Package tasks holds what the Tasks extension of MCP (SEP-2663) keeps and
// where: the records of tasks, their statuses, the Store contract that
// every replica of a service shares, its errors and defaults, MemoryStore
// (the default store, for one process) and TestStore, which checks a
// Store against the contract as testing/fstest.TestFS checks a file
// system.
//
// The mcp package's Server runs tools as tasks (mcp.ToolInfo.TaskSupport,
// mcp.Options.Tasks) and writes the records; a store keeps them whole and
// interprets only the fields its methods name. The redisstore module is a
// Store shared through Redis.
package tasks

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
// it with tasks/cancel. The state of every task lives in a Store that all
// replicas share; the Server keeps nothing else.

// Extension is the identifier of the Tasks extension, the key clients and
// servers declare it under in their capabilities' extensions.
const Extension = "io.modelcontextprotocol/tasks"

// Status is the state of a task.
type Status string

// The task states of SEP-2663. A task starts working, may wait for input
// (input_required) and back, and ends completed (the tool returned a
// result, isError results included), failed (a JSON-RPC error: the tool
// returned an *Error, panicked, or its replica stopped) or cancelled.
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal reports whether s is a final state: completed, failed or
// cancelled.
func (s Status) Terminal() bool {
	return s == Completed || s == Failed || s == Cancelled
}

// Record is one task as a Store keeps it: its state, the request
// that created it (so that any replica can resume it after input), the
// caller it belongs to, and its outcome. The Server writes records; stores
// keep them as they are (encoding/json encodes them losslessly) and must
// not interpret fields beyond those their methods name.
//
// Records handed to a store and returned by it are values: neither side
// modifies the maps or byte slices of a record after handing it over.
type Record struct {
	// ID is the task's identifier: 128 random bits, base64url.
	ID string `json:"id"`
	// Version counts the record's changes: 1 when created, one more on
	// every Swap.
	Version uint64 `json:"version"`
	// Status and StatusMessage are the task's state and its description.
	Status        Status `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
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
	// _meta (client capabilities), exactly as sent (of _meta, at most
	// 64 KiB: see mcp.Request.Meta).
	Tool            string          `json:"tool"`
	Arguments       json.RawMessage `json:"arguments,omitempty"`
	Meta            json.RawMessage `json:"meta,omitempty"`
	ProtocolVersion string          `json:"protocolVersion"`

	// Owner names the replica running the task (mcp.TaskOptions.Replica) while
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

// Errors of stores, for errors.Is.
var (
	// ErrNotFound: no task of that ID, or one that expired.
	ErrNotFound = errors.New("tasks: task not found")
	// ErrExists: Create was given an ID that is taken.
	ErrExists = errors.New("tasks: task exists")
	// ErrConflict: Swap lost a race; the stored task changed since the
	// version the new record was made from.
	ErrConflict = errors.New("tasks: task changed concurrently")
	// ErrStoreFull: the store holds as many tasks as it may.
	ErrStoreFull = errors.New("tasks: task store full")
	// ErrQuota: the store holds as many tasks of the record's caller
	// (Principal and Server) as it keeps for one caller.
	ErrQuota = errors.New("tasks: task store holds as many tasks of this caller as it keeps for one")
	// ErrUnavailable: the store cannot serve the request for now (it
	// cannot be reached, or is failing over: a replica promoted, a cluster
	// slot without a primary), though it may a moment later. Stores wrap
	// it; a Server answers it, on task creation and on every tasks/*
	// method, with -32001 and Retry-After, so that clients retry instead of
	// taking the task as failed or unknown.
	ErrUnavailable = errors.New("tasks: task store unavailable")
)

// A Store keeps tasks where every replica of a service sees them. Its
// methods are atomic: each sees and leaves a task whole, and a Swap applies
// only to the version it was made from, so that of two racing changes (a
// cancellation and a completion) exactly one wins and the other learns it.
// MemoryStore is the default, for one process; the redisstore module
// keeps tasks in Redis for replicas behind a load balancer.
//
// Leases: the replica running a working task holds a lease on it, taken by
// Create and Swap and extended by Renew. When the lease ends unrenewed (the
// replica died, or lost the store), the Server that next reads the task
// marks it failed.
//
// Implementations must be safe for concurrent use.
type Store interface {
	// Create stores a new task (rec.Version 1) and, when it is working, a
	// lease of rec.Owner on it for lease. It returns ErrExists if the
	// ID is taken, ErrStoreFull (matched with errors.Is) when the store
	// holds all it may. When it returns nil, a Get on any replica finds the
	// task, for as long as the store keeps what it acknowledged (a Redis
	// that evicts keys, restarts empty or fails over may not: a replica
	// that acknowledged a task the store then lost reports it failed,
	// saying so).
	Create(ctx context.Context, rec *Record, lease time.Duration) error
	// Get returns the task stored under id, with Lease set, or
	// ErrNotFound.
	Get(ctx context.Context, id string) (*Record, error)
	// Swap replaces the stored task by rec if the stored one's Version is
	// rec.Version-1; ErrConflict if it is not, ErrNotFound if there
	// is none. A working rec takes a lease of rec.Owner for lease; any
	// other ends the lease.
	Swap(ctx context.Context, rec *Record, lease time.Duration) error
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
	Watch(fn func(Change)) (stop func())
}

// Change is what a Store's Watch reports of a task created or
// changed: enough for a replica to see that a task it runs was cancelled,
// or that a task a client follows moved on, without reading it.
type Change struct {
	ID      string // the task's ID
	Version uint64 // the record's version after the change
	Status  Status // the task's status after the change
	Owner   string // the replica running the task (mcp.TaskOptions.Replica), if any
}

// Defaults of mcp.TaskOptions, the options of a Server's tasks.
const (
	// DefaultTTL is how long a task is kept from its creation.
	DefaultTTL = time.Hour
	// DefaultPollInterval is the polling interval suggested to clients.
	DefaultPollInterval = time.Second
	// DefaultLease is how long a replica's claim on a running task lasts
	// without renewal.
	DefaultLease = 30 * time.Second
	// DefaultMaxRunning caps the tasks one Server runs at once.
	DefaultMaxRunning = 1000
	// DefaultMaxRunningPerPrincipal caps the tasks one Server runs at once
	// for one caller.
	DefaultMaxRunningPerPrincipal = 100
)
