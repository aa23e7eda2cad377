package oauthmcp

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

func TestKeyRotation(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, _ := newTestVerifier(t, f, nil)
	k1 := f.key(0)
	if _, err := v.Verify(background(), sign(t, k1, f.claims(clock.now(), "notes"))); err != nil {
		t.Fatal(err)
	}
	k2 := f.rotate("k2", jose.ES256)
	tok := sign(t, k2, f.claims(clock.now(), "notes"))
	// Within MinRefreshInterval of the last fetch, the new key is not
	// fetched: the token is refused and nothing is asked of the server.
	if _, err := v.Verify(background(), tok); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("new key before the refresh interval: %v, want ErrUnknownKey", err)
	}
	if n := f.jwksFetches.Load(); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}
	clock.add(DefaultMinRefreshInterval)
	if _, err := v.Verify(background(), tok); err != nil {
		t.Fatalf("new key after the refresh interval: %v", err)
	}
	if n := f.jwksFetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
	// The old key stays good while the issuer publishes it.
	if _, err := v.Verify(background(), sign(t, k1, f.claims(clock.now(), "notes"))); err != nil {
		t.Errorf("old key: %v", err)
	}
	// A key the issuer stops publishing is dropped at the next refresh.
	f.mu.Lock()
	f.published = f.published[1:]
	f.mu.Unlock()
	clock.add(DefaultKeysRefresh)
	if _, err := v.Verify(background(), sign(t, k2, f.claims(clock.now(), "notes"))); err != nil {
		t.Errorf("current key after the periodic refresh: %v", err)
	}
	if n := f.jwksFetches.Load(); n != 3 {
		t.Errorf("%d fetches after the periodic refresh, want 3", n)
	}
	if _, err := v.Verify(background(), sign(t, k1, f.claims(clock.now(), "notes"))); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("withdrawn key: %v, want ErrUnknownKey", err)
	}
}

// A flood of tokens naming made-up key ids, all at once and then again
// later, costs the issuer one key set fetch per MinRefreshInterval.
func TestUnknownKidFlood(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, _ := newTestVerifier(t, f, nil)
	if _, err := v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes"))); err != nil {
		t.Fatal(err)
	}
	es := newTestKey(t, "", jose.ES256) // quick to sign with
	flood := func(round int) {
		var wg sync.WaitGroup
		for i := range 200 {
			wg.Go(func() {
				k := &testKey{kid: fmt.Sprintf("made-up-%d-%d", round, i), alg: jose.ES256, priv: es.priv}
				if _, err := v.Verify(background(), sign(t, k, f.claims(clock.now(), "notes"))); !errors.Is(err, ErrUnknownKey) {
					t.Errorf("made-up kid: %v", err)
				}
			})
		}
		wg.Wait()
	}
	flood(0)
	if n := f.jwksFetches.Load(); n != 1 {
		t.Errorf("200 unknown kids within the interval: %d fetches in all, want 1", n)
	}
	for round := 1; round <= 3; round++ {
		clock.add(DefaultMinRefreshInterval)
		flood(round)
		if n := f.jwksFetches.Load(); n != int64(1+round) {
			t.Errorf("round %d: %d fetches in all, want %d", round, n, 1+round)
		}
	}
}

func TestIssuerDown(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, logs := newTestVerifier(t, f, nil)
	if _, err := v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes"))); err != nil {
		t.Fatal(err)
	}
	f.down.Store(true)
	// Stale keys are fetched again; the fetch fails; the cached keys keep
	// working until they expire.
	clock.add(DefaultKeysRefresh + time.Second)
	for range 3 {
		if _, err := v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes"))); err != nil {
			t.Fatalf("cached keys while the issuer is down: %v", err)
		}
	}
	if !strings.Contains(logs.String(), "fetching the signing keys failed") || !strings.Contains(logs.String(), "status 503") {
		t.Errorf("the failed fetch is not logged:\n%s", logs)
	}
	clock.add(DefaultKeysExpiry)
	_, err := v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes")))
	if !errors.Is(err, ErrKeysUnavailable) || !strings.Contains(err.Error(), "status 503") {
		t.Fatalf("expired keys: %v, want ErrKeysUnavailable saying why", err)
	}
	// Back up: the next due fetch restores service.
	f.down.Store(false)
	clock.add(DefaultMinRefreshInterval)
	if _, err := v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes"))); err != nil {
		t.Errorf("issuer back: %v", err)
	}
}

