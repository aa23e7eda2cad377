package taskengine

import "sync"

// Owner is the caller a task belongs to: one Principal of one Server
// (anonymous callers share one).
type Owner struct{ Principal, Server string }

// Quota counts the tasks running here per caller, so that one caller
// cannot take every running slot (mcp.TaskOptions.MaxRunningPerPrincipal).
type Quota struct {
	max int // negative: no cap

	mu sync.Mutex
	n  map[Owner]int
}

// Max returns the cap of tasks running here for one caller; negative
// means none.
func (q *Quota) Max() int { return q.max }

// Take counts one more task of owner, unless owner is at the cap.
func (q *Quota) Take(owner Owner) bool {
	if q.max < 0 {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n[owner] >= q.max {
		return false
	}
	if q.n == nil {
		q.n = map[Owner]int{}
	}
	q.n[owner]++
	return true
}

// Give counts one task of owner less.
func (q *Quota) Give(owner Owner) {
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
