package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestAuthUnavailable: a token that could not be checked (the issuer busy
// or down) is a server condition: 503 with Retry-After, and the session
// cookie is kept, not cleared as for a refused token.
func TestAuthUnavailable(t *testing.T) {
	auth := mcp.AuthenticatorFunc(func(r *http.Request) (mcp.Caller, error) {
		return mcp.Caller{}, fmt.Errorf("introspection: %w", mcp.ErrAuthUnavailable)
	})
	c, err := New(&Options{Registry: mcp.NewToolSet(), Authenticator: auth, Authorizer: mcp.GrantsAuthorizer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Authorization", "Bearer some-token")
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: "sealed"})
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	for _, ck := range rec.Result().Cookies() {
		if ck.Name == sessionCookie && ck.MaxAge < 0 {
			t.Errorf("the session cookie was cleared")
		}
	}
	if rec.Header().Get("WWW-Authenticate") != "" {
		t.Errorf("a 503 asks the browser to sign in again: %q", rec.Header().Get("WWW-Authenticate"))
	}
}
