package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// flakyStore is a tasks.MemoryStore that, while down, fails every operation
// with an error wrapping tasks.ErrUnavailable, as a store failing
// over does.
type flakyStore struct {
	tasks.Store
	down atomic.Bool
}

func (f *flakyStore) fail(op string) error {
	if f.down.Load() {
		return fmt.Errorf("store: %s: READONLY You can't write against a read only replica: %w", op, tasks.ErrUnavailable)
	}
	return nil
}

func (f *flakyStore) Create(ctx context.Context, r *tasks.Record, l time.Duration) error {
	if err := f.fail("create"); err != nil {
		return err
	}
	return f.Store.Create(ctx, r, l)
}

func (f *flakyStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	if err := f.fail("get"); err != nil {
		return nil, err
	}
	return f.Store.Get(ctx, id)
}

func (f *flakyStore) Swap(ctx context.Context, r *tasks.Record, l time.Duration) error {
	if err := f.fail("swap"); err != nil {
		return err
	}
	return f.Store.Swap(ctx, r, l)
}

// TestTaskStoreUnavailable: while the store reports tasks.ErrUnavailable
// (a failover), task creation and every tasks/* method are answered -32001
// with 503 and a retry delay, never -32603 nor "not found", and the
// store's own error text stays in the log; a store failing otherwise is
// still an internal error; once the store is back, the task is there.
func TestTaskStoreUnavailable(t *testing.T) {
	t.Parallel()
	store := &flakyStore{Store: tasks.NewMemoryStore(nil)}
	_, c, g := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{Store: store}})
	id := c.start("slow", `{}`)
	g.awaitStart(t)
	store.down.Store(true)
	retryable := func(what string, r taskReply) {
		t.Helper()
		if r.Status != http.StatusServiceUnavailable || r.Error == nil || r.Error.Code != mcp.CodeLimitExceeded ||
			!strings.HasPrefix(r.Error.Message, "Task store unavailable: ") || r.Error.Data["retryAfterMs"] == nil {
			t.Errorf("%s, store failing over: %d %s", what, r.Status, r.Raw)
		}
		if strings.Contains(r.Raw, "READONLY") {
			t.Errorf("%s: the store's error reached the client: %s", what, r.Raw)
		}
	}
	retryable("task-only tools/call", c.call("must", `{}`))
	retryable("tasks/get", c.get(id))
	retryable("tasks/cancel", c.do("tasks/cancel", `"taskId":"`+id+`"`))
	retryable("tasks/update", c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{}`))
	// A tool that may run at once does.
	if r := c.call("oops", `{}`); r.str("resultType") != "complete" {
		t.Errorf("optional tool, store failing over: %s", r.Raw)
	}
	store.down.Store(false)
	if r := c.get(id); r.str("status") != "working" {
		t.Errorf("the task after the failover: %s", r.Raw)
	}
	g.release <- "x"
	c.wait(id, tasks.Completed)

	// Any other failure stays an internal error.
	_, d, _ := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{Store: failingStore{}}})
	if r := d.call("must", `{}`); r.Error == nil || r.Error.Code != mcp.CodeInternalError {
		t.Errorf("required tool, store broken: %s", r.Raw)
	}
}
