package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// forgetfulStore is a tasks.MemoryStore that can lose a task, as a Redis
// that evicts it or restarts empty.
type forgetfulStore struct {
	*tasks.MemoryStore
	mu   sync.Mutex
	lost map[string]bool
}

func (f *forgetfulStore) forget(id string) {
	f.mu.Lock()
	f.lost[id] = true
	f.mu.Unlock()
}

func (f *forgetfulStore) gone(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lost[id]
}

func (f *forgetfulStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	if f.gone(id) {
		return nil, tasks.ErrNotFound
	}
	return f.MemoryStore.Get(ctx, id)
}

func (f *forgetfulStore) Swap(ctx context.Context, rec *tasks.Record, lease time.Duration) error {
	if f.gone(rec.ID) {
		return tasks.ErrNotFound
	}
	return f.MemoryStore.Swap(ctx, rec, lease)
}

func (f *forgetfulStore) Create(ctx context.Context, rec *tasks.Record, lease time.Duration) error {
	if f.gone(rec.ID) {
		return errors.New("still down") // the failed record cannot be written back
	}
	return f.MemoryStore.Create(ctx, rec, lease)
}

func (f *forgetfulStore) Renew(ctx context.Context, owner string, ids []string, lease time.Duration) ([]string, error) {
	var keep, stopped []string
	for _, id := range ids {
		if f.gone(id) {
			stopped = append(stopped, id)
		} else {
			keep = append(keep, id)
		}
	}
	more, err := f.MemoryStore.Renew(ctx, owner, keep, lease)
	return append(stopped, more...), err
}

// TestLostTaskReported: a task the store loses while its tool runs is
// reported lost, not expired: its tool is stopped at the next renewal, an
// ERROR names it, and tasks/get answers it as failed, saying the store
// lost it; a task id this replica never acknowledged is still "not found".
func TestLostTaskReported(t *testing.T) {
	var log bytes.Buffer
	lw := &lockedWriter{w: &log}
	store := &forgetfulStore{MemoryStore: tasks.NewMemoryStore(nil), lost: map[string]bool{}}
	_, c, g := taskFixture(t, &mcp.Options{Logger: slog.New(slog.NewTextHandler(lw, nil)),
		Tasks: mcp.TaskOptions{Store: store, Lease: 90 * time.Millisecond}})
	id := c.start("slow", `{}`)
	g.awaitStart(t)
	store.forget(id)
	select {
	case cause := <-g.ended:
		if !strings.Contains(cause.Error(), "lost") {
			t.Errorf("the tool stopped because %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the tool of a lost task still runs")
	}
	r := c.get(id)
	if r.str("status") != "failed" || !strings.Contains(r.str("statusMessage"), "task store lost this task") {
		t.Errorf("tasks/get of a lost task: %s", r.Raw)
	}
	lw.mu.Lock()
	logged := log.String()
	lw.mu.Unlock()
	if !strings.Contains(logged, "level=ERROR") || !strings.Contains(logged, "task="+id) || !strings.Contains(logged, "task lost") {
		t.Errorf("log: %s", logged)
	}
	if r := c.get("AAAAAAAAAAAAAAAAAAAAAA"); r.Error == nil || !strings.Contains(r.Error.Message, "Task not found") {
		t.Errorf("an unknown task: %s", r.Raw)
	}
}
