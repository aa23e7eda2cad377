package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
)

// TestStore checks that store keeps the Store contract, as
// testing/fstest.TestFS checks a file system, and reports every violation
// it finds (joined; each names its rule: "create", "get", "swap",
// "atomic", "lease", "renew", "expiry", "watch" or "copy"): records come
// back as stored, Create refuses a taken ID, Swap applies to one version
// only (of concurrent Swaps from the same version exactly one wins),
// leases are taken, renewed and ended, expired tasks are forgotten, Watch
// reports changes, and records handed over are not shared. It creates tasks with
// fresh random IDs, so that it may run against a store in use, and waits
// for a few short expiries (about a second in all). It returns nil if the
// store keeps the contract.
func TestStore(ctx context.Context, store Store) error {
	c := &storeCheck{ctx: ctx, store: store}
	c.roundTrip()
	c.versions()
	c.concurrentSwaps()
	c.leases()
	c.expiry()
	c.watch()
	return errors.Join(c.errs...)
}

type storeCheck struct {
	ctx   context.Context
	store Store
	errs  []error
}

func (c *storeCheck) fail(rule, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("tasks: store breaks rule %s: %s", rule, fmt.Sprintf(format, args...)))
}

func newStoreTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// sampleTask is a working task owned by "replica-a", expiring in ttl.
func sampleTask(ttl time.Duration) *Record {
	now := time.Now().Truncate(time.Millisecond)
	return &Record{
		ID: newStoreTaskID(), Version: 1, Status: Working, StatusMessage: "running",
		Created: now, Updated: now, Expires: now.Add(ttl), PollInterval: time.Second,
		Principal: "alice", Server: "s1", Permission: "p.x", Tool: "slow",
		Arguments: json.RawMessage(`{"n":1}`), Meta: json.RawMessage(`{"k":"v"}`), ProtocolVersion: "2026-07-28",
		Owner: "replica-a", Round: 1,
		InputRequests:  map[string]json.RawMessage{"a#1": json.RawMessage(`{"method":"roots/list","params":{}}`)},
		InputResponses: map[string]json.RawMessage{"b#1": json.RawMessage(`{"roots":[]}`)},
		State:          []byte("state"),
	}
}

// same compares two records but for Lease.
func same(a, b *Record) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb) && a.Created.Equal(b.Created) && a.Updated.Equal(b.Updated) && a.Expires.Equal(b.Expires)
}

func (c *storeCheck) roundTrip() {
	rec := sampleTask(time.Minute)
	if err := c.store.Create(c.ctx, rec, time.Minute); err != nil {
		c.fail("create", "Create: %v", err)
		return
	}
	got, err := c.store.Get(c.ctx, rec.ID)
	if err != nil {
		c.fail("get", "Get after Create: %v", err)
		return
	}
	if !same(got, rec) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(rec)
		c.fail("get", "Get returned %s, want %s", g, w)
	}
	if !got.Lease.After(time.Now()) {
		c.fail("lease", "a working task just created has no current lease (Lease %v)", got.Lease)
	}
	// Records handed over are values: changing one changes nothing stored.
	got.InputRequests["x"] = json.RawMessage(`{}`)
	rec.InputResponses["y"] = json.RawMessage(`{}`)
	again, err := c.store.Get(c.ctx, rec.ID)
	if err == nil && (len(again.InputRequests) != 1 || len(again.InputResponses) != 1) {
		c.fail("copy", "the store shares the maps of records it was given or returned")
	}
	if err := c.store.Create(c.ctx, sampleTaskWithID(rec.ID), time.Minute); !errors.Is(err, ErrExists) {
		c.fail("create", "Create with a taken ID = %v, want ErrExists", err)
	}
	if _, err := c.store.Get(c.ctx, newStoreTaskID()); !errors.Is(err, ErrNotFound) {
		c.fail("get", "Get of an unknown ID = %v, want ErrNotFound", err)
	}
}

