package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

func TestMemoryStoreContract(t *testing.T) {
	t.Parallel()
	if err := tasks.TestStore(context.Background(), tasks.NewMemoryStore(nil)); err != nil {
		t.Fatal(err)
	}
}

func memRecord(id string, ttl time.Duration, result string) *tasks.Record {
	now := time.Now()
	return &tasks.Record{ID: id, Version: 1, Status: tasks.Working, Created: now, Updated: now,
		Expires: now.Add(ttl), Owner: "r", Result: json.RawMessage(result)}
}

func TestMemoryStoreBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasks: 2, MaxBytes: 4096}) // a record costs some 500 bytes
	if err := s.Create(ctx, memRecord("a", time.Minute, ""), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, memRecord("b", 50*time.Millisecond, ""), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, memRecord("c", time.Minute, ""), time.Minute); !errors.Is(err, tasks.ErrStoreFull) {
		t.Fatalf("a third task in a store of two = %v, want ErrStoreFull", err)
	}
	time.Sleep(80 * time.Millisecond)
	// The expired task is swept out to make room.
	if err := s.Create(ctx, memRecord("c", time.Minute, ""), time.Minute); err != nil {
		t.Fatalf("after b expired: %v", err)
	}
	if n := s.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
	// Bytes: a swap that grows past MaxBytes is refused and changes nothing.
	big := memRecord("a", time.Minute, `"`+string(make([]byte, 4000))+`"`)
	big.Version = 2
	if err := s.Swap(ctx, big, time.Minute); !errors.Is(err, tasks.ErrStoreFull) {
		t.Fatalf("Swap past MaxBytes = %v, want ErrStoreFull", err)
	}
	if got, err := s.Get(ctx, "a"); err != nil || got.Version != 1 {
		t.Fatalf("after a refused Swap: %+v, %v", got, err)
	}
	// Context errors come first.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Get(cctx, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context = %v", err)
	}
}
