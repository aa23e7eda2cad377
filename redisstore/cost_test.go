package redisstore_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/redisstore"
	"github.com/embedmcp/mcp/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// trips counts the round trips a client makes: one per command, one per
// pipeline.
type trips struct {
	mu    sync.Mutex
	names []string
}

func (c *trips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *trips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.add(cmd.Name())
		return next(ctx, cmd)
	}
}
func (c *trips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		names := make([]string, len(cmds))
		for i, cmd := range cmds {
			names[i] = cmd.Name()
		}
		c.add("pipeline(" + strings.Join(names, ",") + ")")
		return next(ctx, cmds)
	}
}

// add records a round trip; the handshake of a new pooled connection
// (HELLO, CLIENT SETINFO) is not the task's.
func (c *trips) add(name string) {
	if name == "hello" || strings.HasPrefix(name, "pipeline(client") {
		return
	}
	c.mu.Lock()
	c.names = append(c.names, name)
	c.mu.Unlock()
}
func (c *trips) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.names
	c.names = nil
	return out
}

// TestCreationRoundTrips: answering a tools/call with a task costs one
// round trip to Redis, the script that stores it, and no other until the
// tool ends. A tasks/get is one round trip.
func TestCreationRoundTrips(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer rdb.Close()
	count := &trips{}
	rdb.AddHook(count)
	tl := newTools()
	s := replica{t, mcp.NewServer(tl.set(t), mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{
		Store: redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: redistest.Prefix(t.Name())})}})}
	for i := range 10 {
		count.take()
		id, _ := result(s.do("tools/call", `"name":"slow"`))["taskId"].(string)
		answered := count.take()
		<-tl.started
		time.Sleep(20 * time.Millisecond)
		later := count.take()
		if i > 0 { // the first run loads the scripts
			if all := append(answered, later...); !slices.Equal(answered, []string{"evalsha"}) || len(all) != 1 {
				sort.Strings(all)
				t.Errorf("a task cost %v (before the CreateTaskResult: %v), want the evalsha that stores it", all, answered)
			}
			if s.status(id) != "working" {
				t.Fatal("not working")
			}
			if got := count.take(); len(got) != 1 {
				t.Errorf("tasks/get: %v, want one round trip", got)
			}
		}
		tl.release <- "x"
		s.waitFor(id, "completed")
	}
}
