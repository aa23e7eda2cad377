package tasks

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/embedmcp/mcp/internal/watchers"
)

// MemoryStoreOptions configure a MemoryStore. The zero value is
// usable.
type MemoryStoreOptions struct {
	// MaxTasks caps the tasks kept at once, finished ones included until
	// they expire; Create beyond it fails with ErrStoreFull. Default
	// 10 000; negative means no cap.
	MaxTasks int
	// MaxBytes caps the bytes the tasks held at once take: every byte a
	// record keeps (arguments, _meta, results, errors, state, input
	// requests and responses, its strings) and what the store spends on
	// keeping it. Create and Swap beyond it fail with ErrStoreFull.
	// Default 256 MiB; negative means no cap.
	MaxBytes int64
	// MaxTasksPerPrincipal caps the tasks kept at once for one caller (one
	// Principal of one Server; anonymous callers share one), so that one
	// caller cannot take the whole store: Create beyond it fails with
	// ErrQuota. Default DefaultMaxTasksPerPrincipal (1 000, a tenth of
	// MaxTasks); negative means no cap.
	MaxTasksPerPrincipal int
}

// DefaultMaxTasksPerPrincipal is the default of
// MemoryStoreOptions.MaxTasksPerPrincipal.
const DefaultMaxTasksPerPrincipal = 1000

// MemoryStore is the default Store: tasks in this process's memory,
// seen by this process only. Expired tasks are forgotten when read and
// swept out at most once a minute, on Create; no goroutine is started.
// Its zero value is not usable: make one with NewMemoryStore.
type MemoryStore struct {
	maxTasks int
	maxBytes int64
	maxOwned int // tasks per principal
	now      func() time.Time

	mu        sync.Mutex
	tasks     map[string]*memTask
	bytes     int64
	owned     map[owner]int // tasks held, by caller
	nextSweep time.Time

	watchers watchers.Set[func(Change)]
}

type memTask struct {
	rec   Record // Lease unset; the lease is kept below
	lease time.Time
	size  int64
}

// NewMemoryStore returns an empty MemoryStore. opts may be nil.
func NewMemoryStore(opts *MemoryStoreOptions) *MemoryStore {
	var o MemoryStoreOptions
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
	return &MemoryStore{maxTasks: o.MaxTasks, maxBytes: o.MaxBytes, maxOwned: o.MaxTasksPerPrincipal, now: time.Now,
		tasks: map[string]*memTask{}, owned: map[owner]int{}}
}

// clone copies a record's maps, so that neither side shares them.
func (r *Record) clone() *Record {
	c := *r
	c.InputRequests = maps.Clone(r.InputRequests)
	c.InputResponses = maps.Clone(r.InputResponses)
	return &c
}

// Create implements Store.
func (s *MemoryStore) Create(ctx context.Context, rec *Record, lease time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.now()
	kept := keep(rec, nil)
	size := recordSize(kept)
	own := owner{rec.Principal, rec.Server}
	s.mu.Lock()
	if now.After(s.nextSweep) {
		s.sweep(now)
		s.nextSweep = now.Add(time.Minute)
	}
	if t, ok := s.tasks[rec.ID]; ok {
		if now.Before(t.rec.Expires) {
			s.mu.Unlock()
			return ErrExists
		}
		s.drop(rec.ID, t)
	}
	if (s.maxTasks >= 0 && len(s.tasks) >= s.maxTasks) || (s.maxBytes >= 0 && s.bytes+size > s.maxBytes) {
		s.sweep(now)
		if (s.maxTasks >= 0 && len(s.tasks) >= s.maxTasks) || (s.maxBytes >= 0 && s.bytes+size > s.maxBytes) {
			s.mu.Unlock()
			return ErrStoreFull
		}
	}
	if s.maxOwned >= 0 && s.owned[own] >= s.maxOwned {
		s.sweep(now)
		if s.owned[own] >= s.maxOwned {
			s.mu.Unlock()
			return ErrQuota
		}
	}
	t := &memTask{rec: *kept, size: size}
	t.rec.Lease = time.Time{}
	if rec.Status == Working {
		t.lease = now.Add(lease)
	}
	s.tasks[rec.ID] = t
	s.owned[own]++
	s.bytes += size
	s.mu.Unlock()
	s.notify(rec)
	return nil
}

// Get implements Store.
func (s *MemoryStore) Get(ctx context.Context, id string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[id]
	if !ok {
		return nil, ErrNotFound
	}
	if !now.Before(t.rec.Expires) {
		s.drop(id, t)
		return nil, ErrNotFound
	}
	rec := t.rec.clone()
	if now.Before(t.lease) {
		rec.Lease = t.lease
	}
	return rec, nil
}

// Swap implements Store.
func (s *MemoryStore) Swap(ctx context.Context, rec *Record, lease time.Duration) error {
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
	var kept *Record
	var size int64
	if ok {
		kept = keep(rec, &t.rec) // copies only what changed
		size = recordSize(kept)
	}
	switch {
	case !ok:
		s.mu.Unlock()
		return ErrNotFound
	case t.rec.Version+1 != rec.Version:
		s.mu.Unlock()
		return ErrConflict
	case s.maxBytes >= 0 && s.bytes-t.size+size > s.maxBytes:
		s.mu.Unlock()
		return ErrStoreFull
	}
	s.bytes += size - t.size
	t.rec, t.size = *kept, size
	t.rec.Lease = time.Time{}
	t.lease = time.Time{}
	if rec.Status == Working {
		t.lease = now.Add(lease)
	}
	s.mu.Unlock()
	s.notify(rec)
	return nil
}

// Renew implements Store.
func (s *MemoryStore) Renew(ctx context.Context, owner string, ids []string, lease time.Duration) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := s.now()
	var stopped []string
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		t, ok := s.tasks[id]
		if !ok || !now.Before(t.rec.Expires) || t.rec.Status != Working || t.rec.Owner != owner {
			stopped = append(stopped, id)
			continue
		}
		t.lease = now.Add(lease)
	}
	return stopped, nil
}

// Watch implements Store: fn is called, in the goroutine that made the
// change, after every Create and Swap.
func (s *MemoryStore) Watch(fn func(Change)) (stop func()) {
	return s.watchers.Add(fn)
}

// Len returns the number of tasks held, expired ones not yet swept out
// included.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks)
}

func (s *MemoryStore) notify(rec *Record) {
	ch := Change{ID: rec.ID, Version: rec.Version, Status: rec.Status, Owner: rec.Owner}
	for _, fn := range s.watchers.List() {
		fn(ch)
	}
}

// sweep forgets expired tasks. Called with mu held.
func (s *MemoryStore) sweep(now time.Time) {
	for id, t := range s.tasks {
		if !now.Before(t.rec.Expires) {
			s.drop(id, t)
		}
	}
}

// drop forgets one task. Called with mu held.
func (s *MemoryStore) drop(id string, t *memTask) {
	delete(s.tasks, id)
	s.bytes -= t.size
	own := owner{t.rec.Principal, t.rec.Server}
	if s.owned[own] <= 1 {
		delete(s.owned, own)
	} else {
		s.owned[own]--
	}
}

// Bytes returns the bytes the tasks held take, as MaxBytes counts them
// (expired ones not yet swept out included).
func (s *MemoryStore) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}
