package oauthmcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Defaults of Options.
const (
	DefaultLeeway             = 30 * time.Second
	DefaultFetchTimeout       = 5 * time.Second
	DefaultMinRefreshInterval = 30 * time.Second
	DefaultKeysRefresh        = 5 * time.Minute
	DefaultKeysExpiry         = time.Hour
	DefaultMaxTokenBytes      = 16 << 10
	DefaultTokenCacheSize     = 10000
)

// DefaultAlgorithms returns the signature algorithms accepted when
// Options.Algorithms is empty, which are also the only ones it may name:
// RSA (PKCS #1 v1.5 and PSS), ECDSA and EdDSA. "none" and the HMAC
// algorithms are never accepted: a resource server holds no shared secret
// with the authorization server, and accepting HS256 keyed with a public
// key is the classic forgery.
func DefaultAlgorithms() []string {
	return []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
}

// Options configure a Verifier. Issuer and Resource are required.
type Options struct {
	// Issuer is the authorization server's issuer identifier, compared
	// exactly with the "iss" claim and with the "issuer" of its metadata
	// (RFC 8414 section 3.3), e.g. "https://login.example.com/". It must
	// be https, or http on a loopback host (for tests).
	Issuer string
	// Resource is this MCP server's resource identifier (RFC 8707, RFC
	// 9728): its canonical URL, e.g. "https://mcp.example.com/mcp". A
	// token is accepted only if its audience ("aud") contains it exactly:
	// a token issued for another service is refused, so tokens cannot be
	// passed through from one server to the next.
	Resource string
	// Scopes maps the token's scopes to the Caller's Grants; see ScopeMap.
	// A scope it does not name grants nothing. New refuses a scope name
	// that is not an RFC 6749 scope-token (ErrScopeName).
	Scopes ScopeMap
	// Algorithms is the allow-list of JWS algorithms; empty means
	// DefaultAlgorithms(). New refuses any other ("none", HS256, ...).
	Algorithms []string
	// TokenTypes are the accepted values of the JWT "typ" header, compared
	// without regard to case. Empty means "at+jwt" and
	// "application/at+jwt", as RFC 9068 section 4 requires; it keeps an
	// ID token or another JWT signed by the same keys from passing as an
	// access token. Authorization servers that label access tokens "JWT"
	// (Ory Hydra, for one) need "JWT" added here; "" accepts tokens
	// without a typ header.
	TokenTypes []string
	// Leeway is the clock skew allowed on "exp", "nbf" and "iat". Zero
	// means DefaultLeeway (30 s); negative means none.
	Leeway time.Duration
	// JWKSURL is the URL of the issuer's JSON Web Key Set. Empty means
	// discovering it: the "jwks_uri" of the authorization server metadata
	// at Issuer (RFC 8414, then OpenID Connect Discovery as a fallback).
	JWKSURL string
	// HTTPClient fetches metadata, keys and introspection answers. Nil
	// means a client of its own that follows no redirects. Every request
	// is bounded by FetchTimeout whatever the client's own timeout.
	HTTPClient *http.Client
	// FetchTimeout bounds each request to the authorization server. Zero
	// means DefaultFetchTimeout (5 s).
	FetchTimeout time.Duration
	// MinRefreshInterval is the least time between two fetches of the key
	// set that a token asks for: a token signed by a key not in the set
	// (an unknown "kid") fetches the set again only if the last fetch is
	// at least this old, so that a flood of made-up key ids costs the
	// authorization server one request per interval. Zero means
	// DefaultMinRefreshInterval (30 s).
	MinRefreshInterval time.Duration
	// KeysRefresh is the age at which the key set is fetched again on its
	// next use (keys removed at the issuer stop being accepted then). Zero
	// means DefaultKeysRefresh (5 min).
	KeysRefresh time.Duration
	// KeysExpiry is how long a fetched key set stays usable when it cannot
	// be fetched again (the authorization server is down): after that,
	// every token is refused until a fetch succeeds. Zero means
	// DefaultKeysExpiry (1 h); it is never shorter than KeysRefresh.
	KeysExpiry time.Duration
	// MaxTokenBytes refuses longer tokens before any parsing. Zero means
	// DefaultMaxTokenBytes (16 KiB).
	MaxTokenBytes int
	// TokenCacheSize bounds the cache of verified JWTs: a client sends the
	// same token with every request, and a token seen before is accepted
	// again, by its SHA-256, without checking its signature anew, for as
	// long as the key set it was checked with is the current one (at most
	// KeysRefresh) and it has not expired; refused tokens are not cached.
	// Zero means DefaultTokenCacheSize (10 000); negative caches nothing.
	TokenCacheSize int
	// Introspection, when set, verifies tokens that are not JWTs (opaque
	// tokens) at the issuer's introspection endpoint (RFC 7662). Nil
	// refuses them.
	Introspection *Introspection
	// Logger receives every refusal at level Info, with its reason and
	// never the token; failures to reach the authorization server at
	// Warn. Nil discards.
	Logger *slog.Logger
}

