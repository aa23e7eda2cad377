package oauthmcp

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Bounds of what the Verifier reads from the authorization server.
const (
	maxDocumentBytes = 1 << 20 // a metadata document or a key set
	maxKeys          = 100     // keys kept from one key set
	minRSABits       = 2048
)

// keyCache holds the issuer's signing keys: fetched on first use, fetched
// again when older than refresh (by the request that notices, while the
// others go on with the keys they have), and on a key id it does not know,
// at most once per minInterval. Keys older than expiry are not used.
type keyCache struct {
	v                                     *Verifier
	jwksURL                               string // configured; "" means discovered
	client                                *http.Client
	timeout, minInterval, refresh, expiry time.Duration

	snap atomic.Pointer[keySnap]

	mu        sync.Mutex
	inflight  chan struct{} // non-nil while a fetch runs; closed when it ends
	attempted time.Time     // start of the last fetch
	lastErr   error         // outcome of the last fetch

	meta          *serverMetadata // discovered metadata, kept once valid
	metaAttempted time.Time
	metaErr       error

	fetches atomic.Int64 // key set fetches, for tests and benchmarks
}

// keySnap is one fetched key set.
type keySnap struct {
	keys    []jose.JSONWebKey
	fetched time.Time
}

// serverMetadata is what the Verifier reads of RFC 8414 authorization
// server metadata (or an OpenID Provider Configuration).
type serverMetadata struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

