package oauthmcp

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

func TestScopeMapGrants(t *testing.T) {
	got := testScopes.Grants([]string{"notes:write", "notes:read", "notes:write", "nope", ""})
	if want := []string{"notes.write", "notes.read", "notes.search"}; !slices.Equal(got, want) {
		t.Errorf("Grants = %q, want %q", got, want)
	}
	if got := testScopes.Grants(nil); got != nil {
		t.Errorf("no scopes: %q", got)
	}
	if got, want := testScopes.Supported(), []string{"admin", "notes", "notes:read", "notes:write"}; !slices.Equal(got, want) {
		t.Errorf("Supported = %q", got)
	}
}

func TestScopeFor(t *testing.T) {
	m := ScopeMap{
		"notes:read":    {"notes.read", "notes.search"},
		"notes:read2":   {"notes.read"}, // fewer grants than notes:read: preferred
		"notes":         {"notes.*"},
		"notes-archive": {"notes.archive.*"},
		"admin":         {"*"},
		"billing":       {"billing.view"},
	}
	for perm, want := range map[string]string{
		"notes.read":         "notes:read2",   // exact, fewest grants
		"notes.search":       "notes:read",    // exact
		"notes.write":        "notes",         // wildcard
		"notes.archive.list": "notes-archive", // longer wildcard beats shorter
		"billing.view":       "billing",
		"other.thing":        "admin", // only "*" covers it
	} {
		if got, ok := m.ScopeFor(perm); !ok || got != want {
			t.Errorf("ScopeFor(%q) = %q, %v; want %q", perm, got, ok, want)
		}
	}
	if s, ok := m.ScopeFor(""); ok {
		t.Errorf("empty permission: %q", s)
	}
	if s, ok := testScopes.ScopeFor("billing.view"); ok != true || s != "admin" {
		t.Errorf("testScopes: %q %v", s, ok)
	}
	narrow := ScopeMap{"notes:read": {"notes.read"}}
	if s, ok := narrow.ScopeFor("notes.write"); ok {
		t.Errorf("uncovered permission: %q", s)
	}
	if got := narrow.Challenge(background(), mcp.Caller{}, "notes.write"); got != nil {
		t.Errorf("Challenge of an uncovered permission: %q", got)
	}
}

// The challenge is the inverse of the grants: a token carrying the scope
// the challenge names is allowed the permission, by GrantsAuthorizer.
func TestChallengeInvertsGrants(t *testing.T) {
	maps := []ScopeMap{testScopes, {
		"a":    {"x.read", "y.read"},
		"b":    {"x.*"},
		"c":    {"x.write.deep", "z"},
		"d":    {"x.write.*"},
		"none": {},
	}}
	perms := []string{"x.read", "y.read", "x.write", "x.write.deep", "x.write.deep.er", "z", "notes.read",
		"notes.search", "notes.write", "notes.admin", "q", "x"}
	for i, m := range maps {
		for _, p := range perms {
			scopes := m.Challenge(background(), mcp.Caller{}, p)
			covered := false
			for _, grants := range m {
				for _, g := range grants {
					covered = covered || mcp.GrantCovers(g, p)
				}
			}
			if len(scopes) == 0 {
				if covered {
					t.Errorf("map %d: no challenge for %q, which a scope covers", i, p)
				}
				continue
			}
			c := mcp.Caller{Grants: m.Grants(scopes)}
			if !(mcp.GrantsAuthorizer{}).Allowed(background(), c, p) {
				t.Errorf("map %d: challenge %q for %q earns grants %q that do not allow it", i, scopes, p, c.Grants)
			}
		}
	}
}

func TestScpClaim(t *testing.T) {
	for in, want := range map[string][]string{
		`["a","b"]`: {"a", "b"},
		`"a b  c"`:  {"a", "b", "c"},
		`[]`:        {},
	} {
		var s scpClaim
		if err := json.Unmarshal([]byte(in), &s); err != nil || !slices.Equal(s, want) {
			t.Errorf("%s: %q, %v", in, s, err)
		}
	}
	var s scpClaim
	if err := json.Unmarshal([]byte(`{"a":1}`), &s); err == nil {
		t.Errorf("object accepted as scp: %q", s)
	}
}

// A scope name that is not an RFC 6749 scope-token is refused when the
// Verifier is made, with ErrScopeName: no client could ask for it, and it
// could not be named in a challenge.
func TestBadScopeNames(t *testing.T) {
	for _, name := range []string{"", "notes read", `notes"`, `notes\read`, "notes\x00", "notes\r\n", "café", "notes\x7f"} {
		m := ScopeMap{"notes:read": {"notes.read"}, name: {"notes.write"}}
		if err := m.Validate(); !errors.Is(err, ErrScopeName) {
			t.Errorf("Validate, scope %q: %v, want ErrScopeName", name, err)
		}
		_, err := New(&Options{Issuer: "https://login.example.com/", Resource: testResource, Scopes: m})
		if !errors.Is(err, ErrScopeName) || !strings.Contains(err.Error(), "Options.Scopes") {
			t.Errorf("New, scope %q: %v, want ErrScopeName naming Options.Scopes", name, err)
		}
	}
	if err := testScopes.Validate(); err != nil {
		t.Errorf("good scopes: %v", err)
	}
	if err := (ScopeMap{"a!#$%&'()*+,-./:;<=>?@[]^_`{|}~Z": nil}).Validate(); err != nil {
		t.Errorf("every scope-token character: %v", err)
	}
}
