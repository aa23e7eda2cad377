package console

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// maxTaskIndex bounds the tasks the console follows.
const maxTaskIndex = 2000

// taskIndex follows the tasks of a tasks.Store through its Watch: a
// tasks.Store has no way to list its tasks, so the console knows the tasks
// created or changed since it started (on any replica, as far as the
// store's change feed reaches), the most recent maxTaskIndex of them.
type taskIndex struct {
	store tasks.Store
	stop  func()

	mu   sync.Mutex
	seen map[string]int64 // task ID → when last changed, Unix nanoseconds
}

func newTaskIndex(store tasks.Store, now func() time.Time) *taskIndex {
	ti := &taskIndex{store: store, seen: map[string]int64{}}
	ti.stop = store.Watch(func(ch tasks.Change) {
		if !validTaskID(ch.ID) {
			return
		}
		ti.mu.Lock()
		ti.seen[ch.ID] = now().UnixNano()
		if len(ti.seen) > maxTaskIndex+maxTaskIndex/4 {
			ti.trim()
		}
		ti.mu.Unlock()
	})
	return ti
}

// trim keeps the maxTaskIndex most recently changed tasks; ti.mu is held.
func (ti *taskIndex) trim() {
	ids := slices.SortedFunc(maps.Keys(ti.seen), func(a, b string) int { return cmp.Compare(ti.seen[b], ti.seen[a]) })
	for _, id := range ids[maxTaskIndex:] {
		delete(ti.seen, id)
	}
}

// forget drops ids the store no longer has.
func (ti *taskIndex) forget(ids []string) {
	ti.mu.Lock()
	for _, id := range ids {
		delete(ti.seen, id)
	}
	ti.mu.Unlock()
}

// ids returns the followed task IDs, most recently changed first.
func (ti *taskIndex) ids() []string {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	return slices.SortedFunc(maps.Keys(ti.seen), func(a, b string) int {
		return cmp.Or(cmp.Compare(ti.seen[b], ti.seen[a]), cmp.Compare(a, b))
	})
}

// validTaskID reports whether id looks like a task ID: base64url, at most
// 64 characters. It keeps what the console handles and shows bounded.
func validTaskID(id string) bool {
	if id == "" || len(id) > 64 {
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

// load reads up to limit of the followed tasks whose status matches
// (any, when status is ""), most recently changed first.
func (ti *taskIndex) load(ctx context.Context, status tasks.Status, limit int) (recs []*tasks.Record, err error) {
	var gone []string
	defer func() { ti.forget(gone) }()
	for _, id := range ti.ids() {
		if len(recs) >= limit {
			break
		}
		rec, gerr := ti.store.Get(ctx, id)
		switch {
		case errors.Is(gerr, tasks.ErrNotFound):
			gone = append(gone, id)
			continue
		case gerr != nil:
			return recs, gerr
		}
		if status == "" || rec.Status == status {
			recs = append(recs, rec)
		}
	}
	return recs, nil
}

// errTaskFinished: the task to cancel had finished already.
var errTaskFinished = errors.New("console: the task has finished already")

// cancelTask cancels the task id as tasks/cancel does: the store's change
// tells the replica running it to cancel its context.
func cancelTask(ctx context.Context, store tasks.Store, id, by string, now time.Time) error {
	for range 32 {
		rec, err := store.Get(ctx, id)
		if err != nil {
			return err
		}
		if rec.Status.Terminal() {
			return errTaskFinished
		}
		rec.Status, rec.StatusMessage = tasks.Cancelled, "Cancelled by an operator ("+truncate(by, 64)+") from the console"
		rec.Owner, rec.InputRequests, rec.InputResponses, rec.State = "", nil, nil, nil
		rec.Version++
		if now.After(rec.Updated) {
			rec.Updated = now
		}
		err = store.Swap(ctx, rec, 0)
		if !errors.Is(err, tasks.ErrConflict) {
			return err
		}
	}
	return tasks.ErrConflict
}