func sampleTaskWithID(id string) *Record {
	r := sampleTask(time.Minute)
	r.ID = id
	return r
}

func (c *storeCheck) versions() {
	rec := sampleTask(time.Minute)
	if err := c.store.Create(c.ctx, rec, time.Minute); err != nil {
		c.fail("create", "Create: %v", err)
		return
	}
	next := *rec
	next.Version = 3
	if err := c.store.Swap(c.ctx, &next, time.Minute); !errors.Is(err, ErrConflict) {
		c.fail("swap", "Swap skipping a version = %v, want ErrConflict", err)
	}
	next.Version, next.Status, next.StatusMessage = 2, Completed, ""
	next.Result, next.Owner, next.InputRequests, next.InputResponses = json.RawMessage(`{"content":[]}`), "", nil, nil
	if err := c.store.Swap(c.ctx, &next, time.Minute); err != nil {
		c.fail("swap", "Swap to the next version: %v", err)
		return
	}
	if err := c.store.Swap(c.ctx, &next, time.Minute); !errors.Is(err, ErrConflict) {
		c.fail("swap", "a second Swap from the same version = %v, want ErrConflict", err)
	}
	got, err := c.store.Get(c.ctx, rec.ID)
	if err != nil || !same(got, &next) {
		c.fail("swap", "Get after Swap = %+v, %v; want the swapped record", got, err)
	} else if !got.Lease.IsZero() {
		c.fail("lease", "a completed task still has a lease until %v", got.Lease)
	}
	unknown := sampleTask(time.Minute)
	unknown.Version = 2
	if err := c.store.Swap(c.ctx, unknown, time.Minute); !errors.Is(err, ErrNotFound) {
		c.fail("swap", "Swap of an unknown task = %v, want ErrNotFound", err)
	}
}

func (c *storeCheck) concurrentSwaps() {
	rec := sampleTask(time.Minute)
	if err := c.store.Create(c.ctx, rec, time.Minute); err != nil {
		c.fail("create", "Create: %v", err)
		return
	}
	const n = 8
	var wg sync.WaitGroup
	results := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := *rec
			next.Version = 2
			next.StatusMessage = fmt.Sprintf("writer %d", i)
			results[i] = c.store.Swap(c.ctx, &next, time.Minute)
		}()
	}
	wg.Wait()
	won := -1
	for i, err := range results {
		switch {
		case err == nil && won >= 0:
			c.fail("atomic", "two concurrent Swaps from version 1 both succeeded (writers %d and %d)", won, i)
		case err == nil:
			won = i
		case !errors.Is(err, ErrConflict):
			c.fail("atomic", "a concurrent Swap failed with %v, want ErrConflict", err)
		}
	}
	if won < 0 {
		c.fail("atomic", "none of %d concurrent Swaps from version 1 succeeded", n)
		return
	}
	if got, err := c.store.Get(c.ctx, rec.ID); err != nil || got.StatusMessage != fmt.Sprintf("writer %d", won) || got.Version != 2 {
		c.fail("atomic", "after concurrent Swaps the stored task is %+v, %v; want the winner's (writer %d)", got, err, won)
	}
}

