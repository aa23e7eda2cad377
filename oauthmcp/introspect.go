package oauthmcp

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Defaults of Introspection.
const (
	DefaultIntrospectionTTL = time.Minute
	DefaultMaxCacheEntries  = 10000
	DefaultMaxConcurrent    = 8
)

// ErrIntrospection: the introspection endpoint could not be asked, or gave
// no usable answer; the token is refused (fails closed).
var ErrIntrospection = errors.New("oauthmcp: introspection failed")

// Introspection configures the verification of opaque (non-JWT) access
// tokens at the issuer's token introspection endpoint (RFC 7662). Answers
// are cached by the token's SHA-256 (never the token itself), active ones
// until CacheTTL or the token's expiry, whichever comes first, inactive
// ones for CacheTTL; a revocation at the issuer is seen within CacheTTL.
type Introspection struct {
	// Endpoint is the introspection endpoint. Empty means the
	// "introspection_endpoint" of the issuer's metadata.
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server to the
	// endpoint with HTTP Basic (client_secret_basic). Empty sends none.
	ClientID, ClientSecret string
	// CacheTTL is how long an answer is kept. Zero means
	// DefaultIntrospectionTTL (1 min); negative caches nothing.
	CacheTTL time.Duration
	// MaxCacheEntries bounds the cache. Zero means DefaultMaxCacheEntries.
	MaxCacheEntries int
	// MaxConcurrent bounds the introspection requests in flight; a token
	// that would be one more is refused at once, so that a flood of made-up
	// tokens cannot queue up on the issuer. Zero means
	// DefaultMaxConcurrent (8).
	MaxConcurrent int
}

type introspector struct {
	v      *Verifier
	o      Introspection
	client *http.Client
	sem    chan struct{}

	mu    sync.Mutex
	cache map[[sha256.Size]byte]introEntry

	requests int // introspection requests sent, for tests (under mu)
}

type introEntry struct {
	caller  mcp.Caller
	err     error // the refusal, for an inactive or unacceptable token
	expires time.Time
}

func newIntrospector(o *Introspection, v *Verifier) (*introspector, error) {
	in := &introspector{v: v, o: *o, client: v.keys.client, cache: make(map[[sha256.Size]byte]introEntry)}
	if in.o.Endpoint != "" {
		if err := checkFetchURL(in.o.Endpoint); err != nil {
			return nil, fmt.Errorf("oauthmcp: Introspection.Endpoint: %w", err)
		}
	}
	if in.o.CacheTTL == 0 {
		in.o.CacheTTL = DefaultIntrospectionTTL
	}
	if in.o.MaxCacheEntries <= 0 {
		in.o.MaxCacheEntries = DefaultMaxCacheEntries
	}
	if in.o.MaxConcurrent <= 0 {
		in.o.MaxConcurrent = DefaultMaxConcurrent
	}
	in.sem = make(chan struct{}, in.o.MaxConcurrent)
	return in, nil
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
	if e, ok := in.cache[key]; ok && now.Before(e.expires) {
		in.mu.Unlock()
		return e.caller, e.err
	}
	in.mu.Unlock()

	select {
	case in.sem <- struct{}{}:
	default:
		return mcp.Caller{}, fmt.Errorf("%w: %d introspection requests already in flight", ErrIntrospection, cap(in.sem))
	}
	ans, err := in.ask(ctx, token)
	<-in.sem
	if err != nil {
		return mcp.Caller{}, fmt.Errorf("%w: %w", ErrIntrospection, err)
	}
	c, err := in.check(ans)
	expires := in.v.now().Add(in.o.CacheTTL)
	if err == nil && ans.Expiry != nil && ans.Expiry.Time().Before(expires) {
		expires = ans.Expiry.Time()
	}
	if in.o.CacheTTL > 0 {
		in.store(key, introEntry{caller: c, err: err, expires: expires})
	}
	return c, err
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
	principal := a.Subject
	if principal == "" {
		principal = a.ClientID
	}
	if principal == "" {
		return mcp.Caller{}, fmt.Errorf("%w: sub or client_id", ErrMissingClaim)
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
	in.mu.Lock()
	in.requests++
	in.mu.Unlock()
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

// store caches an entry, evicting expired entries (or, when none has
// expired, an arbitrary one) when the cache is full.
func (in *introspector) store(key [sha256.Size]byte, e introEntry) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.cache) >= in.o.MaxCacheEntries {
		now := in.v.now()
		for k, old := range in.cache {
			if !now.Before(old.expires) {
				delete(in.cache, k)
			}
		}
		for k := range in.cache {
			if len(in.cache) < in.o.MaxCacheEntries {
				break
			}
			delete(in.cache, k)
		}
	}
	in.cache[key] = e
}
