package oauthmcp

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Defaults of Introspection.
const (
	DefaultIntrospectionTTL = time.Minute
	DefaultInactiveTTL      = 10 * time.Second
	DefaultMaxCacheEntries  = 10000
	DefaultMaxInactive      = 1000
	DefaultMaxConcurrent    = 8
	DefaultMaxWait          = 2 * time.Second
)

// ErrIntrospection: the introspection endpoint could not be asked in time,
// or gave no usable answer. The token is not accepted, but not refused
// either: the error wraps mcp.ErrAuthUnavailable, which the Handler answers
// 503 with Retry-After, so that the client keeps its token and retries
// instead of authorizing again.
var ErrIntrospection = fmt.Errorf("oauthmcp: introspection failed: %w", mcp.ErrAuthUnavailable)

// Introspection configures the verification of opaque (non-JWT) access
// tokens at the issuer's token introspection endpoint (RFC 7662).
//
// Answers are cached by the token's SHA-256 (never the token itself), in
// two caches: active answers until CacheTTL or the token's expiry,
// whichever comes first, and refusals (inactive or unacceptable tokens)
// for InactiveTTL, in a cache of their own, so that made-up tokens, however
// many, never push out a token known to be good. A revocation at the
// issuer is seen within CacheTTL.
//
// At most MaxConcurrent requests are in flight at the endpoint; a token
// that finds them all taken waits for one, up to MaxWait and no longer than
// its request's context, then gets ErrIntrospection (503, Retry-After),
// never a refusal. A quarter of the slots (one at least, with two or more)
// is kept for tokens answered active before whose answer has aged out, so
// that the clients already known keep flowing while tokens never seen
// before queue for the rest. Requests carrying the same token share one
// introspection.
type Introspection struct {
	// Endpoint is the introspection endpoint. Empty means the
	// "introspection_endpoint" of the issuer's metadata.
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server to the
	// endpoint with HTTP Basic (client_secret_basic). Empty sends none.
	ClientID, ClientSecret string
	// CacheTTL is how long an active answer is kept. Zero means
	// DefaultIntrospectionTTL (1 min); negative caches nothing.
	CacheTTL time.Duration
	// InactiveTTL is how long a refusal is kept. Zero means
	// DefaultInactiveTTL (10 s); it is never longer than CacheTTL, and a
	// negative value, or a negative CacheTTL, caches none.
	InactiveTTL time.Duration
	// MaxCacheEntries bounds the cache of active answers: only tokens the
	// issuer called active and that passed every check enter it, and when
	// it is full the least recently used leaves. Zero means
	// DefaultMaxCacheEntries (10 000).
	MaxCacheEntries int
	// MaxInactive bounds the cache of refusals, the least recently used
	// leaving first. Zero means DefaultMaxInactive (1 000).
	MaxInactive int
	// MaxConcurrent bounds the introspection requests in flight, so that a
	// flood of made-up tokens cannot pile up on the issuer: whatever the
	// flood, it never has more than MaxConcurrent of this Verifier's
	// requests at a time. Zero means DefaultMaxConcurrent (8).
	MaxConcurrent int
	// MaxWait bounds the wait for a free slot. Zero means DefaultMaxWait
	// (2 s); negative waits not at all.
	MaxWait time.Duration
}

type introspector struct {
	v      *Verifier
	o      Introspection
	client *http.Client
	slots  chan struct{} // every introspection in flight
	unseen chan struct{} // those of tokens not known active

	mu       sync.Mutex
	active   *lru[introEntry]     // tokens answered active and accepted
	inactive *lru[introEntry]     // refusals
	flights  map[tokenKey]*flight // introspections in flight, by token
}

type introEntry struct {
	caller  mcp.Caller
	err     error     // the refusal, for an inactive or unacceptable token
	expires time.Time // asked again from then on
	exp     time.Time // the token's own expiry, if the issuer named one
}

// flight is one introspection that requests with the same token wait for.
type flight struct {
	done   chan struct{} // closed when caller and err are set
	caller mcp.Caller
	err    error
}