func (c *storeCheck) leases() {
	mine, other, done := sampleTask(time.Minute), sampleTask(time.Minute), sampleTask(time.Minute)
	other.Owner = "replica-b"
	for _, r := range []*Record{mine, other, done} {
		if err := c.store.Create(c.ctx, r, 200*time.Millisecond); err != nil {
			c.fail("create", "Create: %v", err)
			return
		}
	}
	fin := *done
	fin.Version, fin.Status, fin.Owner = 2, Cancelled, ""
	if err := c.store.Swap(c.ctx, &fin, time.Minute); err != nil {
		c.fail("swap", "Swap: %v", err)
		return
	}
	unknown := newStoreTaskID()
	stopped, err := c.store.Renew(c.ctx, "replica-a", []string{mine.ID, other.ID, done.ID, unknown}, time.Minute)
	if err != nil {
		c.fail("renew", "Renew: %v", err)
		return
	}
	slices.Sort(stopped)
	want := []string{other.ID, done.ID, unknown}
	slices.Sort(want)
	if !reflect.DeepEqual(stopped, want) {
		c.fail("renew", "Renew returned %v as stopped, want the task of another owner, the cancelled one and the unknown one %v", stopped, want)
	}
	time.Sleep(300 * time.Millisecond)
	if got, err := c.store.Get(c.ctx, mine.ID); err != nil || !got.Lease.After(time.Now().Add(30*time.Second)) {
		c.fail("renew", "a renewed lease of a minute ends at %v (%v)", leaseOf(got), err)
	}
	if got, err := c.store.Get(c.ctx, other.ID); err != nil || got.Lease.After(time.Now()) {
		c.fail("lease", "a lease of 200ms, not renewed, still runs 300ms later, until %v (%v)", leaseOf(got), err)
	}
}

func leaseOf(r *Record) time.Time {
	if r == nil {
		return time.Time{}
	}
	return r.Lease
}

func (c *storeCheck) expiry() {
	rec := sampleTask(250 * time.Millisecond)
	if err := c.store.Create(c.ctx, rec, time.Minute); err != nil {
		c.fail("create", "Create: %v", err)
		return
	}
	if _, err := c.store.Get(c.ctx, rec.ID); err != nil {
		c.fail("expiry", "Get before the task expires: %v", err)
	}
	time.Sleep(time.Until(rec.Expires) + 150*time.Millisecond)
	if _, err := c.store.Get(c.ctx, rec.ID); !errors.Is(err, ErrNotFound) {
		c.fail("expiry", "Get of an expired task = %v, want ErrNotFound", err)
	}
	next := *rec
	next.Version = 2
	if err := c.store.Swap(c.ctx, &next, time.Minute); !errors.Is(err, ErrNotFound) {
		c.fail("expiry", "Swap of an expired task = %v, want ErrNotFound", err)
	}
}

func (c *storeCheck) watch() {
	seen := make(chan Change, 64)
	stop := c.store.Watch(func(ch Change) {
		select {
		case seen <- ch:
		default:
		}
	})
	defer stop()
	// await waits for the change of rec; a feed may take a moment to
	// start, so the first change is given a few tries.
	await := func(rec *Record, within time.Duration) (Change, bool) {
		deadline := time.After(within)
		for {
			select {
			case ch := <-seen:
				if ch.ID == rec.ID && ch.Version == rec.Version {
					return ch, true
				}
			case <-deadline:
				return Change{}, false
			}
		}
	}
	var rec *Record
	for i := 0; ; i++ {
		rec = sampleTask(time.Minute)
		if err := c.store.Create(c.ctx, rec, time.Minute); err != nil {
			c.fail("create", "Create: %v", err)
			return
		}
		ch, ok := await(rec, 500*time.Millisecond)
		if ok {
			if want := (Change{ID: rec.ID, Version: 1, Status: Working, Owner: "replica-a"}); ch != want {
				c.fail("watch", "Create reported %+v, want %+v", ch, want)
			}
			break
		}
		if i == 3 {
			c.fail("watch", "no change reported within 500ms of Create")
			return
		}
	}
	next := *rec
	next.Version, next.Status, next.Owner = 2, Cancelled, ""
	if err := c.store.Swap(c.ctx, &next, time.Minute); err != nil {
		c.fail("swap", "Swap: %v", err)
		return
	}
	ch, ok := await(&next, 2*time.Second)
	if !ok {
		c.fail("watch", "no change reported within 2s of Swap")
	} else if want := (Change{ID: rec.ID, Version: 2, Status: Cancelled}); ch != want {
		c.fail("watch", "Swap reported %+v, want %+v", ch, want)
	}
}
