package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// An Authenticator turns an HTTP request into the Caller the Protocol
// serves: who is calling, with which grants, for which server. The Handler
// asks it once per request, before reading the body.
//
// Any error refuses the request with 401 Unauthorized. Return
// ErrUnauthenticated (or an error wrapping it) when the request carries no
// credentials, ErrInvalidToken when it carries credentials that are
// rejected, and ErrAuthUnavailable when the credentials cannot be checked
// for now (the Handler answers 503 with Retry-After, not 401); other errors
// are logged as authentication failures and answered like
// ErrUnauthenticated. Implementations must be safe for concurrent use.
type Authenticator interface {
	Authenticate(r *http.Request) (Caller, error)
}

// AuthenticatorFunc adapts a function to the Authenticator interface.
type AuthenticatorFunc func(r *http.Request) (Caller, error)

// Authenticate calls f.
func (f AuthenticatorFunc) Authenticate(r *http.Request) (Caller, error) { return f(r) }

// Errors of authentication, for errors.Is.
var (
	// ErrUnauthenticated: the request carries no acceptable credentials.
	ErrUnauthenticated = errors.New("mcp: unauthenticated")
	// ErrInvalidToken: the request carries a token that was rejected
	// (unknown, expired, malformed). It matches ErrUnauthenticated too.
	ErrInvalidToken = fmt.Errorf("%w: invalid token", ErrUnauthenticated)
	// ErrAuthUnavailable: the credentials could not be checked for now
	// (the authorization server is busy, slow or unreachable). It is a
	// condition of the server, not of the token: the Handler answers 503
	// with Retry-After, never 401, so that the client keeps its token and
	// retries instead of authorizing again. It does not match
	// ErrUnauthenticated.
	ErrAuthUnavailable = errors.New("mcp: authentication unavailable")
)

// Anonymous returns an Authenticator that admits every request as c. It is
// meant for servers bound to loopback during development, and for stdio-like
// setups where the host has already decided who the caller is.
func Anonymous(c Caller) Authenticator {
	return AuthenticatorFunc(func(*http.Request) (Caller, error) { return c, nil })
}

// BearerAuth returns an Authenticator for OAuth 2.0 bearer tokens (RFC 6750)
// sent in the Authorization header; tokens in the URL query are never read.
// verify checks a token and returns its Caller. Every error verify returns
// refuses the request as an invalid token (it fails closed), except one
// wrapping ErrAuthUnavailable, which stays that (503, the token kept); the
// error is logged with the token's text removed.
func BearerAuth(verify func(ctx context.Context, token string) (Caller, error)) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (Caller, error) {
		tok, err := bearerToken(r)
		if err != nil {
			return Caller{}, err
		}
		if verify == nil {
			return Caller{}, ErrInvalidToken
		}
		c, err := verify(r.Context(), tok)
		if err != nil {
			return Caller{}, &tokenError{err: err, token: tok}
		}
		return c, nil
	})
}

// bearerToken extracts the token of "Authorization: Bearer <token>".
func bearerToken(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", ErrUnauthenticated
	}
	scheme, tok, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", fmt.Errorf("%w: authorization scheme is not Bearer", ErrUnauthenticated)
	}
	tok = strings.TrimSpace(tok)
	if tok == "" || strings.ContainsAny(tok, " \t") {
		return "", fmt.Errorf("%w: malformed bearer credentials", ErrInvalidToken)
	}
	return tok, nil
}

// tokenError is a verifier's error: it is an invalid token (unless the
// verifier said it could not check it, ErrAuthUnavailable), and its text
// never contains the token, whatever the verifier wrote.
type tokenError struct {
	err   error
	token string
}

func (e *tokenError) Error() string {
	msg := e.err.Error()
	if len(e.token) > 0 {
		msg = strings.ReplaceAll(msg, e.token, "[redacted]")
	}
	if errors.Is(e.err, ErrAuthUnavailable) {
		return msg
	}
	return ErrInvalidToken.Error() + ": " + msg
}

func (e *tokenError) Unwrap() []error {
	if errors.Is(e.err, ErrAuthUnavailable) {
		return []error{e.err}
	}
	return []error{ErrInvalidToken, e.err}
}

// StaticTokens returns a bearer-token Authenticator with a fixed table of
// tokens and their callers, for tests, examples and small deployments.
// Tokens are compared in constant time; the table is copied.
func StaticTokens(tokens map[string]Caller) Authenticator {
	type entry struct {
		sum    [sha256.Size]byte
		caller Caller
	}
	entries := make([]entry, 0, len(tokens))
	for tok, c := range tokens {
		if tok == "" {
			continue
		}
		entries = append(entries, entry{sha256.Sum256([]byte(tok)), c})
	}
	return BearerAuth(func(_ context.Context, token string) (Caller, error) {
		sum := sha256.Sum256([]byte(token))
		found := -1
		for i := range entries {
			// Visit every entry, so the time taken says nothing about
			// which token matched, if any.
			if subtle.ConstantTimeCompare(sum[:], entries[i].sum[:]) == 1 {
				found = i
			}
		}
		if found < 0 {
			return Caller{}, errors.New("mcp: unknown token")
		}
		return entries[found].caller, nil
	})
}

// ResourceMetadata is OAuth 2.0 Protected Resource Metadata (RFC 9728): what
// an MCP client reads to find the authorization server that issues tokens
// for this server.
type ResourceMetadata struct {
	// Resource is the resource identifier: the MCP endpoint's URL, e.g.
	// "https://api.example.com/mcp". Required.
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer URLs of the authorization servers
	// whose tokens are accepted.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// ScopesSupported are the scopes clients may request.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported are the ways a token may be sent. Default
	// ["header"], the only one the Handler reads.
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name of the resource.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is a URL of documentation for developers.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
}

// ProtectedResourceMetadata returns an http.Handler serving md as RFC 9728
// metadata. Mount it at "/.well-known/oauth-protected-resource" (or that
// path followed by the MCP endpoint's path) and set the same URL in
// HandlerOptions.ResourceMetadataURL, so that 401 answers point to it. It
// answers GET and HEAD, with CORS open to every origin, since the document
// is public.
func ProtectedResourceMetadata(md ResourceMetadata) http.Handler {
	if len(md.BearerMethodsSupported) == 0 {
		md.BearerMethodsSupported = []string{"header"}
	}
	body, err := json.Marshal(md)
	if err != nil { // cannot happen: strings and string slices only
		body = []byte("{}")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "max-age=3600")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}

// wwwAuthenticate builds the WWW-Authenticate challenge of a 401 answer.
func wwwAuthenticate(err error, metadataURL, scope string) string {
	b := make([]byte, 0, 96)
	b = append(b, `Bearer realm="mcp"`...)
	if errors.Is(err, ErrInvalidToken) {
		b = append(b, `, error="invalid_token"`...)
	}
	if scope != "" {
		b = append(b, `, scope=`...)
		b = appendQuoted(b, scope)
	}
	return string(appendMetadataURL(b, metadataURL))
}
