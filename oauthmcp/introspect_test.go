package oauthmcp

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
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

// A hanging endpoint: never more than MaxConcurrent requests at it, every
// token waits at most MaxWait for a slot, and each gets ErrIntrospection,
// which is mcp.ErrAuthUnavailable (503), never a refusal. The caches keep to
// their bounds.
func TestIntrospectionBounds(t *testing.T) {
	f := newFakeAS(t, "")
	f.hang.Store(true)
	v, _, _ := newTestVerifier(t, f, func(o *Options) {
		o.FetchTimeout = 300 * time.Millisecond
		o.Introspection = &Introspection{ClientID: "rs", ClientSecret: "rs-secret", Endpoint: f.srv.URL + "/introspect",
			MaxConcurrent: 2, MaxWait: 50 * time.Millisecond, MaxCacheEntries: 3, MaxInactive: 2}
	})
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			_, err := v.Verify(background(), "flood-"+string(rune('a'+i)))
			if !errors.Is(err, ErrIntrospection) || !errors.Is(err, mcp.ErrAuthUnavailable) {
				t.Errorf("hanging endpoint: %v, want ErrIntrospection (mcp.ErrAuthUnavailable)", err)
			}
		})
	}
	wg.Wait()
	// Tokens never seen before hold at most MaxConcurrent - 1 slots (one is
	// kept for known tokens); the others gave up after MaxWait.
	if n := f.introMaxInFlight.Load(); n > 1 {
		t.Errorf("%d introspections in flight at once, want at most 1 for new tokens (MaxConcurrent 2)", n)
	}
	if n := f.introRequests.Load(); n >= 10 {
		t.Errorf("%d introspection requests for 10 tokens against a hanging endpoint: nobody gave up waiting", n)
	}
	// The caches stay within their bounds.
	f.hang.Store(false)
	for i := range 10 {
		good := "good-" + string(rune('a'+i))
		f.mu.Lock()
		f.introspect = map[string]map[string]any{good: {"active": true, "sub": "bob", "aud": testResource}}
		f.mu.Unlock()
		if _, err := v.Verify(background(), good); err != nil {
			t.Fatal(err)
		}
		_, _ = v.Verify(background(), "inactive-"+string(rune('a'+i)))
	}
	if n, m := v.intro.active.len(), v.intro.inactive.len(); n > 3 || m > 2 {
		t.Errorf("caches hold %d active and %d inactive answers, limits 3 and 2", n, m)
	}
}
