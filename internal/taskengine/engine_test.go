package taskengine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

func newEngine(t *testing.T, store tasks.Store, max, perCaller int) *Engine {
	t.Helper()
	e := New(Config{Store: store, Lease: 300 * time.Millisecond, Replica: "here", MaxRunning: max,
		MaxRunningPerPrincipal: perCaller, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		InternalError: func(m string) json.RawMessage { return json.RawMessage(`{"code":-32603,"message":"` + m + `"}`) }})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	return e
}

func working(id, owner string, ttl time.Duration) *tasks.Record {
	now := time.Now()
	return &tasks.Record{ID: id, Version: 1, Status: tasks.Working, Created: now, Updated: now, Expires: now.Add(ttl),
		Principal: "alice", Tool: "slow", Owner: owner}
}

func TestReserveCapacityAndShutdown(t *testing.T) {
	e := newEngine(t, tasks.NewMemoryStore(nil), 2, -1)
	nop := func(error) {}
	for _, id := range []string{"a", "b"} {
		if err := e.Reserve(id, 1, nop); err != nil {
			t.Fatalf("Reserve(%s) = %v", id, err)
		}
	}
	if err := e.Reserve("c", 1, nop); !errors.Is(err, ErrAtCapacity) {
		t.Fatalf("a third Reserve with MaxRunning 2 = %v, want ErrAtCapacity", err)
	}
	e.Release("a")
	if err := e.Reserve("c", 1, nop); err != nil {
		t.Fatalf("Reserve after a Release = %v", err)
	}
	e.Release("b")
	e.Release("c")
	if err := e.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown with nothing running = %v", err)
	}
	if err := e.Reserve("d", 1, nop); !errors.Is(err, ErrShutdown) {
		t.Fatalf("Reserve after Shutdown = %v, want ErrShutdown", err)
	}
}

func TestShutdownCancelsWhatStillRuns(t *testing.T) {
	e := newEngine(t, tasks.NewMemoryStore(nil), -1, -1)
	ctx, cancel := context.WithCancelCause(context.Background())
	if err := e.Reserve("a", 1, cancel); err != nil {
		t.Fatal(err)
	}
	go func() { <-ctx.Done(); e.Release("a") }()
	sctx, scancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer scancel()
	if err := e.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown that had to cancel = %v, want its context's error", err)
	}
	if cause := context.Cause(ctx); !errors.Is(cause, ErrShutdown) {
		t.Fatalf("the running task was cancelled with %v, want ErrShutdown", cause)
	}
}

func TestQuota(t *testing.T) {
	var q Quota
	q.max = 2
	alice, bob := Owner{"alice", "s"}, Owner{"bob", "s"}
	var admitted []bool
	for range 3 {
		admitted = append(admitted, q.Take(alice))
	}
	if !admitted[0] || !admitted[1] || admitted[2] {
		t.Fatalf("a cap of 2 admitted %v of three tasks of one caller", admitted)
	}
	if !q.Take(bob) {
		t.Fatal("one caller at the cap keeps another out")
	}
	q.Give(alice)
	if !q.Take(alice) {
		t.Fatal("a task given back does not free a slot")
	}
	unlimited := Quota{max: -1}
	for range 1000 {
		if !unlimited.Take(alice) {
			t.Fatal("a negative cap refused a task")
		}
	}
}

func TestLedgerBoundedAndLookup(t *testing.T) {
	var l Ledger
	now := time.Now()
	rec := working("t", "here", time.Hour)
	l.Note(rec)
	got, reported, ok := l.Lookup("t", now)
	if !ok || reported || got.ID != "t" || got.Principal != "alice" || got.Tool != "slow" || !got.Expires.Equal(rec.Expires.Round(0)) {
		t.Fatalf("Lookup = %+v, reported %v, ok %v", got, reported, ok)
	}
	if _, reported, _ := l.Lookup("t", now); !reported {
		t.Error("a second Lookup does not say the task was reported lost already")
	}
	if _, _, ok := l.Lookup("t", rec.Expires); ok {
		t.Error("Lookup at the task's expiry still finds it")
	}
	for i := range ledgerMax {
		l.Note(working(string(rune('a'+i%26))+string(rune(i)), "here", time.Hour))
	}
	if _, _, ok := l.Lookup("t", now); ok {
		t.Errorf("after %d more tasks the ledger still remembers the first", ledgerMax)
	}
	if n := len(l.tasks); n > ledgerMax {
		t.Errorf("the ledger holds %d tasks, more than %d", n, ledgerMax)
	}
}

