package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

const whoamiBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`

// principal returns the principal the whoami tool saw.
func principal(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("status %d %s", w.Code, w.Body)
	}
	var res struct {
		StructuredContent struct{ Text string } `json:"structuredContent"`
	}
	must(t, json.Unmarshal(decodeRPC(t, w.Body.Bytes()).Result, &res))
	return res.StructuredContent.Text
}

func withAuth(r *http.Request, value string) *http.Request {
	r.Header.Set("Authorization", value)
	return r
}

func TestStaticTokens(t *testing.T) {
	p, _ := testProtocol(t, nil)
	const metaURL = "https://mcp.example.com/.well-known/oauth-protected-resource"
	h := mcp.NewHandler(p, &mcp.HandlerOptions{
		Authenticator: mcp.StaticTokens(map[string]mcp.Caller{
			"alice-token": {Principal: "alice"},
			"bob-token":   {Principal: "bob", Grants: []string{"*"}},
			"":            {Principal: "nobody"},
		}),
		ResourceMetadataURL: metaURL,
	})
	if got := principal(t, serve(h, withAuth(newPost(whoamiBody), "Bearer alice-token"))); got != "alice" {
		t.Errorf("alice's token served %q", got)
	}
	if got := principal(t, serve(h, withAuth(newPost(whoamiBody), "bearer bob-token"))); got != "bob" {
		t.Errorf("bob's token served %q", got)
	}

	tests := []struct {
		name, auth string
		invalid    bool // error="invalid_token" expected
	}{
		{"no header", "", false},
		{"other scheme", "Basic YWxpY2U6eA==", false},
		{"unknown token", "Bearer mallory-token", true},
		{"prefix of a token", "Bearer alice", true},
		{"empty token", "Bearer ", true},
		{"scheme alone", "Bearer", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newPost(whoamiBody)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := serve(h, r)
			wantRPCError(t, w, http.StatusUnauthorized, mcp.CodeInvalidRequest, "Unauthorized")
			want := `Bearer realm="mcp", resource_metadata="` + metaURL + `"`
			if tc.invalid {
				want = `Bearer realm="mcp", error="invalid_token", resource_metadata="` + metaURL + `"`
			}
			if got := w.Header().Get("WWW-Authenticate"); got != want {
				t.Errorf("%s: WWW-Authenticate = %s, want %s", tc.name, got, want)
			}
		})
	}
}

func TestUnauthorizedWithoutMetadata(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, &mcp.HandlerOptions{Authenticator: mcp.StaticTokens(map[string]mcp.Caller{"t": {}})})
	w := serve(h, newPost(whoamiBody))
	if got := w.Header().Get("WWW-Authenticate"); got != `Bearer realm="mcp"` {
		t.Fatalf("WWW-Authenticate = %s", got)
	}
}

// TestTokensNotLogged: neither the handler's nor the server's log ever
// holds a token, even when the verifier puts it in its error.
func TestTokensNotLogged(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, _ := testProtocol(t, &mcp.Options{Logger: logger})
	const good, bad = "s3cret-good-token-value", "s3cret-bad-token-value"
	verify := func(_ context.Context, tok string) (mcp.Caller, error) {
		if tok == good {
			return mcp.Caller{Principal: "svc"}, nil
		}
		return mcp.Caller{}, fmt.Errorf("token %q is expired (token=%s)", tok, tok)
	}
	h := mcp.NewHandler(p, &mcp.HandlerOptions{Authenticator: mcp.BearerAuth(verify), Logger: logger})
	if got := principal(t, serve(h, withAuth(newPost(whoamiBody), "Bearer "+good))); got != "svc" {
		t.Fatalf("served %q", got)
	}
	w := serve(h, withAuth(newPost(whoamiBody), "Bearer "+bad))
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Header().Get("WWW-Authenticate"), "invalid_token") {
		t.Fatalf("bad token: %d %v", w.Code, w.Header())
	}
	serve(h, withAuth(newPost(whoamiBody), "Basic "+bad))
	out := logs.String()
	if !strings.Contains(out, "invalid credentials") || !strings.Contains(out, "[redacted]") || !strings.Contains(out, "svc") {
		t.Fatalf("expected log records are missing:\n%s", out)
	}
	if strings.Contains(out, "s3cret") {
		t.Fatalf("a token reached the log:\n%s", out)
	}
	if strings.Contains(w.Body.String(), "s3cret") {
		t.Fatalf("a token reached the response: %s", w.Body)
	}
}

// TestAuthenticatorErrors: any error refuses the request; errors.Is
// classifies them.
func TestAuthenticatorErrors(t *testing.T) {
	p, _ := testProtocol(t, nil)
	var logs bytes.Buffer
	backendDown := errors.New("token introspection endpoint unreachable")
	h := mcp.NewHandler(p, &mcp.HandlerOptions{
		Authenticator: mcp.AuthenticatorFunc(func(*http.Request) (mcp.Caller, error) { return mcp.Caller{}, backendDown }),
		Logger:        slog.New(slog.NewTextHandler(&logs, nil)),
	})
	w := serve(h, newPost(whoamiBody))
	if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != `Bearer realm="mcp"` {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "unreachable") {
		t.Fatalf("authenticator failure not logged at WARN:\n%s", logs.String())
	}
	if !errors.Is(mcp.ErrInvalidToken, mcp.ErrUnauthenticated) {
		t.Fatal("ErrInvalidToken must match ErrUnauthenticated")
	}
	_, err := mcp.BearerAuth(func(context.Context, string) (mcp.Caller, error) { return mcp.Caller{}, backendDown }).
		Authenticate(withAuth(newPost(""), "Bearer x"))
	if !errors.Is(err, mcp.ErrInvalidToken) || !errors.Is(err, backendDown) {
		t.Fatalf("BearerAuth error %v does not wrap both ErrInvalidToken and the cause", err)
	}
	_, err = mcp.BearerAuth(nil).Authenticate(withAuth(newPost(""), "Bearer x"))
	if !errors.Is(err, mcp.ErrInvalidToken) {
		t.Fatalf("BearerAuth(nil) must refuse every token, got %v", err)
	}
}

func TestAnonymous(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, &mcp.HandlerOptions{Authenticator: mcp.Anonymous(mcp.Caller{Principal: "dev"})})
	if got := principal(t, serve(h, newPost(whoamiBody))); got != "dev" {
		t.Fatalf("served %q", got)
	}
	if got := principal(t, serve(mcp.NewHandler(p, nil), newPost(whoamiBody))); got != "" {
		t.Fatalf("default authenticator served %q, want the zero Caller", got)
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	h := mcp.ProtectedResourceMetadata(mcp.ResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"tools.read"},
	})
	w := serve(h, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource", nil))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	var md map[string]any
	must(t, json.Unmarshal(w.Body.Bytes(), &md))
	want := map[string]any{
		"resource":                 "https://mcp.example.com/mcp",
		"authorization_servers":    []any{"https://auth.example.com"},
		"scopes_supported":         []any{"tools.read"},
		"bearer_methods_supported": []any{"header"},
	}
	got, _ := json.Marshal(md)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Fatalf("metadata %s, want %s", got, exp)
	}
	if w := serve(h, httptest.NewRequest(http.MethodPost, "/", nil)); w.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", w.Code)
	}
	if w := serve(h, httptest.NewRequest(http.MethodHead, "/", nil)); w.Code != 200 || w.Body.Len() != 0 {
		t.Fatalf("HEAD: %d %q", w.Code, w.Body)
	}
}

// TestAuthBeforeBody: an unauthenticated request is refused before its
// body is read or any tool runs.
func TestAuthBeforeBody(t *testing.T) {
	p, hk := testProtocol(t, nil)
	h := mcp.NewHandler(p, &mcp.HandlerOptions{Authenticator: mcp.StaticTokens(map[string]mcp.Caller{"t": {}})})
	r := newPost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keep"}}`)
	w := serve(h, r)
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("%d", w.Code)
	}
	select {
	case <-hk.late:
		t.Fatal("a tool ran for an unauthenticated request")
	default:
	}
}

