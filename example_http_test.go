package mcp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/embedmcp/mcp"
)

// Mount the MCP endpoint on an existing mux, with bearer tokens deciding
// who the caller is and the caller's grants deciding which tools it sees.
func ExampleNewHandler() {
	type text struct {
		Text string `json:"text"`
	}
	ts := mcp.NewToolSet()
	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo the text.", Permission: "demo.echo"},
		func(ctx context.Context, req *mcp.Request, in text) (text, error) { return in, nil })
	if err != nil {
		panic(err)
	}
	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "my-service", Version: "1.0.0"})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(server, &mcp.HandlerOptions{
		Authenticator: mcp.StaticTokens(map[string]mcp.Caller{"s3cret": {Principal: "ops", Grants: []string{"demo.*"}}}),
	}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"text\":\"hi\"}"}],"structuredContent":{"text":"hi"}}}
}
