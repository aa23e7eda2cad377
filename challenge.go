package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// A ScopeChallenge names the OAuth scopes a token needs to carry for caller
// to hold permission: the scopes the client must ask its authorization
// server for before it retries. It returns nil when no scope would do (the
// permission is one no token can earn), and the request is then refused as
// if the tool did not exist. It must be safe for concurrent use.
//
// The mapping it applies must be the inverse of the one that turns a
// token's scopes into Caller.Grants: a token carrying the scopes it names
// must earn a grant that covers permission. oauthmcp.ScopeMap.Challenge is
// such a function, for the scope-to-grants mapping of oauthmcp.ScopeMap.
type ScopeChallenge func(ctx context.Context, caller Caller, permission string) []string

// scopeNeeds collects the permissions the Server refused while a request
// ran, for the Handler's insufficient_scope challenge. The Handler puts one
// in the request's context only when HandlerOptions.ScopeChallenge is set.
type scopeNeeds struct {
	mu    sync.Mutex
	perms []string
}

type scopeNeedsKey struct{}

// noteDenied records that a tools/call was refused for want of permission,
// when the request's Handler challenges for scopes. The Server calls it
// where it refuses a call; it costs nothing otherwise.
func noteDenied(ctx context.Context, permission string) {
	n, ok := ctx.Value(scopeNeedsKey{}).(*scopeNeeds)
	if !ok {
		return
	}
	n.mu.Lock()
	if !slices.Contains(n.perms, permission) {
		n.perms = append(n.perms, permission)
	}
	n.mu.Unlock()
}

// challenge answers 403 with a WWW-Authenticate insufficient_scope
// challenge, in place of the Protocol's answer, when the request was one
// JSON-RPC message (not a batch, whose other answers would be lost), the
// Server refused it for want of a permission, h.challenge names scopes for
// every such permission, and nothing has been streamed yet. It reports
// whether it answered.
func (h *Handler) challenge(w http.ResponseWriter, r *http.Request, n *scopeNeeds, caller Caller, body []byte, st *stream) bool {
	n.mu.Lock()
	perms := slices.Clone(n.perms)
	n.mu.Unlock()
	if len(perms) == 0 || bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("[")) {
		return false
	}
	var scopes []string
	for _, p := range perms {
		s := challengeScopes(r.Context(), h.scopeChallenge, caller, p)
		if len(s) == 0 {
			return false // no token could earn p: the tool stays unknown
		}
		for _, sc := range s {
			if validScopeToken(sc) && !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
	}
	if len(scopes) == 0 {
		return false
	}
	st.mu.Lock()
	if st.started || st.done { // already streaming: the answer goes out as it is
		st.mu.Unlock()
		return false
	}
	st.done = true
	if st.stop != nil {
		close(st.stop)
	}
	st.mu.Unlock()
	h.logger.LogAttrs(r.Context(), slog.LevelInfo, "mcp: insufficient scope",
		slog.String("remote", r.RemoteAddr), slog.String("principal", caller.Principal),
		slog.Any("permissions", perms), slog.Any("scopes", scopes))
	w.Header().Set("WWW-Authenticate", insufficientScope(scopes, h.metaURL))
	h.fail(w, http.StatusForbidden, "Forbidden: insufficient_scope: the access token lacks a scope this request needs "+
		"(see the WWW-Authenticate header)", nil)
	return true
}

// challengeScopes asks sc, treating a panic as "no scope would do", so
// that a broken ScopeChallenge leaves the tool unknown instead of crashing
// the request.
func challengeScopes(ctx context.Context, sc ScopeChallenge, caller Caller, permission string) (scopes []string) {
	defer func() {
		if recover() != nil {
			scopes = nil
		}
	}()
	return sc(ctx, caller, permission)
}

// insufficientScope builds the WWW-Authenticate challenge of a 403 answer
// (RFC 6750 section 3.1, MCP authorization "Scope Challenge Handling").
// Every value is an RFC 9110 quoted-string (appendQuoted); the scopes are
// scope-tokens already (validScopeToken), which quoting leaves as they are.
func insufficientScope(scopes []string, metadataURL string) string {
	b := make([]byte, 0, 128)
	b = append(b, `Bearer realm="mcp", error="insufficient_scope", scope=`...)
	b = appendQuoted(b, strings.Join(scopes, " "))
	return string(appendMetadataURL(b, metadataURL))
}

// appendMetadataURL appends the resource_metadata parameter of a challenge
// (RFC 9728 section 5.1), if there is a URL: '"', which no URL holds raw,
// is percent-encoded (%22), and the value quoted.
func appendMetadataURL(b []byte, metadataURL string) []byte {
	if metadataURL == "" {
		return b
	}
	b = append(b, `, resource_metadata=`...)
	return appendQuoted(b, strings.ReplaceAll(metadataURL, `"`, "%22"))
}

// appendQuoted appends s as an RFC 9110 quoted-string (section 5.6.4): '"'
// and '\' are escaped with a backslash, other visible characters, space,
// tab and bytes of 0x80 and above go as they are, and control characters,
// which no header value may carry, are left out. Whatever s holds, the
// parameter ends where the closing quote says and no other parameter can
// be smuggled in.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\t' || (c >= 0x20 && c != 0x7f):
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// validScopeToken reports whether s is a scope-token of RFC 6749 section
// 3.3: printable ASCII without space, '"' or '\'. Others are left out of the
// challenge: no client could ask for them.
func validScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// joinScopes is HandlerOptions.Scopes as a 401 challenge names them:
// scope-tokens, each once, space-separated. It warns of the others.
func joinScopes(scopes []string, logger *slog.Logger) string {
	var kept []string
	for _, s := range scopes {
		if !validScopeToken(s) {
			logger.LogAttrs(context.Background(), slog.LevelWarn, "mcp: HandlerOptions.Scopes: not a scope-token, left out of 401 challenges",
				slog.String("scope", shorten(s)))
			continue
		}
		if !slices.Contains(kept, s) {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, " ")
}