func TestPanickingAuthenticatorFailsClosed(t *testing.T) {
	h := mcp.NewHandler(mcp.NewServer(mcp.NewToolSet(), mcp.AllowAll(), nil), &mcp.HandlerOptions{
		Authenticator: mcp.AuthenticatorFunc(func(*http.Request) (mcp.Caller, error) { panic("authenticator bug") }),
	})
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized || strings.Contains(rec.Body.String(), "authenticator bug") {
		t.Fatalf("got %d %s, want 401 without the panic text", rec.Code, rec.Body)
	}
}

// A verifier that cannot check a token for now (ErrAuthUnavailable) gets
// 503 with Retry-After: never 401 invalid_token, which tells a client to
// drop its token and authorize again.
func TestAuthUnavailable(t *testing.T) {
	p, _ := testProtocol(t, nil)
	var logs bytes.Buffer
	busy := fmt.Errorf("introspection: no free slot: %w", mcp.ErrAuthUnavailable)
	h := mcp.NewHandler(p, &mcp.HandlerOptions{
		Authenticator: mcp.BearerAuth(func(_ context.Context, tok string) (mcp.Caller, error) {
			return mcp.Caller{}, fmt.Errorf("checking %s: %w", tok, busy)
		}),
		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource",
		Logger:              slog.New(slog.NewTextHandler(&logs, nil)),
	})
	w := serve(h, withAuth(newPost(whoamiBody), "Bearer secret-token"))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q; want 503 with Retry-After: %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if got := w.Header().Get("WWW-Authenticate"); got != "" {
		t.Errorf("503 carries WWW-Authenticate %q", got)
	}
	r := decodeRPC(t, w.Body.Bytes())
	if r.Error == nil || r.Error.Code != mcp.CodeLimitExceeded || strings.Contains(w.Body.String(), "invalid_token") {
		t.Errorf("body: %s", w.Body)
	}
	if !strings.Contains(logs.String(), "level=WARN") || strings.Contains(logs.String(), "secret-token") {
		t.Errorf("log (WARN, without the token):\n%s", logs.String())
	}
	_, err := mcp.BearerAuth(func(context.Context, string) (mcp.Caller, error) { return mcp.Caller{}, busy }).
		Authenticate(withAuth(newPost(""), "Bearer x"))
	if !errors.Is(err, mcp.ErrAuthUnavailable) || errors.Is(err, mcp.ErrInvalidToken) || errors.Is(err, mcp.ErrUnauthenticated) {
		t.Errorf("BearerAuth error %v: want ErrAuthUnavailable only", err)
	}
}
