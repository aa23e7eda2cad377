package mcp

import (
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) lets a
// server answer a tools/call under 2026-07-28 with a task handle instead of
// the result: the tool runs on, and the client polls tasks/get from any
// replica, answers the task's input requests with tasks/update and may end
// it with tasks/cancel. A tool says whether it runs as a task
// (ToolInfo.TaskSupport), Options.Tasks configures the extension, and the
// state of every task lives in a tasks.Store that all replicas share; the
// Server keeps nothing else. Package tasks holds the store contract, the
// records and the default store.

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

// TaskOptions configure the Tasks extension of a Server (Options.Tasks).
// The zero value serves tasks from a tasks.MemoryStore, which is right for
// one process; replicas behind a load balancer share a store (the
// redisstore module).
type TaskOptions struct {
	// Disabled turns the extension off: it is not advertised, tasks/*
	// methods are unknown (-32601), TaskOptional tools are answered at
	// once, and TaskRequired tools fail with -32603 (a configuration
	// error, logged).
	Disabled bool
	// Store keeps the tasks. Default: tasks.NewMemoryStore(nil).
	Store tasks.Store
	// TTL is how long a task is kept from its creation (ttlMs): its tool
	// runs at most that long, and its outcome can be read until then.
	// Default tasks.DefaultTTL (1 hour).
	TTL time.Duration
	// PollInterval is the interval between tasks/get polls suggested to
	// clients (pollIntervalMs). Default tasks.DefaultPollInterval (1
	// second).
	PollInterval time.Duration
	// Lease is how long a replica's claim on a running task lasts without
	// renewal; the Server renews it every third of it (once the task is
	// stored), each renewal allowed a third of it or four measured round
	// trips, whichever is longer, and warns when the lease lasts fewer
	// than ten round trips. A task whose
	// replica stops (a crash, a lost store) is failed once its lease has
	// ended, when next read. Default tasks.DefaultLease (30
	// seconds).
	Lease time.Duration
	// Replica names this Server among the replicas sharing the store, in
	// records and logs. Default: the host name and a random suffix.
	Replica string
	// MaxRunning caps the tasks this Server runs at once; a tools/call
	// that would start one more runs at once instead if its tool is
	// TaskOptional, and is refused otherwise (-32001; 503 with Retry-After
	// over HTTP). Default tasks.DefaultMaxRunning (1000); negative means
	// no cap.
	MaxRunning int
	// MaxRunningPerPrincipal caps the tasks this Server runs at once for
	// one caller (one Principal of one Server; anonymous callers share
	// one), so that one caller cannot take every slot of MaxRunning: beyond
	// it a TaskOptional tool runs at once, and a TaskRequired one is refused
	// like beyond MaxRunning. Default tasks.DefaultMaxRunningPerPrincipal
	// (100); negative means no cap.
	MaxRunningPerPrincipal int
}
