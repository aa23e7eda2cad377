package oauthmcp

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const testResource = "https://mcp.example.com/mcp"

// fakeAS is an in-process authorization server: RFC 8414 (or only OpenID
// Connect) metadata, a JWKS of generated keys, an introspection endpoint,
// and switches to fail.
type fakeAS struct {
	t       testing.TB
	srv     *httptest.Server
	issuer  string
	closing chan struct{} // closed when the test ends

	mu          sync.Mutex
	published   []*testKey
	introspect  map[string]map[string]any // token → answer
	introCounts map[string]int            // token → introspection requests
	introDelay  time.Duration             // before each introspection answer

	introInFlight, introMaxInFlight atomic.Int64

	jwksFetches, metaFetches, introRequests atomic.Int64
	down                                    atomic.Bool // 503 everywhere
	hang                                    atomic.Bool // no answer until the client gives up
	oidcOnly                                bool        // no RFC 8414 document
	metaIssuer                              string      // issuer named in metadata, if not the real one
}

type testKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func newTestKey(t testing.TB, kid string, alg jose.SignatureAlgorithm) *testKey {
	t.Helper()
	var priv crypto.Signer
	var err error
	switch alg {
	case jose.RS256, jose.PS256:
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jose.EdDSA:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	default:
		t.Fatalf("no key for %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &testKey{kid: kid, alg: alg, priv: priv}
}

// newFakeAS starts a fake authorization server publishing one RS256 key,
// "k1". path is appended to its URL to make the issuer ("" or "/tenant").
func newFakeAS(t testing.TB, path string) *fakeAS {
	t.Helper()
	f := &fakeAS{t: t}
	f.closing = make(chan struct{})
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() { close(f.closing); f.srv.Close() })
	f.issuer = f.srv.URL + path
	f.published = []*testKey{newTestKey(t, "k1", jose.RS256)}
	return f
}

func (f *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
	if f.hang.Load() {
		// Read the body, so that the server notices the client leaving.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-f.closing:
		}
		return
	}
	if f.down.Load() {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	issuerPath := strings.TrimPrefix(f.issuer, f.srv.URL)
	md := func() {
		f.metaFetches.Add(1)
		iss := f.issuer
		if f.metaIssuer != "" {
			iss = f.metaIssuer
		}
		writeJSONDoc(w, map[string]any{"issuer": iss, "jwks_uri": f.srv.URL + "/keys",
			"introspection_endpoint": f.srv.URL + "/introspect"})
	}
	switch {
	case r.URL.Path == "/.well-known/oauth-authorization-server"+issuerPath && !f.oidcOnly:
		md()
	case r.URL.Path == issuerPath+"/.well-known/openid-configuration":
		md()
	case r.URL.Path == "/keys":
		f.jwksFetches.Add(1)
		f.mu.Lock()
		var set jose.JSONWebKeySet
		for _, k := range f.published {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
		}
		f.mu.Unlock()
		writeJSONDoc(w, set)
	case r.URL.Path == "/introspect" && r.Method == http.MethodPost:
		f.introRequests.Add(1)
		n := f.introInFlight.Add(1)
		defer f.introInFlight.Add(-1)
		for {
			if m := f.introMaxInFlight.Load(); n <= m || f.introMaxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		if f.introDelay > 0 {
			select {
			case <-time.After(f.introDelay):
			case <-r.Context().Done():
			case <-f.closing:
			}
		}
		if id, secret, ok := r.BasicAuth(); !ok || id != "rs" || secret != "rs-secret" {
			http.Error(w, "client authentication failed", http.StatusUnauthorized)
			return
		}
		tok := r.PostFormValue("token")
		f.mu.Lock()
		ans, ok := f.introspect[tok]
		if f.introCounts == nil {
			f.introCounts = make(map[string]int)
		}
		f.introCounts[tok]++
		f.mu.Unlock()
		if !ok {
			ans = map[string]any{"active": false}
		}
		writeJSONDoc(w, ans)
	default:
		http.NotFound(w, r)
	}
}

func writeJSONDoc(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// introspected returns how many times tok was introspected.
func (f *fakeAS) introspected(tok string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.introCounts[tok]
}

// rotate publishes a new key and returns it.
func (f *fakeAS) rotate(kid string, alg jose.SignatureAlgorithm) *testKey {
	k := newTestKey(f.t, kid, alg)
	f.mu.Lock()
	f.published = append(f.published, k)
	f.mu.Unlock()
	return k
}

func (f *fakeAS) key(i int) *testKey {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.published[i]
}

// claims are good claims for testResource, issued now, for an hour.
func (f *fakeAS) claims(now time.Time, scope string) map[string]any {
	return map[string]any{"iss": f.issuer, "aud": []string{testResource}, "sub": "alice", "client_id": "app",
		"scope": scope, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "j1"}
}

// sign signs claims with k as an RFC 9068 access token.
func sign(t testing.TB, k *testKey, claims map[string]any) string {
	return signTyped(t, k, "at+jwt", claims)
}

func signTyped(t testing.TB, k *testKey, typ string, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// fakeClock is a settable clock for the Verifier.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// logBuffer collects log lines, safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// newTestVerifier returns a Verifier of f's tokens for testResource, on a
// fake clock, logging into the returned buffer. edit may change options.
func newTestVerifier(t testing.TB, f *fakeAS, edit func(*Options)) (*Verifier, *fakeClock, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	o := Options{Issuer: f.issuer, Resource: testResource, Scopes: testScopes,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if edit != nil {
		edit(&o)
	}
	v, err := New(&o)
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{t: time.Now()}
	v.now = clock.now
	return v, clock, logs
}

var testScopes = ScopeMap{
	"notes:read":  {"notes.read", "notes.search"},
	"notes:write": {"notes.write"},
	"notes":       {"notes.*"},
	"admin":       {"*"},
}

func background() context.Context { return context.Background() }