func newKeyCache(o *Options, v *Verifier) *keyCache {
	c := &keyCache{v: v, jwksURL: o.JWKSURL, client: o.HTTPClient, timeout: o.FetchTimeout,
		minInterval: o.MinRefreshInterval, refresh: o.KeysRefresh, expiry: o.KeysExpiry}
	if c.client == nil {
		c.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if c.timeout <= 0 {
		c.timeout = DefaultFetchTimeout
	}
	if c.minInterval <= 0 {
		c.minInterval = DefaultMinRefreshInterval
	}
	if c.refresh <= 0 {
		c.refresh = DefaultKeysRefresh
	}
	if c.expiry <= 0 {
		c.expiry = DefaultKeysExpiry
	}
	c.expiry = max(c.expiry, c.refresh)
	return c
}

// verify checks tok's signature with the key named kid (any key, if kid is
// empty) and decodes its claims into dest.
// It returns the key set the signature was checked with.
func (c *keyCache) verify(ctx context.Context, tok *jwt.JSONWebToken, kid string, alg jose.SignatureAlgorithm, dest *accessClaims) (*keySnap, error) {
	for attempt := 0; ; attempt++ {
		s, err := c.current(ctx)
		if err != nil {
			return nil, err
		}
		if cands := s.candidates(kid, alg); len(cands) > 0 {
			for _, k := range cands {
				err = tok.Claims(k.Key, dest)
				if err == nil {
					return s, nil
				}
			}
			if errors.Is(err, jose.ErrCryptoFailure) {
				return nil, ErrSignature
			}
			return nil, fmt.Errorf("%w: claims are not a JSON object of JWT claims", ErrMalformed)
		}
		if attempt > 0 || !c.refetch(ctx, true) {
			return nil, fmt.Errorf("%w: kid %q, alg %s", ErrUnknownKey, clip(kid), alg)
		}
	}
}

// current returns a usable key set: the cached one, fetched again first if
// it is stale and a fetch is due, or an error when there is none younger
// than expiry.
func (c *keyCache) current(ctx context.Context) (*keySnap, error) {
	now := c.v.now()
	s := c.snap.Load()
	if s != nil && now.Sub(s.fetched) < c.refresh {
		return s, nil
	}
	c.refetch(ctx, s == nil || now.Sub(s.fetched) >= c.expiry)
	if s = c.snap.Load(); s != nil && c.v.now().Sub(s.fetched) < c.expiry {
		return s, nil
	}
	c.mu.Lock()
	err := c.lastErr
	c.mu.Unlock()
	if err == nil {
		err = errors.New("oauthmcp: no fetch due yet")
	}
	return nil, fmt.Errorf("%w: %w", ErrKeysUnavailable, err)
}

// refetch fetches the key set if no fetch started within minInterval,
// or, when wait is set and a fetch is running, waits for it. It reports
// whether a fetch ended meanwhile, so that the key set may have changed.
func (c *keyCache) refetch(ctx context.Context, wait bool) bool {
	c.mu.Lock()
	if ch := c.inflight; ch != nil {
		c.mu.Unlock()
		if !wait {
			return false
		}
		select {
		case <-ch:
			return true
		case <-ctx.Done():
			return false
		}
	}
	now := c.v.now()
	if !c.attempted.IsZero() && now.Sub(c.attempted) < c.minInterval {
		c.mu.Unlock()
		return false
	}
	ch := make(chan struct{})
	c.inflight, c.attempted = ch, now
	c.mu.Unlock()

	keys, err := c.fetch(ctx)
	c.fetches.Add(1)
	c.mu.Lock()
	if err == nil {
		c.snap.Store(&keySnap{keys: keys, fetched: c.v.now()})
	}
	c.lastErr = err
	c.inflight = nil
	close(ch)
	c.mu.Unlock()
	if err != nil {
		c.v.logger.LogAttrs(ctx, slog.LevelWarn, "oauthmcp: fetching the signing keys failed",
			slog.String("issuer", c.v.issuer), slog.String("error", err.Error()))
	} else {
		c.v.logger.LogAttrs(ctx, slog.LevelDebug, "oauthmcp: signing keys fetched",
			slog.String("issuer", c.v.issuer), slog.Int("keys", len(keys)))
	}
	return true
}

// fetch gets and parses the key set, discovering its URL if need be. It
// runs under its own deadline, not the request's: the keys serve every
// request, and a client that hangs up must not abort their fetch.
func (c *keyCache) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
	defer cancel()
	u := c.jwksURL
	if u == "" {
		md, err := c.metadata(ctx)
		if err != nil {
			return nil, err
		}
		u = md.JWKSURI
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := getJSON(ctx, c.client, u, &set); err != nil {
		return nil, fmt.Errorf("key set: %w", err)
	}
	keys, skipped := parseKeys(set.Keys, c.v.algs)
	if len(keys) == 0 {
		return nil, fmt.Errorf("key set %s: no usable signing key (%d skipped)", u, skipped)
	}
	return keys, nil
}

// metadata returns the issuer's metadata, discovered once: RFC 8414 at
// /.well-known/oauth-authorization-server, then OpenID Connect Discovery at
// /.well-known/openid-configuration. Its "issuer" must equal the configured
// one (RFC 8414 section 3.3). A failed discovery is tried again after
// minInterval.
func (c *keyCache) metadata(ctx context.Context) (*serverMetadata, error) {
	c.mu.Lock()
	if c.meta != nil {
		md := c.meta
		c.mu.Unlock()
		return md, nil
	}
	now := c.v.now()
	if !c.metaAttempted.IsZero() && now.Sub(c.metaAttempted) < c.minInterval && c.metaErr != nil {
		err := c.metaErr
		c.mu.Unlock()
		return nil, err
	}
	c.metaAttempted = now
	c.mu.Unlock()

	md, err := c.discover(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.metaErr = err
	if err != nil {
		return nil, err
	}
	c.meta = md
	return md, nil
}

func (c *keyCache) discover(ctx context.Context) (*serverMetadata, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
	defer cancel()
	var errs []error
	for _, u := range discoveryURLs(c.v.issuer) {
		var md serverMetadata
		if err := getJSON(ctx, c.client, u, &md); err != nil {
			errs = append(errs, err)
			continue
		}
		if md.Issuer != c.v.issuer {
			errs = append(errs, fmt.Errorf("%s names issuer %q, want %q", u, clip(md.Issuer), c.v.issuer))
			continue
		}
		if md.JWKSURI == "" && c.jwksURL == "" {
			errs = append(errs, fmt.Errorf("%s has no jwks_uri", u))
			continue
		}
		if md.JWKSURI != "" {
			if err := checkFetchURL(md.JWKSURI); err != nil {
				errs = append(errs, fmt.Errorf("%s: jwks_uri %w", u, err))
				continue
			}
		}
		return &md, nil
	}
	return nil, fmt.Errorf("authorization server metadata: %w", errors.Join(errs...))
}

// discoveryURLs are where the metadata of issuer may be: RFC 8414 section
// 3.1 inserts the well-known path between host and path; OpenID Connect
// Discovery appends it.
func discoveryURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	path := strings.TrimSuffix(u.Path, "/")
	rfc := *u
	rfc.Path, rfc.RawPath = "/.well-known/oauth-authorization-server"+path, ""
	oidc := *u
	oidc.Path, oidc.RawPath = path+"/.well-known/openid-configuration", ""
	return []string{rfc.String(), oidc.String()}
}

// getJSON GETs u and decodes its JSON body, of at most maxDocumentBytes,
// into dest. Only 200 answers are accepted; redirects are not followed by
// the default client.
func getJSON(ctx context.Context, client *http.Client, u string, dest any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err // names the URL
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDocumentBytes))
		return fmt.Errorf("%s: status %d", u, resp.StatusCode)
	}
	return decodeJSON(u, resp.Body, dest)
}