func newIntrospector(o *Introspection, v *Verifier) (*introspector, error) {
	in := &introspector{v: v, o: *o, client: v.keys.client, flights: make(map[tokenKey]*flight)}
	if in.o.Endpoint != "" {
		if err := checkFetchURL(in.o.Endpoint); err != nil {
			return nil, fmt.Errorf("oauthmcp: Introspection.Endpoint: %w", err)
		}
	}
	if in.o.CacheTTL == 0 {
		in.o.CacheTTL = DefaultIntrospectionTTL
	}
	switch {
	case in.o.InactiveTTL == 0:
		in.o.InactiveTTL = DefaultInactiveTTL
	case in.o.InactiveTTL < 0:
		in.o.InactiveTTL = 0
	}
	in.o.InactiveTTL = min(in.o.InactiveTTL, in.o.CacheTTL)
	if in.o.MaxCacheEntries <= 0 {
		in.o.MaxCacheEntries = DefaultMaxCacheEntries
	}
	if in.o.MaxInactive <= 0 {
		in.o.MaxInactive = DefaultMaxInactive
	}
	if in.o.MaxConcurrent <= 0 {
		in.o.MaxConcurrent = DefaultMaxConcurrent
	}
	switch {
	case in.o.MaxWait == 0:
		in.o.MaxWait = DefaultMaxWait
	case in.o.MaxWait < 0:
		in.o.MaxWait = 0
	}
	in.slots = make(chan struct{}, in.o.MaxConcurrent)
	keep := reserved(in.o.MaxConcurrent)
	if in.o.CacheTTL < 0 {
		keep = 0 // no answer is kept, so no token is ever known
	}
	in.unseen = make(chan struct{}, in.o.MaxConcurrent-keep)
	in.active = newLRU[introEntry](in.o.MaxCacheEntries)
	in.inactive = newLRU[introEntry](in.o.MaxInactive)
	return in, nil
}

// reserved is how many of n slots tokens never answered active cannot
// take: a quarter, at least one when there are two or more.
func reserved(n int) int {
	if n < 2 {
		return 0
	}
	return max(1, n/4)
}

// introspectionAnswer is the part of an RFC 7662 answer the Verifier reads.
type introspectionAnswer struct {
	Active    bool             `json:"active"`
	Scope     string           `json:"scope"`
	ClientID  string           `json:"client_id"`
	Subject   string           `json:"sub"`
	Issuer    string           `json:"iss"`
	Audience  jwt.Audience     `json:"aud"`
	Expiry    *jwt.NumericDate `json:"exp"`
	NotBefore *jwt.NumericDate `json:"nbf"`
}

func (in *introspector) verify(ctx context.Context, token string) (mcp.Caller, error) {
	key := sha256.Sum256([]byte(token))
	now := in.v.now()
	in.mu.Lock()
	known := false
	if e, ok := in.active.get(key); ok {
		switch {
		case now.Before(e.expires):
			in.mu.Unlock()
			c := e.caller
			c.Grants = slices.Clone(c.Grants) // the caller's copy: the cache's stays as checked
			return c, nil
		case e.exp.IsZero() || now.Before(e.exp):
			known = true // asked again, with the slots kept for known tokens
		default:
			in.active.remove(key) // the token itself expired
		}
	} else if e, ok := in.inactive.get(key); ok {
		if now.Before(e.expires) {
			in.mu.Unlock()
			return mcp.Caller{}, e.err
		}
		in.inactive.remove(key)
	}
	if f, ok := in.flights[key]; ok {
		in.mu.Unlock()
		select {
		case <-f.done:
			c := f.caller
			c.Grants = slices.Clone(c.Grants)
			return c, f.err
		case <-ctx.Done():
			return mcp.Caller{}, fmt.Errorf("%w: %w while the same token was being introspected", ErrIntrospection, ctx.Err())
		}
	}
	f := &flight{done: make(chan struct{})}
	in.flights[key] = f
	in.mu.Unlock()

	c, err := in.introspect(ctx, key, token, known)
	f.caller, f.err = c, err
	in.mu.Lock()
	delete(in.flights, key)
	in.mu.Unlock()
	close(f.done)
	c.Grants = slices.Clone(c.Grants)
	return c, err
}

// introspect asks the endpoint about token once it holds a slot, and
// caches the answer.
func (in *introspector) introspect(ctx context.Context, key tokenKey, token string, known bool) (mcp.Caller, error) {
	release, err := in.acquire(ctx, known)
	if err != nil {
		return mcp.Caller{}, err
	}
	ans, err := in.ask(ctx, token)
	release()
	if err != nil {
		return mcp.Caller{}, fmt.Errorf("%w: %w", ErrIntrospection, err)
	}
	c, err := in.check(ans)
	now := in.v.now()
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case err == nil && in.o.CacheTTL > 0:
		e := introEntry{caller: c, expires: now.Add(in.o.CacheTTL)}
		if ans.Expiry != nil {
			e.exp = ans.Expiry.Time()
			if e.exp.Before(e.expires) {
				e.expires = e.exp
			}
		}
		in.inactive.remove(key)
		in.active.put(key, e)
	case err != nil:
		in.active.remove(key) // revoked, or no longer acceptable
		if in.o.InactiveTTL > 0 {
			in.inactive.put(key, introEntry{err: err, expires: now.Add(in.o.InactiveTTL)})
		}
	}
	return c, err
}