// An issuer that accepts connections and never answers costs a request
// at most FetchTimeout, and only one request per MinRefreshInterval pays it.
func TestIssuerHangs(t *testing.T) {
	f := newFakeAS(t, "")
	f.hang.Store(true)
	v, clock, _ := newTestVerifier(t, f, func(o *Options) { o.FetchTimeout = 100 * time.Millisecond })
	start := time.Now()
	_, err := v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes")))
	if !errors.Is(err, ErrKeysUnavailable) {
		t.Fatalf("hanging issuer: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("verification took %s with a 100ms fetch timeout", d)
	}
	_, err = v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes")))
	if !errors.Is(err, ErrKeysUnavailable) || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("second try within the interval: %v", err)
	}
	f.hang.Store(false)
	clock.add(DefaultMinRefreshInterval)
	if _, err := v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes"))); err != nil {
		t.Errorf("issuer answering again: %v", err)
	}
}

func TestDiscovery(t *testing.T) {
	for _, tc := range []struct {
		name     string
		path     string
		oidcOnly bool
		metaIss  string
		wantErr  string
	}{
		{"RFC 8414", "", false, "", ""},
		{"RFC 8414, issuer with a path", "/tenant1", false, "", ""},
		{"OpenID Connect fallback", "/tenant1", true, "", ""},
		{"metadata naming another issuer", "", false, "https://evil.example.com", "names issuer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAS(t, tc.path)
			f.oidcOnly, f.metaIssuer = tc.oidcOnly, tc.metaIss
			v, clock, _ := newTestVerifier(t, f, nil)
			_, err := v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes")))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (!errors.Is(err, ErrKeysUnavailable) || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("%v, want ErrKeysUnavailable saying %q", err, tc.wantErr)
			}
		})
	}
	if got := discoveryURLs("https://as.example.com/t/1/"); got[0] != "https://as.example.com/.well-known/oauth-authorization-server/t/1" ||
		got[1] != "https://as.example.com/t/1/.well-known/openid-configuration" {
		t.Errorf("discovery URLs %q", got)
	}
}

func TestJWKSURLOption(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, _ := newTestVerifier(t, f, func(o *Options) { o.JWKSURL = f.srv.URL + "/keys" })
	if _, err := v.Verify(background(), sign(t, f.key(0), f.claims(clock.now(), "notes"))); err != nil {
		t.Fatal(err)
	}
	if n := f.metaFetches.Load(); n != 0 {
		t.Errorf("%d metadata fetches with JWKSURL set", n)
	}
}

func TestParseKeysSkipsUnusable(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	good := newTestKey(t, "good", jose.RS256)
	jwk := func(k jose.JSONWebKey) json.RawMessage {
		b, err := k.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	raw := []json.RawMessage{
		json.RawMessage(`{"kty":"oct","k":"c2VjcmV0","kid":"hmac","alg":"HS256"}`),
		json.RawMessage(`{"kty":"oct","k":"c2VjcmV0","kid":"hmac-noalg"}`),
		json.RawMessage(`{"kty":"weird"}`),
		json.RawMessage(`"not a key"`),
		jwk(jose.JSONWebKey{Key: small.Public(), KeyID: "small", Algorithm: "RS256"}),
		jwk(jose.JSONWebKey{Key: good.priv.Public(), KeyID: "enc", Use: "enc"}),
		jwk(jose.JSONWebKey{Key: good.priv.Public(), KeyID: "other-alg", Algorithm: "ES256"}),
		jwk(jose.JSONWebKey{Key: good.priv, KeyID: "good", Algorithm: "RS256"}), // private: public half kept
	}
	keys, skipped := parseKeys(raw, []jose.SignatureAlgorithm{jose.RS256})
	if len(keys) != 1 || skipped != len(raw)-1 || keys[0].KeyID != "good" || !keys[0].IsPublic() {
		t.Errorf("kept %v, skipped %d; want only the public half of \"good\"", keys, skipped)
	}
}