// A Verifier checks OAuth 2.0 access tokens for one MCP server (one
// resource) and turns them into mcp.Callers: JWT access tokens (RFC 9068)
// against the issuer's keys, and opaque tokens by introspection when
// configured. It is safe for concurrent use; one Verifier per resource
// shares its key cache across requests.
type Verifier struct {
	issuer, resource string
	scopes           ScopeMap
	algs             []jose.SignatureAlgorithm
	types            []string
	leeway           time.Duration
	maxToken         int
	logger           *slog.Logger
	keys             *keyCache
	tokens           *tokenCache // nil when Options.TokenCacheSize < 0
	intro            *introspector
	now              func() time.Time
}

// Errors of verification, for errors.Is. Each refusal wraps one of them;
// all are answered alike (401 invalid_token), and only the log tells them
// apart. A token that could not be checked (ErrIntrospection) is not
// refused: that error wraps mcp.ErrAuthUnavailable (503).
var (
	ErrMalformed       = errors.New("oauthmcp: malformed token")
	ErrTooLarge        = errors.New("oauthmcp: token too large")
	ErrAlgorithm       = errors.New("oauthmcp: signature algorithm not allowed")
	ErrTokenType       = errors.New("oauthmcp: token type not accepted")
	ErrUnknownKey      = errors.New("oauthmcp: token signed by an unknown key")
	ErrSignature       = errors.New("oauthmcp: invalid signature")
	ErrIssuer          = errors.New("oauthmcp: wrong issuer")
	ErrAudience        = errors.New("oauthmcp: token not issued for this resource")
	ErrExpired         = errors.New("oauthmcp: token expired")
	ErrNotYetValid     = errors.New("oauthmcp: token not yet valid")
	ErrMissingClaim    = errors.New("oauthmcp: token lacks a required claim")
	ErrKeysUnavailable = errors.New("oauthmcp: the issuer's signing keys are unavailable")
	ErrInactive        = errors.New("oauthmcp: token inactive")
	ErrOpaque          = errors.New("oauthmcp: opaque token and no introspection configured")
	ErrQueryToken      = errors.New("oauthmcp: access token in the URL query")
)

