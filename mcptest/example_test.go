package mcptest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// CheckTool reports every contract a tool breaks, as testing/fstest.TestFS
// does for file systems: in a test, t.Fatal(err) when it is not nil. Here
// a tool without description or permission.
func ExampleCheckTool() {
	type in struct {
		Limit int `json:"limit"`
	}
	tool, err := mcp.NewTool(mcp.ToolInfo{Name: "top"}, func(ctx context.Context, req *mcp.Request, in in) (struct{}, error) {
		return struct{}{}, nil
	})
	if err != nil {
		panic(err)
	}
	err = mcptest.CheckTool(tool, nil)
	fmt.Println(err)
	var v *mcptest.Violation
	if errors.As(err, &v) {
		fmt.Println("first rule broken:", v.Rule)
	}
	// Output:
	// tool "top": description: empty: a model cannot tell what the tool does
	// tool "top": permission: empty: every caller may use the tool (set CheckOptions.AllowNoPermission if that is intended)
	// first rule broken: description
}

// Record wraps an Authorizer and keeps every question it is asked, so that
// a test can assert which permissions a Server checked.
func ExampleRecord() {
	ts := mcp.NewToolSet()
	for _, info := range []mcp.ToolInfo{{Name: "read", Permission: "orders.read"}, {Name: "refund", Permission: "orders.refund"}} {
		if err := ts.Register(mcp.NewRawTool(info, func(context.Context, *mcp.Request) (*mcp.Result, error) {
			return mcp.TextResult("ok"), nil
		})); err != nil {
			panic(err)
		}
	}
	az := mcptest.Record(mcp.GrantsAuthorizer{})
	server := mcp.NewServer(ts, az, nil)

	_, err := server.CallTool(context.Background(), mcp.NewRequest(mcptest.Caller("clerk", "orders.read"), "refund", nil))
	fmt.Println(errors.Is(err, mcp.ErrUnknownTool))
	for _, q := range az.Asked() {
		fmt.Println(q.Principal, q.Permission, q.Allowed)
	}
	// Output:
	// true
	// clerk orders.refund false
}
