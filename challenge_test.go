package mcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// scopedHandler serves tools "read" (permission notes.read) and "write"
// (notes.write) behind static tokens, with GrantsAuthorizer.
func scopedHandler(t *testing.T, challenge mcp.ScopeChallenge, auth bool) http.Handler {
	t.Helper()
	ts := mcp.NewToolSet()
	type out struct {
		Text string `json:"text"`
	}
	for name, perm := range map[string]string{"read": "notes.read", "write": "notes.write", "admin": "notes.admin"} {
		mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: name, Description: "A tool.", Permission: perm},
			func(context.Context, *mcp.Request, struct{}) (out, error) { return out{name}, nil }))
	}
	opts := &mcp.HandlerOptions{ScopeChallenge: challenge,
		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource"}
	if auth {
		opts.Authenticator = mcp.StaticTokens(map[string]mcp.Caller{
			"reader": {Principal: "reader", Grants: []string{"notes.read"}},
		})
	}
	return mcp.NewHandler(mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), opts)
}

// noteScopes challenges for "notes:write" on notes.write and knows no scope
// for anything else.
func noteScopes(_ context.Context, _ mcp.Caller, permission string) []string {
	switch permission {
	case "notes.write":
		return []string{"notes:write", "bad scope", `q"uote`}
	case "notes.read":
		return []string{"notes:read"}
	}
	return nil
}

func challengeCallBody(tool string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

func TestScopeChallenge(t *testing.T) {
	h := scopedHandler(t, noteScopes, true)
	call := func(body string) *http.Response {
		return serve(h, withAuth(newPost(body), "Bearer reader")).Result()
	}

	w := serve(h, withAuth(newPost(challengeCallBody("write")), "Bearer reader"))
	if w.Code != http.StatusForbidden {
		t.Fatalf("write without its grant: status %d, want 403: %s", w.Code, w.Body)
	}
	want := `Bearer realm="mcp", error="insufficient_scope", scope="notes:write", ` +
		`resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`
	if got := w.Header().Get("WWW-Authenticate"); got != want {
		t.Errorf("WWW-Authenticate = %s\nwant %s", got, want)
	}
	if !strings.Contains(w.Body.String(), "insufficient_scope") {
		t.Errorf("403 body does not say why: %s", w.Body)
	}

	if r := call(challengeCallBody("read")); r.StatusCode != http.StatusOK {
		t.Errorf("read with its grant: status %d", r.StatusCode)
	}
	// A permission for which no scope exists stays unknown: 200 and the
	// ordinary unknown-tool error, as does a tool that does not exist.
	for _, tool := range []string{"admin", "nosuch"} {
		w := serve(h, withAuth(newPost(challengeCallBody(tool)), "Bearer reader"))
		if w.Code != http.StatusOK || w.Header().Get("WWW-Authenticate") != "" {
			t.Errorf("%s: status %d, WWW-Authenticate %q; want the unknown-tool answer", tool, w.Code,
				w.Header().Get("WWW-Authenticate"))
		}
		if r := decodeRPC(t, w.Body.Bytes()); r.Error == nil {
			t.Errorf("%s: no error: %s", tool, w.Body)
		}
	}
	// The tool stays hidden from tools/list.
	w = serve(h, withAuth(newPost(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), "Bearer reader"))
	if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"write"`) || !strings.Contains(w.Body.String(), `"read"`) {
		t.Errorf("tools/list: status %d: %s", w.Code, w.Body)
	}
	// A batch is answered as a batch: the challenge would lose the other answers.
	batch := "[" + challengeCallBody("write") + "," + strings.Replace(challengeCallBody("read"), `"id":7`, `"id":8`, 1) + "]"
	if r := call(batch); r.StatusCode != http.StatusOK {
		t.Errorf("batch: status %d, want 200", r.StatusCode)
	}
}

func TestScopeChallengeDefaultAndAnonymous(t *testing.T) {
	for _, tc := range []struct {
		name      string
		challenge mcp.ScopeChallenge
		auth      bool
	}{
		{"no ScopeChallenge", nil, true},
		{"no Authenticator", noteScopes, false},
		{"a panicking ScopeChallenge", func(context.Context, mcp.Caller, string) []string { panic("broken") }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := scopedHandler(t, tc.challenge, tc.auth)
			r := newPost(challengeCallBody("write"))
			if tc.auth {
				r = withAuth(r, "Bearer reader")
			}
			w := serve(h, r)
			if w.Code != http.StatusOK || w.Header().Get("WWW-Authenticate") != "" {
				t.Errorf("%s: status %d, WWW-Authenticate %q; want forbidden = unknown", tc.name, w.Code,
					w.Header().Get("WWW-Authenticate"))
			}
			if r := decodeRPC(t, w.Body.Bytes()); r.Error == nil || !strings.Contains(r.Error.Message, "write") {
				t.Errorf("%s: want the unknown-tool error: %s", tc.name, w.Body)
			}
		})
	}
}

// Under 2026-07-28 (headers naming the method and tool, _meta in the body)
// the challenge is the same.
func TestScopeChallengeModern(t *testing.T) {
	h := scopedHandler(t, noteScopes, true)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	for tool, want := range map[string]int{"write": http.StatusForbidden, "read": http.StatusOK} {
		r := withAuth(newPost(strings.Replace(body, `"name":"write"`, `"name":"`+tool+`"`, 1)), "Bearer reader")
		r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", tool)
		w := serve(h, r)
		if w.Code != want {
			t.Errorf("%s: status %d, want %d: %s", tool, w.Code, want, w.Body)
		}
		if got := w.Header().Get("WWW-Authenticate"); (want == http.StatusForbidden) != strings.Contains(got, `scope="notes:write"`) {
			t.Errorf("%s: WWW-Authenticate %q", tool, got)
		}
	}
}
