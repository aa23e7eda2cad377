package mcp_test

import (
	"context"
	"fmt"
	"maps"
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

// parseChallenge parses one WWW-Authenticate challenge strictly by RFC 9110
// section 11.6.1: a scheme, then auth-params whose values are tokens or
// quoted-strings (section 5.6.4), each name once.
func parseChallenge(h string) (scheme string, params map[string]string, err error) {
	isTchar := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
	}
	token := func(s string) (string, string) {
		i := 0
		for i < len(s) && isTchar(s[i]) {
			i++
		}
		return s[:i], s[i:]
	}
	ows := func(s string) string { return strings.TrimLeft(s, " \t") }
	scheme, rest := token(h)
	if scheme == "" || !strings.HasPrefix(rest, " ") {
		return "", nil, fmt.Errorf("no scheme in %q", h)
	}
	params = map[string]string{}
	rest = ows(rest)
	for rest != "" {
		var name string
		name, rest = token(rest)
		rest = ows(rest)
		if name == "" || !strings.HasPrefix(rest, "=") {
			return "", nil, fmt.Errorf("bad auth-param at %q", rest)
		}
		rest = ows(rest[1:])
		var value string
		if strings.HasPrefix(rest, `"`) {
			var b strings.Builder
			i, closed := 1, false
			for ; i < len(rest) && !closed; i++ {
				c := rest[i]
				switch {
				case c == '"':
					closed = true
				case c == '\\':
					if i+1 == len(rest) || !(rest[i+1] == '\t' || rest[i+1] >= 0x20 && rest[i+1] != 0x7f) {
						return "", nil, fmt.Errorf("bad quoted-pair in %q", rest)
					}
					i++
					b.WriteByte(rest[i])
				case c == '\t' || c == ' ' || c == 0x21 || c >= 0x23 && c <= 0x5b || c >= 0x5d && c <= 0x7e || c >= 0x80:
					b.WriteByte(c)
				default:
					return "", nil, fmt.Errorf("byte %#x in a quoted-string", c)
				}
			}
			if !closed {
				return "", nil, fmt.Errorf("unterminated quoted-string in %q", h)
			}
			value, rest = b.String(), rest[i:]
		} else if value, rest = token(rest); value == "" {
			return "", nil, fmt.Errorf("no value for %s", name)
		}
		if _, dup := params[strings.ToLower(name)]; dup {
			return "", nil, fmt.Errorf("%s twice in %q", name, h)
		}
		params[strings.ToLower(name)] = value
		rest = ows(rest)
		if rest != "" {
			if rest[0] != ',' {
				return "", nil, fmt.Errorf("junk after %s: %q", name, rest)
			}
			rest = ows(rest[1:])
		}
	}
	return scheme, params, nil
}

// Every value of a challenge is an RFC 9110 quoted-string, whatever the
// host configured: a resource metadata URL with a backslash, a quote or a
// control character cannot end its parameter early or add one, and scope
// names that are not RFC 6749 scope-tokens are left out.
func TestChallengeQuoted(t *testing.T) {
	const meta = `https://mcp.example.com/.well-known/oauth-protected-resource/a\b"c, error="none` + "\x01" + `\`
	const wantMeta = `https://mcp.example.com/.well-known/oauth-protected-resource/a\b%22c, error=%22none\`
	ts := mcp.NewToolSet()
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "write", Description: "A tool.", Permission: "notes.write"},
		func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil }))
	h := mcp.NewHandler(mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), &mcp.HandlerOptions{
		ScopeChallenge:      noteScopes,
		ResourceMetadataURL: meta,
		Authenticator:       mcp.StaticTokens(map[string]mcp.Caller{"reader": {Principal: "reader"}}),
	})
	for _, tc := range []struct {
		name   string
		auth   string
		status int
		want   map[string]string
	}{
		{"no token", "", http.StatusUnauthorized, map[string]string{"realm": "mcp", "resource_metadata": wantMeta}},
		{"bad token", "Bearer nope", http.StatusUnauthorized,
			map[string]string{"realm": "mcp", "error": "invalid_token", "resource_metadata": wantMeta}},
		{"insufficient scope", "Bearer reader", http.StatusForbidden,
			map[string]string{"realm": "mcp", "error": "insufficient_scope", "scope": "notes:write", "resource_metadata": wantMeta}},
	} {
		r := newPost(challengeCallBody("write"))
		if tc.auth != "" {
			r = withAuth(r, tc.auth)
		}
		w := serve(h, r)
		hdr := w.Header().Get("WWW-Authenticate")
		if w.Code != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, w.Code, tc.status)
		}
		scheme, params, err := parseChallenge(hdr)
		if err != nil {
			t.Errorf("%s: WWW-Authenticate %s: %v", tc.name, hdr, err)
			continue
		}
		if scheme != "Bearer" || !maps.Equal(params, tc.want) {
			t.Errorf("%s: WWW-Authenticate %s\nparsed %s %q\nwant %q", tc.name, hdr, scheme, params, tc.want)
		}
	}
}
