package oauthmcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

func b64(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// handMade builds a compact JWS with the given header and signature
// function, for what a signing library refuses to make.
func handMade(header, claims map[string]any, sig func(input string) []byte) string {
	input := b64(header) + "." + b64(claims)
	return input + "." + base64.RawURLEncoding.EncodeToString(sig(input))
}

func TestVerifyAccepts(t *testing.T) {
	f := newFakeAS(t, "")
	es := f.rotate("k-es", jose.ES256)
	ed := f.rotate("k-ed", jose.EdDSA)
	v, clock, _ := newTestVerifier(t, f, nil)
	now := clock.now()

	c, err := v.Verify(background(), sign(t, f.key(0), f.claims(now, "notes:read notes:write unknown:scope")))
	if err != nil {
		t.Fatal(err)
	}
	if c.Principal != "alice" || !slices.Equal(c.Grants, []string{"notes.read", "notes.search", "notes.write"}) {
		t.Errorf("caller %+v", c)
	}
	for name, tok := range map[string]string{
		"ES256":                  sign(t, es, f.claims(now, "notes")),
		"EdDSA":                  sign(t, ed, f.claims(now, "notes")),
		"typ application/at+jwt": signTyped(t, f.key(0), "application/at+jwt", f.claims(now, "notes")),
	} {
		c, err := v.Verify(background(), tok)
		if err != nil || !slices.Equal(c.Grants, []string{"notes.*"}) {
			t.Errorf("%s: %+v, %v", name, c, err)
		}
	}

	// scp as an array (Hydra, Okta), client_id as principal without sub,
	// a string audience, and expiry within the leeway.
	cl := f.claims(now, "")
	delete(cl, "scope")
	delete(cl, "sub")
	cl["scp"] = []string{"admin"}
	cl["aud"] = testResource
	cl["exp"] = now.Add(-10 * time.Second).Unix()
	c, err = v.Verify(background(), sign(t, f.key(0), cl))
	if err != nil || c.Principal != "client:app" || !slices.Equal(c.Grants, []string{"*"}) {
		t.Errorf("scp, client_id, leeway: %+v, %v", c, err)
	}
	if n := f.jwksFetches.Load(); n != 1 {
		t.Errorf("%d key set fetches for tokens of known keys, want 1", n)
	}
}

func TestVerifyRefuses(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, logs := newTestVerifier(t, f, nil)
	now := clock.now()
	k := f.key(0)
	good := func(edit func(map[string]any)) string {
		cl := f.claims(now, "notes")
		edit(cl)
		return sign(t, k, cl)
	}
	der, err := x509.MarshalPKIXPublicKey(k.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	goodClaims := f.claims(now, "notes")
	forger := newTestKey(t, "k1", jose.RS256) // same kid, key not published
	pss := &testKey{kid: "k1", alg: jose.PS256, priv: k.priv}

	tests := []struct {
		name  string
		token string
		want  error
	}{
		{"expired", good(func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() }), ErrExpired},
		{"not yet valid", good(func(c map[string]any) { c["nbf"] = now.Add(2 * time.Minute).Unix() }), ErrNotYetValid},
		{"issued in the future", good(func(c map[string]any) { c["iat"] = now.Add(time.Hour).Unix() }), ErrNotYetValid},
		{"no exp", good(func(c map[string]any) { delete(c, "exp") }), ErrMissingClaim},
		{"no sub nor client_id", good(func(c map[string]any) { delete(c, "sub"); delete(c, "client_id") }), ErrMissingClaim},
		{"other issuer", good(func(c map[string]any) { c["iss"] = "https://evil.example.com" }), ErrIssuer},
		{"issuer with a trailing slash", good(func(c map[string]any) { c["iss"] = f.issuer + "/" }), ErrIssuer},
		{"other audience", good(func(c map[string]any) { c["aud"] = []string{"https://other.example.com/mcp"} }), ErrAudience},
		{"audience prefix", good(func(c map[string]any) { c["aud"] = testResource + "/x" }), ErrAudience},
		{"no audience", good(func(c map[string]any) { delete(c, "aud") }), ErrAudience},
		{"typ JWT", signTyped(t, k, "JWT", goodClaims), ErrTokenType},
		{"no typ", signTyped(t, k, "", goodClaims), ErrTokenType},
		{"alg none", handMade(map[string]any{"alg": "none", "typ": "at+jwt", "kid": "k1"}, goodClaims,
			func(string) []byte { return nil }), ErrAlgorithm},
		{"HS256 keyed with the public key", handMade(map[string]any{"alg": "HS256", "typ": "at+jwt", "kid": "k1"}, goodClaims,
			func(in string) []byte { m := hmac.New(sha256.New, der); m.Write([]byte(in)); return m.Sum(nil) }), ErrAlgorithm},
		{"signed by another key with the same kid", sign(t, forger, goodClaims), ErrSignature},
		{"alg of another family than the key's", sign(t, pss, goodClaims), ErrUnknownKey},
		{"unknown kid", sign(t, newTestKey(t, "k9", jose.RS256), goodClaims), ErrUnknownKey},
		{"tampered claims", func() string {
			parts := strings.Split(sign(t, k, goodClaims), ".")
			cl := f.claims(now, "admin")
			return parts[0] + "." + b64(cl) + "." + parts[2]
		}(), ErrSignature},
		{"claims not an object", func() string {
			signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k.priv, KeyID: "k1"}},
				(&jose.SignerOptions{}).WithType("at+jwt"))
			obj, _ := signer.Sign([]byte(`["not","claims"]`))
			s, _ := obj.CompactSerialize()
			return s
		}(), ErrMalformed},
		{"three garbage parts", "abc.def.ghi", ErrMalformed},
		{"empty parts", "..", ErrMalformed},
		{"opaque", "opaque-token-value", ErrOpaque},
		{"encrypted", "a.b.c.d.e", ErrMalformed},
		{"huge", strings.Repeat("A", 100<<10) + ".e30.sig", ErrTooLarge},
	}
	for _, tc := range tests {
		c, err := v.Verify(background(), tc.token)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %+v, %v; want %v", tc.name, c, err, tc.want)
			continue
		}
		if c.Principal != "" || c.Grants != nil {
			t.Errorf("%s: refused but returned caller %+v", tc.name, c)
		}
		// The error and the log never carry the token.
		if len(tc.token) > 12 && strings.Contains(err.Error(), tc.token) {
			t.Errorf("%s: error carries the token", tc.name)
		}
	}
	out := logs.String()
	for _, tc := range tests {
		if len(tc.token) > 12 && strings.Contains(out, tc.token) {
			t.Errorf("%s: the log carries the token", tc.name)
		}
		for _, part := range strings.Split(tc.token, ".") {
			if len(part) > 40 && strings.Contains(out, part) {
				t.Errorf("%s: the log carries part of the token", tc.name)
			}
		}
	}
	if got, want := strings.Count(out, "oauthmcp: token refused"), len(tests); got != want {
		t.Errorf("%d refusals logged, want %d:\n%s", got, want, out)
	}
	for _, reason := range []string{"token expired", "wrong issuer", "not issued for this resource", "signature algorithm not allowed",
		"invalid signature", "unknown key", "token too large", "token type not accepted"} {
		if !strings.Contains(out, reason) {
			t.Errorf("log never says %q", reason)
		}
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"no issuer", Options{Resource: testResource}, "Issuer is required"},
		{"no resource", Options{Issuer: "https://as.example.com"}, "Resource is required"},
		{"http issuer", Options{Issuer: "http://as.example.com", Resource: testResource}, "must be https"},
		{"HS256", Options{Issuer: "https://as.example.com", Resource: testResource, Algorithms: []string{"RS256", "HS256"}}, `"HS256" not allowed`},
		{"none", Options{Issuer: "https://as.example.com", Resource: testResource, Algorithms: []string{"none"}}, `"none" not allowed`},
		{"http JWKS", Options{Issuer: "https://as.example.com", Resource: testResource, JWKSURL: "http://as.example.com/keys"}, "JWKSURL"},
	} {
		if _, err := New(&tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	for _, iss := range []string{"http://127.0.0.1:9000", "http://localhost:9000/t", "http://[::1]:9000", "https://as.example.com/"} {
		if _, err := New(&Options{Issuer: iss, Resource: testResource}); err != nil {
			t.Errorf("issuer %s: %v", iss, err)
		}
	}
}

func TestTokenTypesOption(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, _ := newTestVerifier(t, f, func(o *Options) { o.TokenTypes = []string{"at+jwt", "JWT"} })
	if _, err := v.Verify(background(), signTyped(t, f.key(0), "JWT", f.claims(clock.now(), "notes"))); err != nil {
		t.Errorf("typ JWT allowed by TokenTypes: %v", err)
	}
	if _, err := v.Verify(background(), signTyped(t, f.key(0), "", f.claims(clock.now(), "notes"))); !errors.Is(err, ErrTokenType) {
		t.Errorf("no typ, not allowed: %v", err)
	}
}
