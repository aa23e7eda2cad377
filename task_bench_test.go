package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// Benchmarks of the Tasks extension with the in-memory store, through
// Server.Handle. BenchmarkTaskSyncCall, the same tool answered at once, is
// the baseline they are read against.

func benchTaskServer(b *testing.B) (*mcp.Server, *taskClient) {
	ts := mcp.NewToolSet()
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "instant", Description: "d", TaskSupport: mcp.TaskOptional},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("done"), nil })); err != nil {
		b.Fatal(err)
	}
	s := mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{MaxRunning: -1,
		Store: tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasks: -1})}})
	c := newTaskClient(nil, s, "bench")
	return s, c
}

// BenchmarkTaskGet: tasks/get of a completed task.
func BenchmarkTaskGet(b *testing.B) {
	s, c := benchTaskServer(b)
	_, body := s.Handle(context.Background(), c.caller, c.body("tools/call", `"name":"instant","arguments":{}`))
	id := taskIDOf(b, body)
	req := c.body("tasks/get", `"taskId":"`+id+`"`)
	for {
		if _, resp := s.Handle(context.Background(), c.caller, req); strings.Contains(string(resp), `"status":"completed"`) {
			break
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Handle(context.Background(), c.caller, req)
	}
}

// BenchmarkTaskCreate: a tools/call answered with a task (stored, its tool
// started).
func BenchmarkTaskCreate(b *testing.B) {
	s, c := benchTaskServer(b)
	req := c.body("tools/call", `"name":"instant","arguments":{}`)
	b.ReportAllocs()
	for b.Loop() {
		s.Handle(context.Background(), c.caller, req)
	}
}

// BenchmarkTaskSyncCall: the same tool answered at once (the client does
// not declare the extension): the baseline.
func BenchmarkTaskSyncCall(b *testing.B) {
	s, c := benchTaskServer(b)
	c.caps = `{}`
	req := c.body("tools/call", `"name":"instant","arguments":{}`)
	b.ReportAllocs()
	for b.Loop() {
		s.Handle(context.Background(), c.caller, req)
	}
}

func taskIDOf(b *testing.B, body []byte) string {
	_, rest, ok := strings.Cut(string(body), `"taskId":"`)
	if !ok || len(rest) < 22 {
		b.Fatalf("no task: %s", body)
	}
	return rest[:22]
}
