package tasks_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// lax is a store that breaks the contract: Swap ignores versions (the last
// writer wins) and Get hands out the stored record's maps.
type lax struct {
	*tasks.MemoryStore
	shared map[string]*tasks.Record
}

func (l *lax) Create(ctx context.Context, rec *tasks.Record, lease time.Duration) error {
	if err := l.MemoryStore.Create(ctx, rec, lease); err != nil {
		return err
	}
	c := *rec
	l.shared[rec.ID] = &c
	return nil
}

func (l *lax) Get(ctx context.Context, id string) (*tasks.Record, error) {
	rec, err := l.MemoryStore.Get(ctx, id)
	if err == nil && l.shared[id] != nil {
		rec.InputRequests = l.shared[id].InputRequests
	}
	return rec, err
}

func (l *lax) Swap(ctx context.Context, rec *tasks.Record, lease time.Duration) error {
	cur, err := l.MemoryStore.Get(ctx, rec.ID)
	if err != nil {
		return err
	}
	next := *rec
	next.Version = cur.Version + 1
	return l.MemoryStore.Swap(ctx, &next, lease)
}

func TestTestStoreFindsViolations(t *testing.T) {
	t.Parallel()
	err := tasks.TestStore(context.Background(), &lax{MemoryStore: tasks.NewMemoryStore(nil), shared: map[string]*tasks.Record{}})
	if err == nil {
		t.Fatal("TestStore accepted a store whose Swap ignores versions and whose Get shares maps")
	}
	var rules []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		rule, _, ok := strings.Cut(strings.TrimPrefix(e.Error(), "tasks: store breaks rule "), ":")
		if !ok || !strings.HasPrefix(e.Error(), "tasks: store breaks rule ") {
			t.Fatalf("TestStore reported %q, which names no rule", e)
		}
		rules = append(rules, rule)
	}
	for _, want := range []string{"swap", "atomic", "copy"} {
		if !slices.Contains(rules, want) {
			t.Errorf("TestStore broke no rule %q; it reported %v", want, err)
		}
	}
}
