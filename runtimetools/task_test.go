package runtimetools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// TestProfileAsTask: for a client that declares the Tasks extension,
// runtime_profile answers at once with a task, and tasks/get returns the
// profile once it is taken.
func TestProfileAsTask(t *testing.T) {
	s := newTestServer(t, nil)
	caller := mcp.Caller{Principal: "oncall", Grants: allGrants}
	do := func(method, members string) map[string]any {
		t.Helper()
		_, body := s.Handle(context.Background(), caller, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{`+members+
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"`+tasks.Extension+`":{}}}}}}`))
		var r struct {
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal(body, &r); err != nil || r.Result == nil {
			t.Fatalf("%s: %v %s", method, err, body)
		}
		return r.Result
	}
	start := time.Now()
	created := do("tools/call", `"name":"runtime_profile","arguments":{"kind":"cpu","seconds":1,"top":3,"raw":true}`)
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("runtime_profile did not answer with a task at once: %v", created)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got := do("tasks/get", `"taskId":"`+id+`"`)
		if got["status"] == "completed" {
			raw, _ := json.Marshal(got["result"])
			if !strings.Contains(string(raw), `"kind":"cpu"`) || !strings.Contains(string(raw), "application/vnd.google.protobuf") {
				t.Errorf("profile task result: %.400s", raw)
			}
			return
		}
		if got["status"] != "working" || time.Now().After(deadline) {
			t.Fatalf("profile task: %v", got)
		}
	}
}
