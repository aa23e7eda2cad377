package servers

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDK returns the official go-sdk's StreamableHTTPHandler serving n tools,
// stateless with JSON responses. mcp.AddTool infers both schemas and
// validates input and output.
func GoSDK(n int) (http.Handler, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-bench", Version: "1.0.0"}, nil)
	for i := range max(n, 1) {
		mcp.AddTool(s, &mcp.Tool{Name: ToolName(i), Description: toolDescription(i)}, gosdkEcho)
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}), nil
}

func gosdkEcho(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, EchoOut, error) {
	return nil, EchoOut(in), nil
}
