package oauthmcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// activeAnswer is the introspection answer of a good token of sub.
func activeAnswer(f *fakeAS, now time.Time, sub string) map[string]any {
	return map[string]any{"active": true, "scope": "notes:read", "sub": sub,
		"iss": f.issuer, "aud": []string{testResource}, "exp": now.Add(time.Hour).Unix()}
}

// postCtx is post under ctx.
func postCtx(ctx context.Context, h http.Handler, token, tool string) *httptest.ResponseRecorder {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// A flood of made-up opaque tokens from 24 clients, against an issuer that
// answers introspection in 100 ms, with the default options: genuine new
// tokens wait their turn and pass, a genuine token already cached is not
// introspected again, and nothing made up is accepted.
func TestIntrospectionFlood(t *testing.T) {
	f := newFakeAS(t, "")
	f.introDelay = 100 * time.Millisecond
	v, clock, _ := newTestVerifier(t, f, func(o *Options) {
		o.Introspection = &Introspection{ClientID: "rs", ClientSecret: "rs-secret"}
	})
	h := notesHandler(t, v, false)
	now := clock.now()
	const genuine, senders, flooders, perFlooder = 20, 4, 24, 100
	f.mu.Lock()
	f.introspect = map[string]map[string]any{"cached-genuine": activeAnswer(f, now, "carol")}
	for i := range genuine {
		f.introspect[fmt.Sprintf("genuine-%d", i)] = activeAnswer(f, now, fmt.Sprintf("user-%d", i))
	}
	f.mu.Unlock()
	if w := post(h, "/mcp", "cached-genuine", "read"); w.Code != http.StatusOK {
		t.Fatalf("cached token, first use: %d %s", w.Code, w.Body)
	}

	ctx, stop := context.WithCancel(background())
	defer stop()
	var flood sync.WaitGroup
	var floodSent, floodAccepted atomic.Int64
	for i := range flooders {
		flood.Go(func() {
			for j := range perFlooder {
				if ctx.Err() != nil {
					return
				}
				w := postCtx(ctx, h, fmt.Sprintf("made-up-%d-%d", i, j), "read")
				floodSent.Add(1)
				if w.Code == http.StatusOK {
					floodAccepted.Add(1)
				}
			}
		})
	}
	// The flood is on once the issuer has answered a round of it.
	for f.introRequests.Load() < 2*flooders && ctx.Err() == nil && floodSent.Load() < flooders*perFlooder {
		time.Sleep(5 * time.Millisecond)
	}

	var mu sync.Mutex
	statuses := map[int]int{} // genuine new tokens, by status
	var cachedStatuses []int  // the cached token, each time
	var genuineWG sync.WaitGroup
	for s := range senders {
		genuineWG.Go(func() {
			for i := s; i < genuine; i += senders {
				w := post(h, "/mcp", fmt.Sprintf("genuine-%d", i), "read")
				c := post(h, "/mcp", "cached-genuine", "read")
				mu.Lock()
				statuses[w.Code]++
				cachedStatuses = append(cachedStatuses, c.Code)
				mu.Unlock()
			}
		})
	}
	genuineWG.Wait()
	stop()
	flood.Wait()

	t.Logf("%d made-up tokens sent, %d introspections; genuine new tokens by status: %v; at most %d in flight at the issuer",
		floodSent.Load(), f.introRequests.Load(), statuses, f.introMaxInFlight.Load())
	if statuses[http.StatusOK] < genuine-1 {
		t.Errorf("%d of %d genuine new tokens accepted under the flood, want at least %d", statuses[http.StatusOK], genuine, genuine-1)
	}
	if statuses[http.StatusUnauthorized] > 0 {
		t.Errorf("%d genuine new tokens refused with 401 under the flood: a busy issuer must be 503", statuses[http.StatusUnauthorized])
	}
	for _, c := range cachedStatuses {
		if c != http.StatusOK {
			t.Errorf("the cached genuine token got %d under the flood", c)
		}
	}
	if n := f.introspected("cached-genuine"); n != 1 {
		t.Errorf("the cached genuine token was introspected %d times, want 1", n)
	}
	if n := floodAccepted.Load(); n > 0 {
		t.Errorf("%d made-up tokens accepted", n)
	}
	if n := f.introMaxInFlight.Load(); n > DefaultMaxConcurrent {
		t.Errorf("%d introspections in flight at once, limit %d", n, DefaultMaxConcurrent)
	}
}

// Made-up tokens, however many, never push a good token out of the cache:
// active and inactive answers are cached apart.
func TestIntrospectionCacheApart(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, _ := newTestVerifier(t, f, func(o *Options) {
		o.Introspection = &Introspection{ClientID: "rs", ClientSecret: "rs-secret", MaxCacheEntries: 4}
	})
	f.introspect = map[string]map[string]any{"good": activeAnswer(f, clock.now(), "carol")}
	for round := range 3 {
		if c, err := v.Verify(background(), "good"); err != nil || c.Principal != "carol" {
			t.Fatalf("round %d: %+v, %v", round, c, err)
		}
		for i := range 50 {
			if _, err := v.Verify(background(), fmt.Sprintf("made-up-%d-%d", round, i)); !errors.Is(err, ErrInactive) {
				t.Fatalf("made-up token: %v", err)
			}
		}
	}
	if n := f.introspected("good"); n != 1 {
		t.Errorf("the good token was introspected %d times while 150 made-up ones came, want 1", n)
	}
}

// A token answered active before whose answer has aged out is asked about
// again in a slot that tokens never seen cannot take: while they hold all
// of theirs, it goes through at once.
func TestIntrospectionKnownTokensFlow(t *testing.T) {
	f := newFakeAS(t, "")
	f.introDelay = 300 * time.Millisecond
	v, clock, _ := newTestVerifier(t, f, func(o *Options) {
		o.Introspection = &Introspection{ClientID: "rs", ClientSecret: "rs-secret", MaxConcurrent: 4, MaxWait: time.Millisecond}
	})
	now := clock.now()
	f.introspect = map[string]map[string]any{"known": activeAnswer(f, now, "carol")}
	for i := range 3 {
		f.introspect[fmt.Sprint("new-", i)] = activeAnswer(f, now, "dave")
	}
	if _, err := v.Verify(background(), "known"); err != nil {
		t.Fatal(err)
	}
	clock.add(DefaultIntrospectionTTL) // its answer aged out: asked again on next use
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			if _, err := v.Verify(background(), fmt.Sprint("new-", i)); err != nil {
				t.Errorf("new token %d: %v", i, err)
			}
		})
	}
	for f.introInFlight.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	// The three slots of unseen tokens are taken: one more waits in vain...
	if _, err := v.Verify(background(), "new-3"); !errors.Is(err, ErrIntrospection) {
		t.Errorf("a fourth new token: %v, want ErrIntrospection (no slot within MaxWait)", err)
	}
	// ...but the known token has its own.
	if c, err := v.Verify(background(), "known"); err != nil || c.Principal != "carol" {
		t.Errorf("known token while new ones hold their slots: %+v, %v", c, err)
	}
	wg.Wait()
	if n := f.introspected("known"); n != 2 {
		t.Errorf("the known token was introspected %d times, want 2", n)
	}
	if n := f.introspected("new-3"); n != 0 {
		t.Errorf("the fourth new token was introspected %d times, want 0", n)
	}
}

