package servers

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MCPGo returns mark3labs/mcp-go's StreamableHTTPServer serving n tools,
// stateless, with input and output schema validation on.
func MCPGo(n int) (http.Handler, error) {
	s := server.NewMCPServer("mcpgo-bench", "1.0.0",
		server.WithToolCapabilities(false),
		server.WithInputSchemaValidation(),
		server.WithOutputSchemaValidation())
	handler := mcp.NewStructuredToolHandler(mcpgoEcho)
	for i := range max(n, 1) {
		tool := mcp.NewTool(ToolName(i),
			mcp.WithDescription(toolDescription(i)),
			mcp.WithInputSchema[EchoIn](),
			mcp.WithOutputSchema[EchoOut]())
		s.AddTool(tool, handler)
	}
	return server.NewStreamableHTTPServer(s, server.WithStateLess(true)), nil
}

func mcpgoEcho(_ context.Context, _ mcp.CallToolRequest, in EchoIn) (EchoOut, error) {
	return EchoOut(in), nil
}
