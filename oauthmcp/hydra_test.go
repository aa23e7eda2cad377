package oauthmcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// hydraResource is the audience the Hydra test's Verifier stands for.
const hydraResource = "https://notes.example.test/mcp"

// hydra talks to a running Ory Hydra (started by scripts/test.d/oauth.sh).
type hydra struct {
	t             *testing.T
	public, admin string
}

func (h *hydra) do(method, u string, body any, want int) map[string]any {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		h.t.Fatalf("%s %s: %d, want %d: %s", method, u, resp.StatusCode, want, b)
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// client registers a client_credentials client and returns its id and
// secret.
func (h *hydra) client(name, scope string, audience ...string) (id, secret string) {
	secret = name + "-secret-0123456789abcdef"
	out := h.do(http.MethodPost, h.admin+"/admin/clients", map[string]any{"client_name": name, "client_secret": secret,
		"grant_types": []string{"client_credentials"}, "scope": scope, "audience": audience,
		"token_endpoint_auth_method": "client_secret_basic"}, http.StatusCreated)
	return out["client_id"].(string), secret
}

// token gets a client_credentials token; a non-200 answer is returned as
// an error with its body.
func (h *hydra) token(id, secret, scope, audience string) (string, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}, "audience": {audience}}
	req, _ := http.NewRequest(http.MethodPost, h.public+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", errors.New(string(b))
	}
	var t struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return "", err
	}
	return t.AccessToken, nil
}

func (h *hydra) mustToken(id, secret, scope, audience string) string {
	h.t.Helper()
	tok, err := h.token(id, secret, scope, audience)
	if err != nil {
		h.t.Fatalf("token for %s: %v", scope, err)
	}
	return tok
}

// kidOf reads the kid of a token's header (not verified: for the test's
// own bookkeeping).
func kidOf(t *testing.T, tok string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Kid string `json:"kid"`
	}
	_ = json.Unmarshal(b, &h)
	return h.Kid
}

// TestHydra runs the Verifier against a real authorization server, Ory
// Hydra with JWT access tokens. It runs when OAUTHMCP_HYDRA_PUBLIC and
// OAUTHMCP_HYDRA_ADMIN name its public (issuer) and admin URLs, as
// scripts/test.d/oauth.sh sets them.
func TestHydra(t *testing.T) {
	public, admin := os.Getenv("OAUTHMCP_HYDRA_PUBLIC"), os.Getenv("OAUTHMCP_HYDRA_ADMIN")
	if public == "" || admin == "" {
		t.Skip("OAUTHMCP_HYDRA_PUBLIC and OAUTHMCP_HYDRA_ADMIN not set (scripts/test.d/oauth.sh sets them)")
	}
	h := &hydra{t: t, public: public, admin: admin}
	const other = "https://other.example.test/mcp"
	readerID, readerSecret := h.client("reader", "notes:read", hydraResource)
	writerID, writerSecret := h.client("writer", "notes:read notes:write", hydraResource, other)

	v, err := New(&Options{Issuer: public, Resource: hydraResource, Scopes: testScopes,
		TokenTypes: []string{"at+jwt", "application/at+jwt", "JWT"}, // Hydra labels its access tokens "JWT"
		Leeway:     -1, MinRefreshInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}

	// Two clients, different scopes, different grants.
	c, err := v.Verify(background(), h.mustToken(readerID, readerSecret, "notes:read", hydraResource))
	if err != nil || c.Principal != readerID || !slices.Equal(c.Grants, []string{"notes.read", "notes.search"}) {
		t.Errorf("reader: %+v, %v", c, err)
	}
	c, err = v.Verify(background(), h.mustToken(writerID, writerSecret, "notes:read notes:write", hydraResource))
	if err != nil || c.Principal != writerID || !slices.Equal(c.Grants, []string{"notes.read", "notes.search", "notes.write"}) {
		t.Errorf("writer: %+v, %v", c, err)
	}
	if _, err := h.token(readerID, readerSecret, "notes:write", hydraResource); err == nil || !strings.Contains(err.Error(), "invalid_scope") {
		t.Errorf("the reader got notes:write from Hydra: %v", err)
	}
	t.Logf("reader and writer verified: %d key set fetch(es)", v.keys.fetches.Load())

	// A token for another audience.
	if _, err := v.Verify(background(), h.mustToken(writerID, writerSecret, "notes:read", other)); !errors.Is(err, ErrAudience) {
		t.Errorf("token for %s: %v, want ErrAudience", other, err)
	}

	// The scope challenge, through the Handler, with a real token.
	hd := notesHandler(t, v, true)
	reader := h.mustToken(readerID, readerSecret, "notes:read", hydraResource)
	if w := post(hd, "/mcp", reader, "write"); w.Code != http.StatusForbidden ||
		!strings.Contains(w.Header().Get("WWW-Authenticate"), `error="insufficient_scope", scope="notes:write"`) {
		t.Errorf("reader calling write: %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
	if w := post(hd, "/mcp", reader, "read"); w.Code != http.StatusOK {
		t.Errorf("reader calling read: %d %s", w.Code, w.Body)
	}

	// An expired token: the reader's tokens now live one second.
	h.do(http.MethodPut, admin+"/admin/clients/"+readerID+"/lifespans",
		map[string]any{"client_credentials_grant_access_token_lifespan": "1s"}, http.StatusOK)
	short := h.mustToken(readerID, readerSecret, "notes:read", hydraResource)
	time.Sleep(2100 * time.Millisecond)
	if _, err := v.Verify(background(), short); !errors.Is(err, ErrExpired) {
		t.Errorf("expired token: %v, want ErrExpired", err)
	}

	// Key rotation at the server: a new key for access tokens; the next
	// token is signed with it, and accepted after one key set fetch.
	before := h.mustToken(writerID, writerSecret, "notes:read", hydraResource)
	if _, err := v.Verify(background(), before); err != nil {
		t.Fatal(err)
	}
	fetches := v.keys.fetches.Load()
	h.do(http.MethodPost, admin+"/admin/keys/hydra.jwt.access-token",
		map[string]any{"alg": "ES256", "use": "sig", "kid": "rotated-" + time.Now().Format("150405")}, http.StatusCreated)
	after := h.mustToken(writerID, writerSecret, "notes:read", hydraResource)
	if kidOf(t, after) == kidOf(t, before) {
		t.Fatalf("Hydra still signs with %s after the rotation", kidOf(t, before))
	}
	time.Sleep(time.Second) // MinRefreshInterval since the last fetch
	c, err = v.Verify(background(), after)
	if err != nil || c.Principal != writerID {
		t.Fatalf("token signed by the rotated key %s: %+v, %v", kidOf(t, after), c, err)
	}
	if n := v.keys.fetches.Load() - fetches; n != 1 {
		t.Errorf("%d key set fetches for the rotation, want 1", n)
	}
	// The old key is still published, so its tokens stay good.
	if _, err := v.Verify(background(), before); err != nil {
		t.Errorf("token of the previous key: %v", err)
	}
	t.Logf("rotation: %s -> %s accepted after 1 key set fetch", kidOf(t, before), kidOf(t, after))
}