// Requests carrying the same new token share one introspection.
func TestIntrospectionShared(t *testing.T) {
	f := newFakeAS(t, "")
	f.introDelay = 100 * time.Millisecond
	v, clock, _ := newTestVerifier(t, f, func(o *Options) {
		o.Introspection = &Introspection{ClientID: "rs", ClientSecret: "rs-secret"}
	})
	f.introspect = map[string]map[string]any{"shared": activeAnswer(f, clock.now(), "carol")}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			c, err := v.Verify(background(), "shared")
			if err != nil || c.Principal != "carol" {
				t.Errorf("%+v, %v", c, err)
				return
			}
			c.Grants[0] = "*" // each caller's own copy
		})
	}
	wg.Wait()
	if n := f.introspected("shared"); n != 1 {
		t.Errorf("10 concurrent requests with one token: %d introspections, want 1", n)
	}
	if c, _ := v.Verify(background(), "shared"); c.Grants[0] != "notes.read" {
		t.Errorf("a caller changed the cached grants: %v", c.Grants)
	}
}

// The issuer busy or down: 503 with Retry-After, never 401, and the log
// says the token was not checked; refusals are remembered for InactiveTTL
// only.
func TestIntrospectionUnavailable(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, logs := newTestVerifier(t, f, func(o *Options) {
		o.Introspection = &Introspection{ClientID: "rs", ClientSecret: "rs-secret", Endpoint: f.srv.URL + "/introspect"}
	})
	h := notesHandler(t, v, false)
	f.down.Store(true)
	w := post(h, "/mcp", "some-token", "read")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" ||
		strings.Contains(w.Header().Get("WWW-Authenticate"), "invalid_token") {
		t.Errorf("issuer down: %d, Retry-After %q, WWW-Authenticate %q", w.Code, w.Header().Get("Retry-After"),
			w.Header().Get("WWW-Authenticate"))
	}
	if !strings.Contains(logs.String(), "level=WARN") || strings.Contains(logs.String(), "some-token") {
		t.Errorf("log:\n%s", logs)
	}
	f.down.Store(false)
	if w := post(h, "/mcp", "some-token", "read"); w.Code != http.StatusUnauthorized {
		t.Errorf("issuer up, inactive token: %d", w.Code)
	}
	_ = post(h, "/mcp", "some-token", "read")
	if n := f.introspected("some-token"); n != 1 { // the 503 was not cached; the refusal is
		t.Errorf("%d introspections of the inactive token, want 1", n)
	}
	clock.add(DefaultInactiveTTL)
	_ = post(h, "/mcp", "some-token", "read")
	if n := f.introspected("some-token"); n != 2 {
		t.Errorf("after InactiveTTL: %d introspections, want 2", n)
	}
}
