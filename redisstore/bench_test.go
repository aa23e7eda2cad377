package redisstore_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/redisstore"
	"github.com/embedmcp/mcp/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// Benchmarks through Redis on loopback, each reporting its median (p50-µs)
// beside the mean; BenchmarkRedisPing, one bare round trip, is the
// baseline they are read against.

// timed runs op b.N times and reports the median duration.
func timed(b *testing.B, op func()) {
	d := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		t := time.Now()
		op()
		d = append(d, time.Since(t))
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1e3, "p50-µs")
}

func BenchmarkRedisPing(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer rdb.Close()
	ctx := context.Background()
	timed(b, func() { rdb.Ping(ctx) })
}

func benchServer(b *testing.B) (*mcp.Server, func(method, members string) []byte) {
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	b.Cleanup(func() { rdb.Close() })
	ts := mcp.NewToolSet()
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "instant", TaskSupport: mcp.TaskRequired},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("done"), nil })); err != nil {
		b.Fatal(err)
	}
	s := mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{MaxRunning: -1, TTL: time.Minute,
		Store: redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: redistest.Prefix(b.Name()), MaxTasksPerPrincipal: -1})}})
	body := func(method, members string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + members + `,"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`)
	}
	return s, body
}

// BenchmarkRedisTaskGet: tasks/get of a completed task, through Server.Handle.
func BenchmarkRedisTaskGet(b *testing.B) {
	s, body := benchServer(b)
	ctx, caller := context.Background(), mcp.Caller{Principal: "bench"}
	_, resp := s.Handle(ctx, caller, body("tools/call", `"name":"instant","arguments":{}`))
	_, rest, _ := strings.Cut(string(resp), `"taskId":"`)
	if len(rest) < 22 {
		b.Fatalf("no task: %s", resp)
	}
	req := body("tasks/get", `"taskId":"`+rest[:22]+`"`)
	for {
		if _, resp := s.Handle(ctx, caller, req); strings.Contains(string(resp), `"completed"`) {
			break
		}
	}
	timed(b, func() { s.Handle(ctx, caller, req) })
}

// BenchmarkRedisTaskCreate: a tools/call answered with a task stored in
// Redis (its tool runs on, concurrently).
func BenchmarkRedisTaskCreate(b *testing.B) {
	s, body := benchServer(b)
	ctx, caller := context.Background(), mcp.Caller{Principal: "bench"}
	req := body("tools/call", `"name":"instant","arguments":{}`)
	timed(b, func() { s.Handle(ctx, caller, req) })
	time.Sleep(100 * time.Millisecond) // the last tools finish
}
