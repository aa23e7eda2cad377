package mcp

import (
	"context"
	"strconv"
	"sync"
)

// DefaultTaskMaxRunningPerPrincipal is the default of
// TaskOptions.MaxRunningPerPrincipal.
const DefaultTaskMaxRunningPerPrincipal = 100

// runQuota counts the tasks running here per caller, so that one caller
// cannot take every running slot (TaskOptions.MaxRunningPerPrincipal).
type runQuota struct {
	max int // negative: no cap

	mu sync.Mutex
	n  map[ownerKey]int
}

// take counts one more task of owner, unless owner is at the cap.
func (q *runQuota) take(owner ownerKey) bool {
	if q.max < 0 {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n[owner] >= q.max {
		return false
	}
	if q.n == nil {
		q.n = map[ownerKey]int{}
	}
	q.n[owner]++
	return true
}

// give counts one task of owner less.
func (q *runQuota) give(owner ownerKey) {
	if q.max < 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n[owner] <= 1 {
		delete(q.n, owner)
	} else {
		q.n[owner]--
	}
}

// limitError refuses a caller's task beyond the cap.
func (q *runQuota) limitError() *Error {
	return &Error{Code: CodeLimitExceeded, Message: "Too many tasks: " + strconv.Itoa(q.max) +
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
		"(MemoryTaskStoreOptions.MaxTasksPerPrincipal), and tool " + quoteName(name) +
		" runs only as a task; retry when older ones expire (TaskOptions.TTL)"}
}