// New returns a Verifier, or an error naming what in opts is wrong. opts
// may not be nil: Issuer and Resource are required. New fetches nothing:
// metadata and keys are fetched on first use.
func New(opts *Options) (*Verifier, error) {
	if opts == nil {
		return nil, errors.New("oauthmcp: Options are required (Issuer, Resource)")
	}
	if err := checkIssuer(opts.Issuer); err != nil {
		return nil, err
	}
	if opts.Resource == "" {
		return nil, errors.New("oauthmcp: Options.Resource is required (this server's resource URL, the tokens' audience)")
	}
	if err := opts.Scopes.Validate(); err != nil {
		return nil, fmt.Errorf("%w, in Options.Scopes", err)
	}
	allowed := DefaultAlgorithms()
	algs := opts.Algorithms
	if len(algs) == 0 {
		algs = allowed
	}
	v := &Verifier{issuer: opts.Issuer, resource: opts.Resource, scopes: opts.Scopes,
		leeway: opts.Leeway, maxToken: opts.MaxTokenBytes, logger: opts.Logger, now: time.Now}
	for _, a := range algs {
		if !slices.Contains(allowed, a) {
			return nil, fmt.Errorf("oauthmcp: algorithm %q not allowed (allowed: %s)", a, strings.Join(allowed, ", "))
		}
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	v.types = opts.TokenTypes
	if len(v.types) == 0 {
		v.types = []string{"at+jwt", "application/at+jwt"}
	}
	switch {
	case v.leeway == 0:
		v.leeway = DefaultLeeway
	case v.leeway < 0:
		v.leeway = 0
	}
	if v.maxToken <= 0 {
		v.maxToken = DefaultMaxTokenBytes
	}
	if v.logger == nil {
		v.logger = slog.New(slog.DiscardHandler)
	}
	if opts.JWKSURL != "" {
		if err := checkFetchURL(opts.JWKSURL); err != nil {
			return nil, fmt.Errorf("oauthmcp: Options.JWKSURL: %w", err)
		}
	}
	v.keys = newKeyCache(opts, v)
	switch {
	case opts.TokenCacheSize == 0:
		v.tokens = newTokenCache(DefaultTokenCacheSize)
	case opts.TokenCacheSize > 0:
		v.tokens = newTokenCache(opts.TokenCacheSize)
	}
	if opts.Introspection != nil {
		in, err := newIntrospector(opts.Introspection, v)
		if err != nil {
			return nil, err
		}
		v.intro = in
	}
	return v, nil
}

// Authenticator returns an mcp.Authenticator for the Handler: bearer
// tokens in the Authorization header (mcp.BearerAuth) checked by Verify. A
// request that carries an access_token in its URL query is refused as an
// invalid token whatever else it carries (RFC 6750 allows one method per
// request, and URLs end up in logs).
func (v *Verifier) Authenticator() mcp.Authenticator {
	bearer := mcp.BearerAuth(v.Verify)
	return mcp.AuthenticatorFunc(func(r *http.Request) (mcp.Caller, error) {
		if r.URL != nil && strings.Contains(r.URL.RawQuery, "access_token") {
			if _, ok := r.URL.Query()["access_token"]; ok {
				v.refuse(r.Context(), ErrQueryToken, "")
				return mcp.Caller{}, fmt.Errorf("%w: %w: send it in the Authorization header", mcp.ErrInvalidToken, ErrQueryToken)
			}
		}
		return bearer.Authenticate(r)
	})
}

// accessClaims are the claims of an RFC 9068 access token that the
// Verifier reads. Scopes come from "scope" (a space-separated string, RFC
// 9068 and RFC 8693) or, when it is absent, from "scp" (an array or a
// string, as Hydra, Okta and Entra ID issue them).
type accessClaims struct {
	jwt.Claims
	Scope    *string  `json:"scope,omitempty"`
	Scp      scpClaim `json:"scp,omitempty"`
	ClientID string   `json:"client_id,omitempty"`
}

// Verify checks token and returns its Caller: Principal is the token's
// "sub", or ClientPrefix and its "client_id" when it has no subject (see
// ClientPrefix), Grants are what its scopes stand for (Options.Scopes). Any error refuses the token; it is
// logged (never the token) and wraps one of the Err values of this
// package. Verify has the signature mcp.BearerAuth takes.
func (v *Verifier) Verify(ctx context.Context, token string) (mcp.Caller, error) {
	c, kid, err := v.verify(ctx, token)
	if err != nil {
		v.refuse(ctx, err, kid)
		return mcp.Caller{}, err
	}
	return c, nil
}

func (v *Verifier) verify(ctx context.Context, token string) (mcp.Caller, string, error) {
	if len(token) > v.maxToken {
		return mcp.Caller{}, "", fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(token), v.maxToken)
	}
	switch strings.Count(token, ".") {
	case 2:
		if v.tokens != nil {
			if c, ok, err := v.cached(ctx, token); ok {
				return c, "", err
			}
		}
	case 4:
		return mcp.Caller{}, "", fmt.Errorf("%w: encrypted (JWE) tokens are not accepted", ErrMalformed)
	default:
		if v.intro == nil {
			return mcp.Caller{}, "", ErrOpaque
		}
		c, err := v.intro.verify(ctx, token)
		return c, "", err
	}
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		var alg *jose.ErrUnexpectedSignatureAlgorithm
		if errors.As(err, &alg) && alg.Got != "" {
			return mcp.Caller{}, "", fmt.Errorf("%w: %q", ErrAlgorithm, clip(string(alg.Got)))
		}
		return mcp.Caller{}, "", fmt.Errorf("%w: not a signed JWT", ErrMalformed)
	}
	if len(tok.Headers) != 1 {
		return mcp.Caller{}, "", fmt.Errorf("%w: %d signatures", ErrMalformed, len(tok.Headers))
	}
	h := tok.Headers[0]
	kid := clip(h.KeyID)
	typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
	if !v.typeAccepted(typ) {
		return mcp.Caller{}, kid, fmt.Errorf("%w: typ %q (accepted: %s)", ErrTokenType, clip(typ), strings.Join(v.types, ", "))
	}
	alg := jose.SignatureAlgorithm(h.Algorithm)
	var claims accessClaims
	snap, err := v.keys.verify(ctx, tok, h.KeyID, alg, &claims)
	if err != nil {
		return mcp.Caller{}, kid, err
	}
	c, err := v.check(&claims)
	if err == nil && v.tokens != nil {
		v.tokens.put(token, snap, c, claims.Expiry.Time())
	}
	return c, kid, err
}

