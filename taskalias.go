package mcp

import "github.com/embedmcp/mcp/tasks"

// The names below moved to package tasks; they are kept here for one
// release, so that code written against them compiles unchanged.

// TaskStatus is the state of a task.
//
// Deprecated: use tasks.Status.
type TaskStatus = tasks.Status

// The task states.
const (
	// TaskWorking: the tool runs.
	//
	// Deprecated: use tasks.Working.
	TaskWorking = tasks.Working

	// TaskInputRequired: the task waits for input.
	//
	// Deprecated: use tasks.InputRequired.
	TaskInputRequired = tasks.InputRequired

	// TaskCompleted: the tool returned a result.
	//
	// Deprecated: use tasks.Completed.
	TaskCompleted = tasks.Completed

	// TaskFailed: the task ended with a JSON-RPC error.
	//
	// Deprecated: use tasks.Failed.
	TaskFailed = tasks.Failed

	// TaskCancelled: the task was cancelled.
	//
	// Deprecated: use tasks.Cancelled.
	TaskCancelled = tasks.Cancelled
)

// TaskRecord is one task as a store keeps it.
//
// Deprecated: use tasks.Record.
type TaskRecord = tasks.Record

// Errors of task stores, for errors.Is.
var (
	// ErrTaskNotFound: no task of that ID, or one that expired.
	//
	// Deprecated: use tasks.ErrNotFound.
	ErrTaskNotFound = tasks.ErrNotFound

	// ErrTaskStoreUnavailable: the task store cannot serve the request for
	// now; the Server answers it with -32001 and Retry-After.
	//
	// Deprecated: use tasks.ErrUnavailable.
	ErrTaskStoreUnavailable = tasks.ErrUnavailable

	// ErrTaskExists: Create was given an ID that is taken.
	//
	// Deprecated: use tasks.ErrExists.
	ErrTaskExists = tasks.ErrExists

	// ErrTaskConflict: Swap lost a race.
	//
	// Deprecated: use tasks.ErrConflict.
	ErrTaskConflict = tasks.ErrConflict

	// ErrTaskStoreFull: the store holds as many tasks as it may.
	//
	// Deprecated: use tasks.ErrStoreFull.
	ErrTaskStoreFull = tasks.ErrStoreFull

	// ErrTaskQuota: the store holds as many tasks of the caller as it keeps for one.
	//
	// Deprecated: use tasks.ErrQuota.
	ErrTaskQuota = tasks.ErrQuota
)

// TaskStore keeps tasks where every replica of a service sees them.
//
// Deprecated: use tasks.Store.
type TaskStore = tasks.Store

// TaskChange is what a store's Watch reports of a task created or changed.
//
// Deprecated: use tasks.Change.
type TaskChange = tasks.Change

// MemoryTaskStoreOptions configure a MemoryTaskStore.
//
// Deprecated: use tasks.MemoryStoreOptions.
type MemoryTaskStoreOptions = tasks.MemoryStoreOptions

// MemoryTaskStore is the default task store, in this process's memory.
//
// Deprecated: use tasks.MemoryStore.
type MemoryTaskStore = tasks.MemoryStore

// NewMemoryTaskStore returns an empty MemoryTaskStore. opts may be nil.
//
// Deprecated: use tasks.NewMemoryStore.
func NewMemoryTaskStore(opts *MemoryTaskStoreOptions) *MemoryTaskStore {
	return tasks.NewMemoryStore(opts)
}

// The identifier of the Tasks extension, and the defaults of TaskOptions
// and of the memory store.
const (
	// TaskExtension is the identifier of the Tasks extension.
	//
	// Deprecated: use tasks.Extension.
	TaskExtension = tasks.Extension

	// DefaultMaxTasksPerPrincipal is the default of
	// MemoryTaskStoreOptions.MaxTasksPerPrincipal.
	//
	// Deprecated: use tasks.DefaultMaxTasksPerPrincipal.
	DefaultMaxTasksPerPrincipal = tasks.DefaultMaxTasksPerPrincipal

	// DefaultTaskTTL is the default of TaskOptions.TTL.
	//
	// Deprecated: use tasks.DefaultTTL.
	DefaultTaskTTL = tasks.DefaultTTL

	// DefaultTaskPollInterval is the default of TaskOptions.PollInterval.
	//
	// Deprecated: use tasks.DefaultPollInterval.
	DefaultTaskPollInterval = tasks.DefaultPollInterval

	// DefaultTaskLease is the default of TaskOptions.Lease.
	//
	// Deprecated: use tasks.DefaultLease.
	DefaultTaskLease = tasks.DefaultLease

	// DefaultTaskMaxRunning is the default of TaskOptions.MaxRunning.
	//
	// Deprecated: use tasks.DefaultMaxRunning.
	DefaultTaskMaxRunning = tasks.DefaultMaxRunning

	// DefaultTaskMaxRunningPerPrincipal is the default of
	// TaskOptions.MaxRunningPerPrincipal.
	//
	// Deprecated: use tasks.DefaultMaxRunningPerPrincipal.
	DefaultTaskMaxRunningPerPrincipal = tasks.DefaultMaxRunningPerPrincipal
)
