package mcp

import (
	"context"
	"strings"
)

// An Authorizer decides whether a caller may use a permission. The Registry
// asks it for every tool it lists and before every call, so a tool's
// permission is checked in one place for listing and calling alike.
//
// Implementations must be safe for concurrent use and fast: tools/list asks
// once per registered tool.
type Authorizer interface {
	// Allowed reports whether caller may use permission. ctx is the
	// request's context; it also carries the caller (CallerFromContext).
	Allowed(ctx context.Context, caller Caller, permission string) bool
}

// AuthorizerFunc adapts a function to the Authorizer interface.
type AuthorizerFunc func(ctx context.Context, caller Caller, permission string) bool

// Allowed calls f.
func (f AuthorizerFunc) Allowed(ctx context.Context, caller Caller, permission string) bool {
	return f(ctx, caller, permission)
}

// AllowAll is an Authorizer that allows every caller every permission. It is
// meant for local development, stdio servers and tests.
var AllowAll Authorizer = AuthorizerFunc(func(context.Context, Caller, string) bool { return true })

// DenyAll is an Authorizer that allows nothing, not even tools with an
// empty permission.
var DenyAll Authorizer = AuthorizerFunc(func(context.Context, Caller, string) bool { return false })

// GrantsAuthorizer allows a permission when one of the caller's grants
// covers it. A grant covers a permission when it is equal to it, or when it
// ends in ".*" and the permission starts with what precedes the "*"
// ("diagnostics.*" covers "diagnostics.code.read" but not "diagnostics"),
// or when it is "*" alone. The empty permission needs no grant.
type GrantsAuthorizer struct{}

// Allowed implements Authorizer.
func (GrantsAuthorizer) Allowed(_ context.Context, c Caller, permission string) bool {
	if permission == "" {
		return true
	}
	for _, g := range c.Grants {
		if GrantCovers(g, permission) {
			return true
		}
	}
	return false
}

// GrantCovers reports whether grant covers permission, by the rules of
// GrantsAuthorizer.
func GrantCovers(grant, permission string) bool {
	switch {
	case grant == "*":
		return true
	case strings.HasSuffix(grant, ".*"):
		prefix := grant[:len(grant)-1] // keep the dot
		return len(permission) > len(prefix) && strings.HasPrefix(permission, prefix)
	default:
		return grant == permission
	}
}

// allowed asks az, treating a panicking Authorizer as a denial so that its
// failure closes access instead of crashing the request.
func allowed(ctx context.Context, az Authorizer, caller Caller, permission string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return az.Allowed(ctx, caller, permission)
}
