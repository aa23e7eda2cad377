package oauthmcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/oauthmcp"
)

// A Verifier behind the Handler: a refused token gets 401 invalid_token,
// pointing at the protected resource metadata. (This token is malformed,
// so nothing is fetched from the issuer.)
func ExampleNew() {
	scopes := oauthmcp.ScopeMap{"notes:read": {"notes.read"}, "notes:write": {"notes.write"}}
	v, err := oauthmcp.New(&oauthmcp.Options{
		Issuer:   "https://login.example.com/",
		Resource: "https://mcp.example.com/mcp",
		Scopes:   scopes,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	server := mcp.NewServer(mcp.NewToolSet(), mcp.GrantsAuthorizer{}, nil)
	handler := mcp.NewHandler(server, &mcp.HandlerOptions{
		Authenticator:       v.Authenticator(),
		ScopeChallenge:      scopes.Challenge,
		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
	})

	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer not.a.token")
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))

	_, err = v.Verify(context.Background(), "not.a.token")
	fmt.Println(err)
	// Output:
	// 401 Bearer realm="mcp", error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// oauthmcp: malformed token: not a signed JWT
}

// One map both ways: scopes to grants for the Caller, and a permission the
// caller lacks back to the scope a challenge names.
func ExampleScopeMap() {
	scopes := oauthmcp.ScopeMap{
		"notes:read":  {"notes.read", "notes.search"},
		"notes:write": {"notes.write"},
		"notes":       {"notes.*"},
	}
	fmt.Println(scopes.Grants([]string{"notes:read", "notes:write"}))
	fmt.Println(scopes.Challenge(context.Background(), mcp.Caller{}, "notes.write"))
	fmt.Println(scopes.Challenge(context.Background(), mcp.Caller{}, "notes.archive"))
	fmt.Println(scopes.Challenge(context.Background(), mcp.Caller{}, "billing.view"))
	// Output:
	// [notes.read notes.search notes.write]
	// [notes:write]
	// [notes]
	// []
}
