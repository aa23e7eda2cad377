package servers

import (
	"context"
	"net/http"

	"github.com/embedmcp/mcp"
)

// Embed returns embedmcp's Handler serving n tools: a typed tool (NewTool,
// schemas inferred and resolved at registration, input and output
// validated), AllowAll, anonymous callers.
func Embed(n int) (http.Handler, error) {
	ts := mcp.NewToolSet()
	for i := range max(n, 1) {
		info := mcp.ToolInfo{Name: ToolName(i), Description: toolDescription(i)}
		if _, err := mcp.AddTool(ts, info, embedEcho); err != nil {
			return nil, err
		}
	}
	server := mcp.NewServer(ts, mcp.AllowAll(), nil)
	return mcp.NewHandler(server, &mcp.HandlerOptions{Authenticator: mcp.Anonymous(mcp.Caller{})}), nil
}

func embedEcho(_ context.Context, _ *mcp.Request, in EchoIn) (EchoOut, error) {
	return EchoOut(in), nil
}
