package mcptest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// A Client's errors keep what the wire says: an unknown tool (or one the
// caller may not use) is mcp.ErrUnknownTool, rejected arguments are
// mcp.ErrInvalidArguments, with no message compared. In a test, pass t
// to NewClient; the *mcp.Error is there too, with its code.
func ExampleClient_CallTool() {
	ts := mcp.NewToolSet()
	type in struct {
		Name string `json:"name"`
	}
	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "greet", Description: "Greet someone.", Permission: "demo.read"},
		func(_ context.Context, _ *mcp.Request, in in) (string, error) { return "hello, " + in.Name, nil })
	if err != nil {
		panic(err)
	}
	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil)
	// Before 2025-11-25 invalid arguments are a JSON-RPC error; from it on
	// they are an isError result the model reads.
	c := mcptest.NewClient(nil, server, &mcptest.ClientOptions{
		Caller: mcptest.Caller("ann", "demo.read"), ProtocolVersion: mcp.Version20250618})

	_, err = c.CallTool("farewell", nil)
	fmt.Println("unknown tool:", errors.Is(err, mcp.ErrUnknownTool))
	_, err = c.CallTool("greet", map[string]any{"name": 42})
	fmt.Println("invalid arguments:", errors.Is(err, mcp.ErrInvalidArguments))
	var rpc *mcp.Error
	if errors.As(err, &rpc) {
		fmt.Println("code:", rpc.Code)
	}
	guest := mcptest.NewClient(nil, server, &mcptest.ClientOptions{Caller: mcptest.Caller("guest")})
	_, err = guest.CallTool("greet", map[string]any{"name": "Ann"})
	fmt.Println("forbidden, told unknown:", errors.Is(err, mcp.ErrUnknownTool))
	// Output:
	// unknown tool: true
	// invalid arguments: true
	// code: -32602
	// forbidden, told unknown: true
}
