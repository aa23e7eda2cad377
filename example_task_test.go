package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/embedmcp/mcp"
)

// A tool that takes a while runs as a task for clients that declare the
// Tasks extension: the call answers at once with the task, and tasks/get
// (on any replica sharing the store) returns the outcome.
func ExampleTaskSupport() {
	ts := mcp.NewToolSet()
	_, err := mcp.AddTool(ts, mcp.ToolInfo{
		Name:        "export",
		Description: "Export the orders (takes a while).",
		TaskSupport: mcp.TaskOptional, // a task when the client can poll, at once otherwise
	}, func(ctx context.Context, req *mcp.Request, in struct{}) (string, error) {
		select { // work that honours cancellation (tasks/cancel)
		case <-time.After(50 * time.Millisecond):
			return "exported 1 204 orders", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	if err != nil {
		panic(err)
	}
	// One process: the default tasks.MemoryStore. Replicas share a store:
	// Options.Tasks.Store = a store from redisstore.Open.
	server := mcp.NewServer(ts, mcp.AllowAll(), nil)

	ask := func(method, params string) map[string]any {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `,"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
		_, resp := server.Handle(context.Background(), mcp.Caller{Principal: "alice"}, []byte(body))
		var r struct{ Result map[string]any }
		_ = json.Unmarshal(resp, &r)
		return r.Result
	}
	created := ask("tools/call", `"name":"export","arguments":{}`)
	fmt.Println(created["resultType"], created["status"])
	id := created["taskId"].(string)
	for {
		task := ask("tasks/get", `"taskId":"`+id+`"`)
		if task["status"] != "working" {
			result := task["result"].(map[string]any)
			fmt.Println(task["status"], result["structuredContent"])
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Output:
	// task working
	// completed map[result:exported 1 204 orders]
}
