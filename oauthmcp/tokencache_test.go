package oauthmcp

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestTokenCache(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, _ := newTestVerifier(t, f, func(o *Options) { o.TokenCacheSize = 3 })
	now := clock.now()
	cl := f.claims(now, "notes:read")
	cl["exp"] = now.Add(2 * time.Minute).Unix()
	tok := sign(t, f.key(0), cl)
	for i := range 2 {
		c, err := v.Verify(background(), tok)
		if err != nil || !slices.Equal(c.Grants, []string{"notes.read", "notes.search"}) {
			t.Fatalf("try %d: %+v, %v", i, c, err)
		}
		c.Grants[0] = "*" // the caller's copy only
	}
	if v.tokens.m.len() != 1 {
		t.Fatalf("%d cached tokens, want 1", v.tokens.m.len())
	}
	// A cached token still expires.
	clock.add(3 * time.Minute)
	if _, err := v.Verify(background(), tok); !errors.Is(err, ErrExpired) {
		t.Errorf("cached token past its expiry: %v", err)
	}
	// The cache is bounded.
	for i := range 10 {
		c := f.claims(clock.now(), "notes")
		c["jti"] = fmt.Sprint(i)
		if _, err := v.Verify(background(), sign(t, f.key(0), c)); err != nil {
			t.Fatal(err)
		}
	}
	if n := v.tokens.m.len(); n > 3 {
		t.Errorf("%d cached tokens, limit 3", n)
	}
	// The least recently used token leaves: one in use stays however many
	// others come.
	inUse := sign(t, f.key(0), f.claims(clock.now(), "notes"))
	for i := range 10 {
		c := f.claims(clock.now(), "notes")
		c["jti"] = fmt.Sprint("churn-", i)
		for _, tok := range []string{inUse, sign(t, f.key(0), c)} {
			if _, err := v.Verify(background(), tok); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !v.tokens.m.has(sha256.Sum256([]byte(inUse))) {
		t.Error("a token in use was dropped from the cache")
	}
	// A cached token whose key the issuer withdraws is refused once the key
	// set is fetched again.
	good := sign(t, f.key(0), f.claims(clock.now(), "notes"))
	if _, err := v.Verify(background(), good); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.published = []*testKey{newTestKey(t, "k2", "ES256")}
	f.mu.Unlock()
	clock.add(DefaultKeysRefresh)
	if _, err := v.Verify(background(), good); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("cached token of a withdrawn key: %v, want ErrUnknownKey", err)
	}

	off, _, _ := newTestVerifier(t, f, func(o *Options) { o.TokenCacheSize = -1 })
	if off.tokens != nil {
		t.Error("TokenCacheSize -1 still caches")
	}
}
