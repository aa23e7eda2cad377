package oauthmcp

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
)

// tokenCache remembers the JWTs a Verifier accepted, by their SHA-256
// (never the token), with the key set that verified them and their expiry.
// Only tokens with a good signature enter it; when it is full, the least
// recently used one leaves (O(1)).
type tokenCache struct {
	mu sync.Mutex
	m  *lru[tokenEntry]
}

type tokenEntry struct {
	snap   *keySnap // the key set the signature was checked with
	caller mcp.Caller
	exp    time.Time
}

func newTokenCache(size int) *tokenCache {
	return &tokenCache{m: newLRU[tokenEntry](size)}
}

// cached answers a token accepted before, if the key set that verified it
// is still the current one: ok reports whether the cache decided. An
// expired token is refused here as it would be by a full check.
func (v *Verifier) cached(ctx context.Context, token string) (c mcp.Caller, ok bool, err error) {
	sum := sha256.Sum256([]byte(token))
	v.tokens.mu.Lock()
	e, found := v.tokens.m.get(sum)
	v.tokens.mu.Unlock()
	if !found {
		return mcp.Caller{}, false, nil
	}
	s, err := v.keys.current(ctx) // fetches a stale key set first, as a full check would
	if err != nil || s != e.snap {
		v.tokens.mu.Lock()
		v.tokens.m.remove(sum)
		v.tokens.mu.Unlock()
		return mcp.Caller{}, false, nil // decided by a full check
	}
	if v.now().Add(-v.leeway).After(e.exp) {
		v.tokens.mu.Lock()
		v.tokens.m.remove(sum)
		v.tokens.mu.Unlock()
		return mcp.Caller{}, true, fmt.Errorf("%w at %s", ErrExpired, e.exp.UTC().Format(time.RFC3339))
	}
	c = e.caller
	c.Grants = slices.Clone(c.Grants) // the caller's copy: the cache's stays as verified
	return c, true, nil
}

// put remembers an accepted token, making room by dropping the least
// recently used one.
func (tc *tokenCache) put(token string, snap *keySnap, c mcp.Caller, exp time.Time) {
	sum := sha256.Sum256([]byte(token))
	c.Grants = slices.Clone(c.Grants)
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.m.put(sum, tokenEntry{snap: snap, caller: c, exp: exp})
}
