package mcp

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// MemoryTaskStoreOptions configure a MemoryTaskStore. The zero value is
// usable.
type MemoryTaskStoreOptions struct {
	// MaxTasks caps the tasks kept at once, finished ones included until
	// they expire; Create beyond it fails with ErrTaskStoreFull. Default
	// 10 000; negative means no cap.
	MaxTasks int
	// MaxBytes caps the bytes the tasks held at once take: every byte a
	// record keeps (arguments, _meta, results, errors, state, input
	// requests and responses, its strings) and what the store spends on
	// keeping it. Create and Swap beyond it fail with ErrTaskStoreFull.
	// Default 256 MiB; negative means no cap.
	MaxBytes int64
	// MaxTasksPerPrincipal caps the tasks kept at once for one caller (one
	// Principal of one Server; anonymous callers share one), so that one
	// caller cannot take the whole store: Create beyond it fails with
	// ErrTaskQuota. Default DefaultMaxTasksPerPrincipal (1 000, a tenth of
	// MaxTasks); negative means no cap.
	MaxTasksPerPrincipal int
}

// DefaultMaxTasksPerPrincipal is the default of
// MemoryTaskStoreOptions.MaxTasksPerPrincipal.
const DefaultMaxTasksPerPrincipal = 1000

// MemoryTaskStore is the default TaskStore: tasks in this process's memory,
// seen by this process only. Expired tasks are forgotten when read and
// swept out at most once a minute, on Create; no goroutine is started.
// Its zero value is not usable: make one with NewMemoryTaskStore.
type MemoryTaskStore struct {
	maxTasks int
	maxBytes int64
	maxOwned int // tasks per principal
	now      func() time.Time

	mu        sync.Mutex
	tasks     map[string]*memTask
	bytes     int64
	owned     map[ownerKey]int // tasks held, by caller
	nextSweep time.Time

	wmu      sync.Mutex // guards watchers and nextW
	watchers map[uint64]func(TaskChange)
	nextW    uint64
}

type memTask struct {
	rec   TaskRecord // Lease unset; the lease is kept below
	lease time.Time
	size  int64
}

// NewMemoryTaskStore returns an empty MemoryTaskStore. opts may be nil.
func NewMemoryTaskStore(opts *MemoryTaskStoreOptions) *MemoryTaskStore {
	var o MemoryTaskStoreOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxTasks == 0 {
		o.MaxTasks = 10_000
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = 256 << 20
	}
	if o.MaxTasksPerPrincipal == 0 {
		o.MaxTasksPerPrincipal = DefaultMaxTasksPerPrincipal
	}
	return &MemoryTaskStore{maxTasks: o.MaxTasks, maxBytes: o.MaxBytes, maxOwned: o.MaxTasksPerPrincipal, now: time.Now,
		tasks: map[string]*memTask{}, owned: map[ownerKey]int{}, watchers: map[uint64]func(TaskChange){}}
}

// clone copies a record's maps, so that neither side shares them.
func (r *TaskRecord) clone() *TaskRecord {
	c := *r
	c.InputRequests = maps.Clone(r.InputRequests)
	c.InputResponses = maps.Clone(r.InputResponses)
	return &c
}

// Create implements TaskStore.
func (s *MemoryTaskStore) Create(ctx context.Context, rec *TaskRecord, lease time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.now()
	kept := own(rec, nil)
	size := recordSize(kept)
	owner := ownerKey{rec.Principal, rec.Server}
	s.mu.Lock()
	if now.After(s.nextSweep) {
		s.sweep(now)
		s.nextSweep = now.Add(time.Minute)
	}
	if t, ok := s.tasks[rec.ID]; ok {
		if now.Before(t.rec.Expires) {
			s.mu.Unlock()
			return ErrTaskExists
		}
		s.drop(rec.ID, t)
	}
	if (s.maxTasks >= 0 && len(s.tasks) >= s.maxTasks) || (s.maxBytes >= 0 && s.bytes+size > s.maxBytes) {
		s.sweep(now)
		if (s.maxTasks >= 0 && len(s.tasks) >= s.maxTasks) || (s.maxBytes >= 0 && s.bytes+size > s.maxBytes) {
			s.mu.Unlock()
			return ErrTaskStoreFull
		}
	}
	if s.maxOwned >= 0 && s.owned[owner] >= s.maxOwned {
		s.sweep(now)
		if s.owned[owner] >= s.maxOwned {
			s.mu.Unlock()
			return ErrTaskQuota
		}
	}
	t := &memTask{rec: *kept, size: size}
	t.rec.Lease = time.Time{}
	if rec.Status == TaskWorking {
		t.lease = now.Add(lease)
	}
	s.tasks[rec.ID] = t
	s.owned[owner]++
	s.bytes += size
	s.mu.Unlock()
	s.notify(rec)
	return nil
}