func decodeJSON(u string, r io.Reader, dest any) error {
	body, err := io.ReadAll(io.LimitReader(r, maxDocumentBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	if len(body) > maxDocumentBytes {
		return fmt.Errorf("%s: answer larger than %d bytes", u, maxDocumentBytes)
	}
	if err := json.Unmarshal(body, dest); err != nil {
		return fmt.Errorf("%s: not a JSON object of the expected form: %w", u, err)
	}
	return nil
}

// parseKeys keeps the keys of a key set that can verify a signature under
// one of algs: public, asymmetric, for signing, RSA of at least 2048 bits.
// A key it cannot parse is skipped, not fatal: one odd key must not lock
// every client out.
func parseKeys(raw []json.RawMessage, algs []jose.SignatureAlgorithm) (keys []jose.JSONWebKey, skipped int) {
	for _, r := range raw {
		var k jose.JSONWebKey
		if len(keys) == maxKeys || k.UnmarshalJSON(r) != nil || !k.Valid() || (k.Use != "" && k.Use != "sig") {
			skipped++
			continue
		}
		if !k.IsPublic() {
			k = k.Public() // a private key published by mistake: use its public half only
		}
		if k.Algorithm != "" && !slices.Contains(algs, jose.SignatureAlgorithm(k.Algorithm)) {
			skipped++
			continue
		}
		switch pub := k.Key.(type) {
		case *rsa.PublicKey:
			if pub.N.BitLen() < minRSABits {
				skipped++
				continue
			}
		case *ecdsa.PublicKey, ed25519.PublicKey:
		default: // symmetric ("oct") and anything else
			skipped++
			continue
		}
		keys = append(keys, k)
	}
	return keys, skipped
}

// candidates are the keys that may have signed a token with this kid
// (every key, for a token without one) and alg: the key's own "alg", when
// it has one, must be alg, and its type must suit alg.
func (s *keySnap) candidates(kid string, alg jose.SignatureAlgorithm) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range s.keys {
		if (kid == "" || k.KeyID == kid) && (k.Algorithm == "" || k.Algorithm == string(alg)) && keySuits(k.Key, alg) {
			out = append(out, k)
		}
	}
	return out
}

// keySuits reports whether key's type is the one alg signs with, so that a
// key is never used under an algorithm of another family.
func keySuits(key any, alg jose.SignatureAlgorithm) bool {
	switch pub := key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(string(alg), "RS") || strings.HasPrefix(string(alg), "PS")
	case *ecdsa.PublicKey:
		switch alg {
		case jose.ES256:
			return pub.Curve == elliptic.P256()
		case jose.ES384:
			return pub.Curve == elliptic.P384()
		case jose.ES512:
			return pub.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == jose.EdDSA
	}
	return false
}