// acquire takes a slot, and for a token not known active one of the
// slots such tokens may use first, waiting up to MaxWait and no longer
// than ctx allows. release gives them back.
func (in *introspector) acquire(ctx context.Context, known bool) (release func(), err error) {
	var timer *time.Timer // started on the first wait, for both
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	wait := func(ch chan struct{}) error {
		select {
		case ch <- struct{}{}:
			return nil
		default:
		}
		if timer == nil {
			timer = time.NewTimer(in.o.MaxWait)
		}
		select {
		case ch <- struct{}{}:
			return nil
		case <-timer.C:
			return fmt.Errorf("%w: no free introspection slot within %s (%d in flight, Introspection.MaxConcurrent)",
				ErrIntrospection, in.o.MaxWait, cap(in.slots))
		case <-ctx.Done():
			return fmt.Errorf("%w: %w while waiting for an introspection slot", ErrIntrospection, ctx.Err())
		}
	}
	if !known {
		if err := wait(in.unseen); err != nil {
			return nil, err
		}
	}
	if err := wait(in.slots); err != nil {
		if !known {
			<-in.unseen
		}
		return nil, err
	}
	return func() {
		<-in.slots
		if !known {
			<-in.unseen
		}
	}, nil
}

// check applies the checks of a JWT to an introspection answer.
func (in *introspector) check(a *introspectionAnswer) (mcp.Caller, error) {
	v := in.v
	if !a.Active {
		return mcp.Caller{}, ErrInactive
	}
	if a.Issuer != "" && a.Issuer != v.issuer {
		return mcp.Caller{}, fmt.Errorf("%w: %q, want %q", ErrIssuer, clip(a.Issuer), v.issuer)
	}
	if !a.Audience.Contains(v.resource) {
		return mcp.Caller{}, fmt.Errorf("%w: audience %s, want %q", ErrAudience, clipList(a.Audience), v.resource)
	}
	now := v.now()
	if a.Expiry != nil && now.Add(-v.leeway).After(a.Expiry.Time()) {
		return mcp.Caller{}, fmt.Errorf("%w at %s", ErrExpired, a.Expiry.Time().UTC().Format(time.RFC3339))
	}
	if a.NotBefore != nil && now.Add(v.leeway).Before(a.NotBefore.Time()) {
		return mcp.Caller{}, fmt.Errorf("%w: nbf %s", ErrNotYetValid, a.NotBefore.Time().UTC().Format(time.RFC3339))
	}
	principal, err := principalOf(a.Subject, a.ClientID)
	if err != nil {
		return mcp.Caller{}, err
	}
	return mcp.Caller{Principal: principal, Grants: v.scopes.Grants(strings.Fields(a.Scope))}, nil
}

// ask posts the token to the endpoint, under FetchTimeout.
func (in *introspector) ask(ctx context.Context, token string) (*introspectionAnswer, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), in.v.keys.timeout)
	defer cancel()
	endpoint := in.o.Endpoint
	if endpoint == "" {
		md, err := in.v.keys.metadata(ctx)
		if err != nil {
			return nil, err
		}
		if md.IntrospectionEndpoint == "" {
			return nil, errors.New("oauthmcp: the issuer's metadata names no introspection_endpoint")
		}
		if err := checkFetchURL(md.IntrospectionEndpoint); err != nil {
			return nil, fmt.Errorf("introspection_endpoint %w", err)
		}
		endpoint = md.IntrospectionEndpoint
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if in.o.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(in.o.ClientID), url.QueryEscape(in.o.ClientSecret))
	}
	resp, err := in.client.Do(req)
	if err != nil {
		// The error names the endpoint; the form (and so the token) is
		// not part of it.
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDocumentBytes))
		return nil, fmt.Errorf("%s: status %d", endpoint, resp.StatusCode)
	}
	var a introspectionAnswer
	if err := decodeJSON(endpoint, resp.Body, &a); err != nil {
		return nil, err
	}
	return &a, nil
}
