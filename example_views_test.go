package mcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/embedmcp/mcp"
)

// A view (MCP Apps) shows a tool's results in clients that render them: it
// is registered before the tool that names it, and the tool puts the data
// only the view reads in its result's _meta.
func ExampleToolSet_RegisterViews() {
	tools := mcp.NewToolSet()
	if err := tools.RegisterViews(mcp.View{
		URI:  "ui://orders/chart",
		Name: "orders_chart",
		HTML: `<!DOCTYPE html><html><body><svg id="chart"></svg><script>/* draws _meta.points */</script></body></html>`,
	}); err != nil {
		log.Fatal(err)
	}
	if err := tools.Register(mcp.NewRawTool(mcp.ToolInfo{
		Name: "orders", Description: "Orders per hour.", Permission: "orders.read", View: "ui://orders/chart",
	}, func(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
		res := mcp.TextResult("412 orders in the last hour")
		res.Meta = map[string]any{"example.com/points": []int{40, 52, 61}}
		return res, nil
	})); err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(tools, mcp.GrantsAuthorizer{}, nil)

	read := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"ui://orders/chart"}}`
	_, resp := server.Handle(context.Background(), mcp.Caller{Grants: []string{"orders.read"}}, []byte(read))
	fmt.Println(string(resp)[:96])
	// A caller that may not call the tool cannot read its view either.
	_, resp = server.Handle(context.Background(), mcp.Caller{}, []byte(read))
	fmt.Println(string(resp))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"ui://orders/chart","mimeType":"text/html;p
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"ui://orders/chart"}}}
}
