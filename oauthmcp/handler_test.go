package oauthmcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

const metaURL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

// notesHandler serves tools "read" (notes.read) and "write" (notes.write)
// behind v, with GrantsAuthorizer and, if challenge, the scope challenge.
func notesHandler(t *testing.T, v *Verifier, challenge bool) http.Handler {
	t.Helper()
	ts := mcp.NewToolSet()
	type out struct {
		Who string `json:"who"`
	}
	for name, perm := range map[string]string{"read": "notes.read", "write": "notes.write"} {
		_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: name, Description: "A notes tool.", Permission: perm},
			func(_ context.Context, req *mcp.Request, _ struct{}) (out, error) {
				return out{req.Caller.Principal}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	opts := &mcp.HandlerOptions{Authenticator: v.Authenticator(), ResourceMetadataURL: metaURL}
	if challenge {
		opts.ScopeChallenge = testScopes.Challenge
	}
	return mcp.NewHandler(mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), opts)
}

func post(h http.Handler, target, token, tool string) *httptest.ResponseRecorder {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// Every refused token gets the same 401 invalid_token answer: the reason
// goes to the log only.
func TestHandlerRefusals(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, logs := newTestVerifier(t, f, nil)
	h := notesHandler(t, v, true)
	now := clock.now()
	good := sign(t, f.key(0), f.claims(now, "notes:read"))
	if w := post(h, "/mcp", good, "read"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"who":"alice"`) {
		t.Fatalf("good token: %d %s", w.Code, w.Body)
	}
	expired := f.claims(now, "notes:read")
	expired["exp"] = now.Add(-time.Hour).Unix()
	other := f.claims(now, "notes:read")
	other["aud"] = "https://other.example.com/mcp"
	wantChallenge := `Bearer realm="mcp", error="invalid_token", resource_metadata="` + metaURL + `"`
	var bodies []string
	for name, tok := range map[string]string{
		"expired":        sign(t, f.key(0), expired),
		"other audience": sign(t, f.key(0), other),
		"malformed":      "not.a.jwt",
		"opaque":         "opaque",
		"huge":           strings.Repeat("x", 1<<20),
		"wrong typ":      signTyped(t, f.key(0), "JWT", f.claims(now, "notes:read")),
	} {
		w := post(h, "/mcp", tok, "read")
		if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != wantChallenge {
			t.Errorf("%s: %d, WWW-Authenticate %q", name, w.Code, w.Header().Get("WWW-Authenticate"))
		}
		bodies = append(bodies, w.Body.String())
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("refusals differ in what they tell the client:\n%s\n%s", bodies[0], b)
		}
	}
	// A token in the query string is refused, even beside a good header.
	for _, target := range []string{"/mcp?access_token=" + good, "/mcp?x=1&access_token="} {
		w := post(h, target, good, "read")
		if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != wantChallenge {
			t.Errorf("query token %s: %d, %q", target[:20], w.Code, w.Header().Get("WWW-Authenticate"))
		}
	}
	out := logs.String()
	if strings.Contains(out, good) || strings.Contains(out, strings.Split(good, ".")[2]) {
		t.Errorf("the log carries a token:\n%s", out)
	}
	for _, reason := range []string{"token expired", "not issued for this resource", "access token in the URL query", "token too large"} {
		if !strings.Contains(out, reason) {
			t.Errorf("the log never says %q", reason)
		}
	}
}

// The issuer down with no cached keys: 401, never a 500 or a hang.
func TestHandlerIssuerDown(t *testing.T) {
	f := newFakeAS(t, "")
	f.down.Store(true)
	v, clock, logs := newTestVerifier(t, f, nil)
	h := notesHandler(t, v, false)
	w := post(h, "/mcp", sign(t, f.key(0), f.claims(clock.now(), "notes:read")), "read")
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Header().Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("issuer down: %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
	if !strings.Contains(logs.String(), "signing keys are unavailable") {
		t.Errorf("no logged reason:\n%s", logs)
	}
}

// The step-up flow: a token lacking a tool's scope is challenged with the
// scope to ask for; a token with the union of scopes gets the call.
func TestHandlerStepUp(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, _ := newTestVerifier(t, f, nil)
	h := notesHandler(t, v, true)
	now := clock.now()
	reader := sign(t, f.key(0), f.claims(now, "notes:read"))
	w := post(h, "/mcp", reader, "write")
	want := `Bearer realm="mcp", error="insufficient_scope", scope="notes:write", resource_metadata="` + metaURL + `"`
	if w.Code != http.StatusForbidden || w.Header().Get("WWW-Authenticate") != want {
		t.Fatalf("write with notes:read: %d %q, want 403 %q", w.Code, w.Header().Get("WWW-Authenticate"), want)
	}
	// Scope union, as the client computes it.
	both := sign(t, f.key(0), f.claims(now, "notes:read notes:write"))
	for _, tool := range []string{"write", "read"} {
		if w := post(h, "/mcp", both, tool); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"who":"alice"`) {
			t.Errorf("%s after step-up: %d %s", tool, w.Code, w.Body)
		}
	}
	// A broader scope covers both (a scope hierarchy).
	if w := post(h, "/mcp", sign(t, f.key(0), f.claims(now, "notes")), "write"); w.Code != http.StatusOK {
		t.Errorf("write with the broader scope: %d %s", w.Code, w.Body)
	}
	// Without the challenge, the same call is an unknown tool.
	plain := notesHandler(t, v, false)
	if w := post(plain, "/mcp", reader, "write"); w.Code != http.StatusOK || w.Header().Get("WWW-Authenticate") != "" ||
		!strings.Contains(w.Body.String(), `"error"`) {
		t.Errorf("default: %d %q %s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body)
	}
}