func TestUpdateRetriesConflicts(t *testing.T) {
	store := tasks.NewMemoryStore(nil)
	e := newEngine(t, store, -1, -1)
	ctx := context.Background()
	if err := store.Create(ctx, working("a", "here", time.Hour), time.Minute); err != nil {
		t.Fatal(err)
	}
	raced := false
	out, err := e.Update(ctx, "a", func(r *tasks.Record) (bool, error) {
		if !raced { // another writer gets in between this Get and its Swap
			raced = true
			other := *r
			other.Version++
			other.StatusMessage = "other"
			if err := store.Swap(ctx, &other, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		r.StatusMessage += "+mine"
		return true, nil
	})
	if err != nil || out.Version != 3 || out.StatusMessage != "other+mine" {
		t.Fatalf("Update after a conflict = %+v, %v; want version 3 built on the other writer's", out, err)
	}
	if _, err := e.Update(ctx, "gone", func(*tasks.Record) (bool, error) { return true, nil }); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Update of an unknown task = %v, want ErrNotFound", err)
	}
}

func TestReapFailsTaskWhoseLeaseEnded(t *testing.T) {
	store := tasks.NewMemoryStore(nil)
	e := newEngine(t, store, -1, -1)
	ctx := context.Background()
	if err := store.Create(ctx, working("a", "elsewhere", time.Hour), 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	rec, _ := store.Get(ctx, "a")
	if out, err := e.Reap(ctx, rec); err != nil || out.Status != tasks.Working {
		t.Fatalf("Reap within the lease = %+v, %v; want it still working", out, err)
	}
	time.Sleep(40 * time.Millisecond)
	rec, _ = store.Get(ctx, "a")
	out, err := e.Reap(ctx, rec)
	if err != nil || out.Status != tasks.Failed || out.Owner != "" || len(out.Error) == 0 {
		t.Fatalf("Reap after the lease ended = %+v, %v; want it failed with an error", out, err)
	}
	if stored, _ := store.Get(ctx, "a"); stored.Status != tasks.Failed {
		t.Fatalf("the store still holds the task as %s", stored.Status)
	}
}

func TestLostTaskOnlyWhenAcknowledged(t *testing.T) {
	store := tasks.NewMemoryStore(nil)
	e := newEngine(t, store, -1, -1)
	ctx := context.Background()
	if rec := e.LostTask(ctx, "never-seen"); rec != nil {
		t.Fatalf("a task never acknowledged here is reported lost: %+v", rec)
	}
	rec := working("a", "here", time.Hour)
	e.Activate(rec) // acknowledged, but the store never got it: lost
	lost := e.LostTask(ctx, "a")
	if lost == nil || lost.Status != tasks.Failed || lost.Version != 1+LostVersionJump {
		t.Fatalf("LostTask = %+v; want a failed record past every version seen", lost)
	}
	deadline := time.Now().Add(2 * time.Second)
	for { // the failed record is written back, best effort
		if got, err := store.Get(ctx, "a"); err == nil {
			if got.Status != tasks.Failed {
				t.Fatalf("the record written back is %s, want failed", got.Status)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lost task's failed record was not written back to the store")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestIDs(t *testing.T) {
	id, err := NewID()
	if err != nil || !ValidID(id) {
		t.Fatalf("NewID = %q, %v; ValidID says %v", id, err, ValidID(id))
	}
	for _, bad := range []string{"", "short", id + "x", id[:21] + "!"} {
		if ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}
