package oauthmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/embedmcp/mcp"
)

// A ScopeMap maps each OAuth scope to the grants it stands for: the
// permissions of the tools a token with that scope may use, in the form
// mcp.GrantsAuthorizer reads ("notes.read", "notes.*", "*"). A scope may
// stand for several grants, and a broader scope may cover what narrower
// ones do ("notes" → "notes.*" covers "notes:read" → "notes.read"), which
// is the scope hierarchy the MCP authorization spec asks servers to honour.
// A scope the map does not name grants nothing.
//
//	oauthmcp.ScopeMap{
//		"notes:read":  {"notes.read", "notes.search"},
//		"notes:write": {"notes.write"},
//		"notes":       {"notes.*"},
//	}
//
// The map works both ways. Grants turns a token's scopes into the Caller's
// grants; Challenge turns a permission a caller lacks back into the scope
// to ask for: the narrowest scope whose grants cover it. So a client that
// asks for the scope a challenge names gets a token that passes the same
// check, as long as the Server's Authorizer is mcp.GrantsAuthorizer (or
// follows mcp.GrantCovers).
type ScopeMap map[string][]string

// ErrScopeName: a ScopeMap names a scope that is not an RFC 6749
// scope-token (section 3.3: one or more printable ASCII characters, none of
// them a space, '"' or '\'). No client could ask for it, and it could not
// be named in a WWW-Authenticate challenge.
var ErrScopeName = errors.New("oauthmcp: scope name is not an RFC 6749 scope-token")

// Validate reports the first scope of m, by name, that is not an RFC 6749
// scope-token, wrapping ErrScopeName, or nil. New calls it on
// Options.Scopes.
func (m ScopeMap) Validate() error {
	for _, s := range m.Supported() {
		if !scopeToken(s) {
			return fmt.Errorf("%w: %q (printable ASCII without space, '\"' or '\\')", ErrScopeName, clip(s))
		}
	}
	return nil
}

// scopeToken reports whether s is a scope-token: 1*( %x21 / %x23-5B /
// %x5D-7E ).
func scopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Grants returns the grants scopes stand for, each once, in the order of
// scopes then of the map's lists.
func (m ScopeMap) Grants(scopes []string) []string {
	var out []string
	for _, s := range scopes {
		for _, g := range m[s] {
			if g != "" && !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// ScopeFor returns the scope to ask for to hold permission: among the
// scopes whose grants cover it (mcp.GrantCovers), the one whose covering
// grant is the most specific (an equal grant before a wildcard, a longer
// wildcard before a shorter one, "*" last), then the one standing for the
// fewest grants, then the first by name. It reports false when no scope
// covers permission, and for the empty permission, which needs none.
func (m ScopeMap) ScopeFor(permission string) (string, bool) {
	if permission == "" {
		return "", false
	}
	best, bestRank, bestSize := "", -1, 0
	for scope, grants := range m {
		rank := -1
		for _, g := range grants {
			if mcp.GrantCovers(g, permission) {
				rank = max(rank, specificity(g))
			}
		}
		if rank < 0 {
			continue
		}
		if rank > bestRank || (rank == bestRank && (len(grants) < bestSize ||
			(len(grants) == bestSize && scope < best))) {
			best, bestRank, bestSize = scope, rank, len(grants)
		}
	}
	return best, bestRank >= 0
}

// specificity ranks a grant that covers a permission: "*" lowest, then
// wildcards by the length of their prefix, then an exact grant above all.
func specificity(grant string) int {
	switch {
	case grant == "*":
		return 0
	case strings.HasSuffix(grant, ".*"):
		return len(grant)
	default:
		return 1 << 20
	}
}

// Challenge is an mcp.ScopeChallenge: it names the scope to ask for to
// hold permission (ScopeFor), or nil when none would do. Use it as
// HandlerOptions.ScopeChallenge with a Verifier built on the same map:
//
//	mcp.HandlerOptions{Authenticator: v.Authenticator(), ScopeChallenge: scopes.Challenge}
//
// It names only the scope the operation needs, as the 2026-07-28 revision
// of MCP authorization describes; clients ask for the union of the scopes
// they hold and the ones challenged.
func (m ScopeMap) Challenge(_ context.Context, _ mcp.Caller, permission string) []string {
	if s, ok := m.ScopeFor(permission); ok {
		return []string{s}
	}
	return nil
}

// Supported returns the scopes of the map, sorted: the scopes_supported of
// the resource's metadata (mcp.ResourceMetadata).
func (m ScopeMap) Supported() []string {
	out := make([]string, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// scpClaim reads the "scp" claim: an array of scopes, or one
// space-separated string.
type scpClaim []string

// UnmarshalJSON implements json.Unmarshaler.
func (s *scpClaim) UnmarshalJSON(b []byte) error {
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*s = list
		return nil
	}
	var one string
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*s = strings.Fields(one)
	return nil
}
