package mcp

import "github.com/embedmcp/mcp/tasks"

// The names below moved to package tasks; they are kept here for one
// release, so that code written against them compiles unchanged.

// TaskExtension is the identifier of the Tasks extension.
//
// Deprecated: use tasks.Extension.
const TaskExtension = tasks.Extension

// TaskStatus is the state of a task.
//
// Deprecated: use tasks.Status.
type TaskStatus = tasks.Status

// The task states.
//
// Deprecated: use tasks.Working, tasks.InputRequired, tasks.Completed,
// tasks.Failed and tasks.Cancelled.
const (
	TaskWorking       = tasks.Working
	TaskInputRequired = tasks.InputRequired
	TaskCompleted     = tasks.Completed
	TaskFailed        = tasks.Failed
	TaskCancelled     = tasks.Cancelled
)

// TaskRecord is one task as a store keeps it.
//
// Deprecated: use tasks.Record.
type TaskRecord = tasks.Record

// Errors of task stores, for errors.Is.
//
// Deprecated: use tasks.ErrNotFound, tasks.ErrExists, tasks.ErrConflict,
// tasks.ErrStoreFull and tasks.ErrQuota.
var (
	ErrTaskNotFound  = tasks.ErrNotFound
	ErrTaskExists    = tasks.ErrExists
	ErrTaskConflict  = tasks.ErrConflict
	ErrTaskStoreFull = tasks.ErrStoreFull
	ErrTaskQuota     = tasks.ErrQuota
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

// DefaultMaxTasksPerPrincipal is the default of
// MemoryTaskStoreOptions.MaxTasksPerPrincipal.
//
// Deprecated: use tasks.DefaultMaxTasksPerPrincipal.
const DefaultMaxTasksPerPrincipal = tasks.DefaultMaxTasksPerPrincipal

// Defaults of TaskOptions.
//
// Deprecated: use tasks.DefaultTTL, tasks.DefaultPollInterval,
// tasks.DefaultLease, tasks.DefaultMaxRunning and
// tasks.DefaultMaxRunningPerPrincipal.
const (
	DefaultTaskTTL                    = tasks.DefaultTTL
	DefaultTaskPollInterval           = tasks.DefaultPollInterval
	DefaultTaskLease                  = tasks.DefaultLease
	DefaultTaskMaxRunning             = tasks.DefaultMaxRunning
	DefaultTaskMaxRunningPerPrincipal = tasks.DefaultMaxRunningPerPrincipal
)
