package enquiry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/enquiry"
)

// Register adds tool_detail and tool_catalogue over the ToolSet's own
// tools. tool_detail answers "which tool does X" with the one tool and how
// to call it, among the tools the caller may use: the Server hands the
// tools its Authorizer through the context.
func ExampleRegister() {
	tools := mcp.NewToolSet()
	for _, info := range []mcp.ToolInfo{
		{Name: "restart_worker", Description: "Restart a background worker by name.", Permission: "ops.write",
			Guide: &mcp.Guide{Category: "Operations", WhenToUse: "A worker is stuck or leaking memory."}},
		{Name: "queue_depth", Description: "Count the jobs waiting in each queue.", Permission: "ops.read",
			Guide: &mcp.Guide{Category: "Operations", WhenToUse: "Jobs are slow to start: see how many are waiting."}},
	} {
		if err := tools.Register(mcp.NewRawTool(info, func(context.Context, *mcp.Request) (*mcp.Result, error) {
			return mcp.TextResult("done"), nil
		})); err != nil {
			log.Fatal(err)
		}
	}
	if err := enquiry.Register(tools, nil); err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(tools, mcp.GrantsAuthorizer{}, nil)

	ask := func(caller mcp.Caller, phrase string) {
		res, err := server.CallTool(context.Background(), mcp.NewRequest(caller, enquiry.DefaultDetailName,
			json.RawMessage(fmt.Sprintf(`{"tool":%q}`, phrase))))
		if err != nil {
			log.Fatal(err)
		}
		var answer struct {
			Match string `json:"match"`
			Tool  struct {
				Name string `json:"name"`
			} `json:"tool"`
		}
		if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &answer); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s asks %q: %s %s\n", caller.Principal, phrase, answer.Match, answer.Tool.Name)
	}
	ask(mcp.Caller{Principal: "ops", Grants: []string{"ops.*"}}, "how many jobs are waiting")
	ask(mcp.Caller{Principal: "ops", Grants: []string{"ops.*"}}, "restart worker")
	ask(mcp.Caller{Principal: "viewer", Grants: []string{"ops.read"}}, "restart worker")
	// Output:
	// ops asks "how many jobs are waiting": single queue_depth
	// ops asks "restart worker": exact restart_worker
	// viewer asks "restart worker": none
}