// check validates the claims of a token whose signature is good.
func (v *Verifier) check(cl *accessClaims) (mcp.Caller, error) {
	if cl.Issuer != v.issuer {
		return mcp.Caller{}, fmt.Errorf("%w: %q, want %q", ErrIssuer, clip(cl.Issuer), v.issuer)
	}
	if !cl.Audience.Contains(v.resource) {
		return mcp.Caller{}, fmt.Errorf("%w: audience %s, want %q", ErrAudience, clipList(cl.Audience), v.resource)
	}
	if cl.Expiry == nil {
		return mcp.Caller{}, fmt.Errorf("%w: exp", ErrMissingClaim)
	}
	now := v.now()
	if err := cl.ValidateWithLeeway(jwt.Expected{Time: now}, v.leeway); err != nil {
		switch {
		case errors.Is(err, jwt.ErrExpired):
			return mcp.Caller{}, fmt.Errorf("%w at %s", ErrExpired, cl.Expiry.Time().UTC().Format(time.RFC3339))
		case errors.Is(err, jwt.ErrNotValidYet):
			return mcp.Caller{}, fmt.Errorf("%w: nbf %s", ErrNotYetValid, cl.NotBefore.Time().UTC().Format(time.RFC3339))
		default: // issued in the future
			return mcp.Caller{}, fmt.Errorf("%w: %v", ErrNotYetValid, err)
		}
	}
	principal, err := principalOf(cl.Subject, cl.ClientID)
	if err != nil {
		return mcp.Caller{}, err
	}
	var scopes []string
	if cl.Scope != nil {
		scopes = strings.Fields(*cl.Scope)
	} else {
		scopes = cl.Scp
	}
	return mcp.Caller{Principal: principal, Grants: v.scopes.Grants(scopes)}, nil
}

func (v *Verifier) typeAccepted(typ string) bool {
	for _, t := range v.types {
		if strings.EqualFold(t, typ) {
			return true
		}
	}
	return false
}

// refuse logs a refusal, or a token that could not be checked: its reason
// and the key id, never the token.
func (v *Verifier) refuse(ctx context.Context, err error, kid string) {
	attrs := []slog.Attr{slog.String("reason", err.Error())}
	if kid != "" {
		attrs = append(attrs, slog.String("kid", kid))
	}
	if errors.Is(err, mcp.ErrAuthUnavailable) {
		v.logger.LogAttrs(ctx, slog.LevelWarn, "oauthmcp: token not checked", attrs...)
		return
	}
	v.logger.LogAttrs(ctx, slog.LevelInfo, "oauthmcp: token refused", attrs...)
}

// ClientPrefix begins the principal of a token that names no subject:
// "client:" and its "client_id". A subject that begins with it, or with
// SubjectPrefix, gets SubjectPrefix in front, so that no subject can ever
// be taken for a client, or a client for a user, and no two tokens with
// different subjects or clients share a principal.
const (
	ClientPrefix  = "client:"
	SubjectPrefix = "sub:"
)

// principalOf names the caller of a token: its subject, or ClientPrefix
// and its client_id when it has none (see ClientPrefix).
func principalOf(sub, clientID string) (string, error) {
	switch {
	case sub == "" && clientID == "":
		return "", fmt.Errorf("%w: sub or client_id", ErrMissingClaim)
	case sub == "":
		return ClientPrefix + clientID, nil
	case strings.HasPrefix(sub, ClientPrefix) || strings.HasPrefix(sub, SubjectPrefix):
		return SubjectPrefix + sub, nil
	}
	return sub, nil
}

// clip bounds a value taken from a token before it goes into an error or
// a log line.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

func clipList(l []string) string {
	if len(l) > 4 {
		l = l[:4]
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = fmt.Sprintf("%q", clip(s))
	}
	return "[" + strings.Join(out, " ") + "]"
}

// checkIssuer accepts https URLs, and http on loopback hosts.
func checkIssuer(iss string) error {
	if iss == "" {
		return errors.New("oauthmcp: Options.Issuer is required (the authorization server's issuer URL)")
	}
	if err := checkFetchURL(iss); err != nil {
		return fmt.Errorf("oauthmcp: Options.Issuer: %w", err)
	}
	return nil
}

// checkFetchURL accepts the URLs the Verifier may fetch: https, or http on
// a loopback host; no query string or fragment in an issuer.
func checkFetchURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL", raw)
	}
	switch {
	case u.Host == "":
		return fmt.Errorf("%q has no host", raw)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%q: must be https (http only on a loopback host)", raw)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
