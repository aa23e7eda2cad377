package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/console"
	"github.com/embedmcp/mcp/tasks"
)

// A host mounts the console beside its MCP endpoint, behind the same
// Authenticator, and puts the console's Record in the Server's
// Middleware. A browser signs in with the token as the password of HTTP
// Basic credentials; a caller without diagnostics.console.read gets 403.
func ExampleNew() {
	tools := mcp.NewToolSet()
	if _, err := mcp.AddTool(tools, mcp.ToolInfo{Name: "echo", Description: "Echoes its text.", Permission: "demo.echo"},
		func(_ context.Context, _ *mcp.Request, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		}); err != nil {
		panic(err)
	}
	auth := mcp.StaticTokens(map[string]mcp.Caller{
		"operator-token": {Principal: "olga", Grants: []string{"diagnostics.*", "demo.*"}},
		"user-token":     {Principal: "ulf", Grants: []string{"demo.*"}},
	})
	store := tasks.NewMemoryStore(nil)
	con, err := console.New(&console.Options{Title: "example", Registry: tools, Authenticator: auth,
		Authorizer: mcp.GrantsAuthorizer{}, Tasks: store})
	if err != nil {
		panic(err)
	}
	defer con.Close()
	server := mcp.NewServer(tools, mcp.GrantsAuthorizer{}, &mcp.Options{
		Middleware: []mcp.Middleware{con.Record}, Tasks: mcp.TaskOptions{Store: store}})

	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(server, &mcp.HandlerOptions{Authenticator: auth}))
	mux.Handle("/console/", http.StripPrefix("/console", con))

	get := func(path, token string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.SetBasicAuth("anyone", token)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		return w
	}
	w := get("/console/", "operator-token")
	fmt.Println(w.Code, strings.Contains(w.Body.String(), `id="tool-echo"`), strings.Contains(w.Header().Get("Set-Cookie"), "HttpOnly"))
	fmt.Println(get("/console/calls", "user-token").Code)
	fmt.Println(get("/console/calls", "wrong").Code)
	// Output:
	// 200 true true
	// 403
	// 401
}