// Get implements TaskStore.
func (s *MemoryTaskStore) Get(ctx context.Context, id string) (*TaskRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[id]
	if !ok {
		return nil, ErrTaskNotFound
	}
	if !now.Before(t.rec.Expires) {
		s.drop(id, t)
		return nil, ErrTaskNotFound
	}
	rec := t.rec.clone()
	if now.Before(t.lease) {
		rec.Lease = t.lease
	}
	return rec, nil
}

// Swap implements TaskStore.
func (s *MemoryTaskStore) Swap(ctx context.Context, rec *TaskRecord, lease time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.now()
	s.mu.Lock()
	t, ok := s.tasks[rec.ID]
	if ok && !now.Before(t.rec.Expires) {
		s.drop(rec.ID, t)
		ok = false
	}
	var kept *TaskRecord
	var size int64
	if ok {
		kept = own(rec, &t.rec) // copies only what changed
		size = recordSize(kept)
	}
	switch {
	case !ok:
		s.mu.Unlock()
		return ErrTaskNotFound
	case t.rec.Version+1 != rec.Version:
		s.mu.Unlock()
		return ErrTaskConflict
	case s.maxBytes >= 0 && s.bytes-t.size+size > s.maxBytes:
		s.mu.Unlock()
		return ErrTaskStoreFull
	}
	s.bytes += size - t.size
	t.rec, t.size = *kept, size
	t.rec.Lease = time.Time{}
	t.lease = time.Time{}
	if rec.Status == TaskWorking {
		t.lease = now.Add(lease)
	}
	s.mu.Unlock()
	s.notify(rec)
	return nil
}

// Renew implements TaskStore.
func (s *MemoryTaskStore) Renew(ctx context.Context, owner string, ids []string, lease time.Duration) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := s.now()
	var stopped []string
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		t, ok := s.tasks[id]
		if !ok || !now.Before(t.rec.Expires) || t.rec.Status != TaskWorking || t.rec.Owner != owner {
			stopped = append(stopped, id)
			continue
		}
		t.lease = now.Add(lease)
	}
	return stopped, nil
}

// Watch implements TaskStore: fn is called, in the goroutine that made the
// change, after every Create and Swap.
func (s *MemoryTaskStore) Watch(fn func(TaskChange)) (stop func()) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	id := s.nextW
	s.nextW++
	s.watchers[id] = fn
	return func() {
		s.wmu.Lock()
		delete(s.watchers, id)
		s.wmu.Unlock()
	}
}

// Len returns the number of tasks held, expired ones not yet swept out
// included.
func (s *MemoryTaskStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks)
}

func (s *MemoryTaskStore) notify(rec *TaskRecord) {
	ch := TaskChange{ID: rec.ID, Version: rec.Version, Status: rec.Status, Owner: rec.Owner}
	s.wmu.Lock()
	fns := make([]func(TaskChange), 0, len(s.watchers))
	for _, k := range slices.Sorted(maps.Keys(s.watchers)) {
		fns = append(fns, s.watchers[k])
	}
	s.wmu.Unlock()
	for _, fn := range fns {
		fn(ch)
	}
}

// sweep forgets expired tasks. Called with mu held.
func (s *MemoryTaskStore) sweep(now time.Time) {
	for id, t := range s.tasks {
		if !now.Before(t.rec.Expires) {
			s.drop(id, t)
		}
	}
}

// drop forgets one task. Called with mu held.
func (s *MemoryTaskStore) drop(id string, t *memTask) {
	delete(s.tasks, id)
	s.bytes -= t.size
	owner := ownerKey{t.rec.Principal, t.rec.Server}
	if s.owned[owner] <= 1 {
		delete(s.owned, owner)
	} else {
		s.owned[owner]--
	}
}

// Bytes returns the bytes the tasks held take, as MaxBytes counts them
// (expired ones not yet swept out included).
func (s *MemoryTaskStore) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}
