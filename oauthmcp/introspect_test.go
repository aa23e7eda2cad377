package oauthmcp

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func introspectingVerifier(t *testing.T, f *fakeAS, edit func(*Introspection)) (*Verifier, *fakeClock, *logBuffer) {
	t.Helper()
	return newTestVerifier(t, f, func(o *Options) {
		o.Introspection = &Introspection{ClientID: "rs", ClientSecret: "rs-secret"}
		if edit != nil {
			edit(o.Introspection)
		}
	})
}

func TestIntrospection(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, logs := introspectingVerifier(t, f, nil)
	now := clock.now()
	answer := func(edit func(map[string]any)) map[string]any {
		a := map[string]any{"active": true, "scope": "notes:read", "sub": "bob", "client_id": "app",
			"iss": f.issuer, "aud": []string{testResource}, "exp": now.Add(time.Hour).Unix()}
		if edit != nil {
			edit(a)
		}
		return a
	}
	f.introspect = map[string]map[string]any{
		"good-token":     answer(nil),
		"other-audience": answer(func(a map[string]any) { a["aud"] = "https://other.example.com" }),
		"no-audience":    answer(func(a map[string]any) { delete(a, "aud") }),
		"other-issuer":   answer(func(a map[string]any) { a["iss"] = "https://evil.example.com" }),
		"expired":        answer(func(a map[string]any) { a["exp"] = now.Add(-time.Hour).Unix() }),
		"no-principal":   answer(func(a map[string]any) { delete(a, "sub"); delete(a, "client_id") }),
	}
	c, err := v.Verify(background(), "good-token")
	if err != nil || c.Principal != "bob" || !slices.Equal(c.Grants, []string{"notes.read", "notes.search"}) {
		t.Fatalf("good token: %+v, %v", c, err)
	}
	for tok, want := range map[string]error{
		"unknown-token":  ErrInactive,
		"other-audience": ErrAudience,
		"no-audience":    ErrAudience,
		"other-issuer":   ErrIssuer,
		"expired":        ErrExpired,
		"no-principal":   ErrMissingClaim,
	} {
		if _, err := v.Verify(background(), tok); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", tok, err, want)
		}
	}
	if strings.Contains(logs.String(), "-token") {
		t.Errorf("the log carries a token:\n%s", logs)
	}
	// Answers are cached: asking again costs nothing, until CacheTTL.
	sent := f.introRequests.Load()
	for range 5 {
		if _, err := v.Verify(background(), "good-token"); err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(background(), "unknown-token"); !errors.Is(err, ErrInactive) {
			t.Fatal(err)
		}
	}
	if n := f.introRequests.Load(); n != sent {
		t.Errorf("%d more introspection requests for cached answers", n-sent)
	}
	// A revocation is seen once the cached answer expires.
	f.mu.Lock()
	delete(f.introspect, "good-token")
	f.mu.Unlock()
	clock.add(DefaultIntrospectionTTL)
	if _, err := v.Verify(background(), "good-token"); !errors.Is(err, ErrInactive) {
		t.Errorf("revoked token after the cache TTL: %v", err)
	}
	// The issuer down: refused, never accepted.
	f.down.Store(true)
	if _, err := v.Verify(background(), "another-token"); !errors.Is(err, ErrIntrospection) {
		t.Errorf("issuer down: %v, want ErrIntrospection", err)
	}
}

func TestIntrospectionBounds(t *testing.T) {
	f := newFakeAS(t, "")
	f.hang.Store(true)
	v, _, _ := newTestVerifier(t, f, func(o *Options) {
		o.FetchTimeout = 300 * time.Millisecond
		o.Introspection = &Introspection{Endpoint: f.srv.URL + "/introspect", MaxConcurrent: 2, MaxCacheEntries: 3}
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	busy := 0
	for i := range 10 {
		wg.Go(func() {
			_, err := v.Verify(background(), "flood-"+string(rune('a'+i)))
			if !errors.Is(err, ErrIntrospection) {
				t.Errorf("hanging endpoint: %v", err)
			}
			if err != nil && strings.Contains(err.Error(), "already in flight") {
				mu.Lock()
				busy++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if busy < 8 {
		t.Errorf("%d of 10 concurrent introspections refused at once, want at least 8 (MaxConcurrent 2)", busy)
	}
	// The cache stays within MaxCacheEntries.
	f.hang.Store(false)
	for i := range 10 {
		_, _ = v.Verify(background(), "inactive-"+string(rune('a'+i)))
	}
	if n := len(v.intro.cache); n > 3 {
		t.Errorf("cache holds %d entries, limit 3", n)
	}
}
