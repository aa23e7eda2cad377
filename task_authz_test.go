package mcp_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// TestTaskAuthorizerAskedOncePerRequest: every tasks/* request asks the
// Authorizer once, as a tools/call does, the tasks/update that completes a
// task's input (and runs its tool again) included.
func TestTaskAuthorizerAskedOncePerRequest(t *testing.T) {
	t.Parallel()
	var asks atomic.Int64
	az := mcp.AuthorizerFunc(func(context.Context, mcp.Caller, string) bool { asks.Add(1); return true })
	s := mcp.NewServer(taskTools(t, newGate()), az, nil)
	c := newTaskClient(t, s, "alice")
	once := func(what string, do func() taskReply) taskReply {
		t.Helper()
		asks.Store(0)
		r := do()
		if r.Error != nil {
			t.Fatalf("%s: %s", what, r.Raw)
		}
		if n := asks.Load(); n != 1 {
			t.Errorf("%s asked the Authorizer %d times, want 1", what, n)
		}
		return r
	}
	id := once("tools/call creating a task", func() taskReply { return c.call("ask", `{}`) }).str("taskId")
	c.wait(id, tasks.InputRequired)
	once("tasks/get", func() taskReply { return c.get(id) })
	once("tasks/update answering part of the input", func() taskReply {
		return c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"name#1":{"action":"accept","content":{"name":"Ada"}}}`)
	})
	once("tasks/update completing the input", func() taskReply {
		return c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"confirm#1":{"action":"accept"}}`)
	})
	c.wait(id, tasks.InputRequired)
	once("tasks/cancel", func() taskReply { return c.do("tasks/cancel", `"taskId":"`+id+`"`) })
}
