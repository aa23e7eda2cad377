package mcp_test

import (
	"context"
	"log"
	"os"
	"strings"

	"github.com/embedmcp/mcp"
)

// Serve one local client over stdin and stdout, as a client that launches
// the server as a subprocess expects: one JSON-RPC message a line. The host
// decides who that client is; here it holds the grant of every tool.
func ExampleServeStdio() {
	type text struct {
		Text string `json:"text"`
	}
	ts := mcp.NewToolSet()
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo the text.", Permission: "demo.echo"},
		func(ctx context.Context, req *mcp.Request, in text) (text, error) { return in, nil }); err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "demo", Version: "1.0.0"})
	local := mcp.Caller{Principal: "local", Grants: []string{"demo.*"}}

	// A real host passes os.Stdin; ServeStdio returns at the end of it.
	stdin := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}` + "\n")
	if err := mcp.ServeStdio(context.Background(), server, local, stdin, os.Stdout, nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"text\":\"hi\"}"}],"structuredContent":{"text":"hi"}}}
}
