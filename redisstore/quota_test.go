package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/redisstore"
	"github.com/embedmcp/mcp/redisstore/internal/redistest"
	"github.com/embedmcp/mcp/tasks"
	"github.com/redis/go-redis/v9"
)

// checkQuota: one caller (mallory) creates tasks until the store refuses
// with tasks.ErrQuota, as tasks.MemoryStore refuses, at most max of
// them (exactly max when exact); another caller (alice) still gets a
// task; once mallory's tasks expire, mallory gets one again. It returns
// how many mallory got.
func checkQuota(ctx context.Context, store tasks.Store, max int, exact bool) (int, error) {
	rec := func(principal string, i int, ttl time.Duration) *tasks.Record {
		now := time.Now()
		return &tasks.Record{ID: fmt.Sprintf("%s%021d", principal[:1], i)[:22], Version: 1, Status: tasks.Working,
			Created: now, Updated: now, Expires: now.Add(ttl), Principal: principal, Tool: "t", Owner: "r0"}
	}
	n := 0
	for ; n <= max; n++ {
		err := store.Create(ctx, rec("mallory", n, 1500*time.Millisecond), time.Second)
		if errors.Is(err, tasks.ErrQuota) {
			break
		}
		if err != nil {
			return n, fmt.Errorf("mallory's task %d: %w", n, err)
		}
	}
	switch {
	case n > max:
		return n, fmt.Errorf("mallory got %d tasks, more than the cap %d", n, max)
	case exact && n != max:
		return n, fmt.Errorf("mallory got %d tasks, want %d", n, max)
	case n == 0:
		return n, fmt.Errorf("mallory got no task")
	}
	if err := store.Create(ctx, rec("alice", 0, time.Minute), time.Second); err != nil {
		return n, fmt.Errorf("alice, while mallory is at the cap: %w", err)
	}
	time.Sleep(1600 * time.Millisecond)
	if err := store.Create(ctx, rec("mallory", max+1, time.Minute), time.Second); err != nil {
		return n, fmt.Errorf("mallory once the tasks expired: %w", err)
	}
	return n, nil
}

// TestQuota: the memory store and the Redis store refuse a caller beyond
// MaxTasksPerPrincipal alike (tasks.ErrQuota), counting the caller's
// tasks until they expire; another caller still gets tasks.
func TestQuota(t *testing.T) {
	ctx := context.Background()
	mem := tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasksPerPrincipal: 5})
	if _, err := checkQuota(ctx, mem, 5, true); err != nil {
		t.Fatalf("memory store: %v", err)
	}
	rs := redisstore.NewUnchecked(client(t), &redisstore.Options{Prefix: redistest.Prefix(t.Name()), MaxTasksPerPrincipal: 5})
	defer rs.Close()
	if _, err := checkQuota(ctx, rs, 5, true); err != nil {
		t.Fatalf("redis store: %v", err)
	}
	// Through a Server: the same answer as with the memory store.
	ts, _ := jobTools(t)
	for _, store := range []tasks.Store{tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasksPerPrincipal: 2}),
		redisstore.NewUnchecked(client(t), &redisstore.Options{Prefix: redistest.Prefix(t.Name()), MaxTasksPerPrincipal: 2})} {
		r := replica{t, mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{Store: store}})}
		for range 2 {
			if id, _ := result(r.do("tools/call", `"name":"job","arguments":{"ms":1}`))["taskId"].(string); id == "" {
				t.Fatalf("%T: not created", store)
			}
		}
		e, _ := r.do("tools/call", `"name":"job","arguments":{"ms":1}`)["error"].(map[string]any)
		if e == nil || e["code"] != float64(mcp.CodeLimitExceeded) || fmt.Sprint(e["message"]) == "" {
			t.Errorf("%T: the third task: %v", store, e)
		}
		t.Logf("%T: %v", store, e["message"])
	}
}

// clusterQuota runs checkQuota on a cluster: a cap of 24 over 12 shards,
// 2 per shard: mallory is refused after at least 2 and at most 24 tasks.
func clusterQuota(t *testing.T, rdb redis.UniversalClient) {
	store := redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: redistest.Prefix(t.Name()), MaxTasksPerPrincipal: 24})
	defer store.Close()
	n, err := checkQuota(context.Background(), store, 24, false)
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Errorf("refused after %d tasks, fewer than a shard's part", n)
	}
	t.Logf("cap 24 over 12 shards: refused after %d tasks", n)
}
