package mcp_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestUnauthorizedNamesScopes: HandlerOptions.Scopes are named in the 401
// challenge, so that an MCP client asks for them rather than for every
// scope the resource metadata lists; scopes that would break the header
// are left out with a warning.
func TestUnauthorizedNamesScopes(t *testing.T) {
	var logs bytes.Buffer
	const meta = "https://mcp.example.com/.well-known/oauth-protected-resource"
	auth := mcp.StaticTokens(map[string]mcp.Caller{"good": {Principal: "p"}})
	challenge := func(opts *mcp.HandlerOptions, token string) string {
		t.Helper()
		srv := httptest.NewServer(mcp.NewHandler(mcp.NewServer(nil, nil, nil), opts))
		defer srv.Close()
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401", resp.StatusCode)
		}
		return resp.Header.Get("WWW-Authenticate")
	}
	opts := &mcp.HandlerOptions{Authenticator: auth, ResourceMetadataURL: meta,
		Scopes: []string{"notes:read", `bad "scope"`, "files", "notes:read"},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	for _, c := range []struct{ token, want string }{
		{"", `Bearer realm="mcp", scope="notes:read files", resource_metadata="` + meta + `"`},
		{"wrong", `Bearer realm="mcp", error="invalid_token", scope="notes:read files", resource_metadata="` + meta + `"`},
	} {
		if got := challenge(opts, c.token); got != c.want {
			t.Errorf("token %q: WWW-Authenticate\n%s\nwant\n%s", c.token, got, c.want)
		}
	}
	if !strings.Contains(logs.String(), "not a scope-token") || !strings.Contains(logs.String(), `bad \"scope\"`) {
		t.Errorf("no warning naming the invalid scope: %s", logs.String())
	}
	if got, want := challenge(&mcp.HandlerOptions{Authenticator: auth, ResourceMetadataURL: meta}, ""),
		`Bearer realm="mcp", resource_metadata="`+meta+`"`; got != want {
		t.Errorf("without Scopes: WWW-Authenticate %s, want %s", got, want)
	}
}
