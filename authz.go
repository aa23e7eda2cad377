package mcp

import (
	"context"
	"strings"
)

// An Authorizer decides whether a caller may use a permission. The Server
// asks it about every tool it lists and once before every call, so a tool's
// permission is checked in one place for listing and calling alike. Tools
// that list other tools (enquiry, codetools) ask the same Authorizer,
// which the Server puts in the context of every call (AuthorizerFromContext).
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

// AllowAll returns an Authorizer that allows every caller every
// permission. It is meant for local development, stdio servers and tests.
func AllowAll() Authorizer { return allowAll{} }

// DenyAll returns an Authorizer that allows nothing, not even tools with an
// empty permission. NewServer uses it when given no Authorizer.
func DenyAll() Authorizer { return denyAll{} }

type allowAll struct{}

func (allowAll) Allowed(context.Context, Caller, string) bool { return true }

type denyAll struct{}

func (denyAll) Allowed(context.Context, Caller, string) bool { return false }

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

// ContextWithAuthorizer returns a copy of ctx that carries az. The Server
// does this before it calls a tool, with its own Authorizer; use it to call
// a tool's Validate and Execute directly.
func ContextWithAuthorizer(ctx context.Context, az Authorizer) context.Context {
	sc := scopeFrom(ctx)
	sc.az = az
	return context.WithValue(ctx, scopeKey{}, &sc)
}

// AuthorizerFromContext returns the Authorizer in ctx: the Server's, inside
// a tool call. Tools that show other tools (a catalogue, a search) ask it
// which of them the caller may see. Without one it returns DenyAll(), so
// that a tool called outside a Server fails closed; it never returns nil.
func AuthorizerFromContext(ctx context.Context) Authorizer {
	if sc, ok := ctx.Value(scopeKey{}).(*scope); ok && sc.az != nil {
		return sc.az
	}
	return denyAll{}
}

// scope is what a call's context carries: the caller and the Authorizer.
// The Server stores a pointer to the Request's own scope, so that a call
// costs one context value.
type scope struct {
	caller *Caller
	az     Authorizer
}

type scopeKey struct{}

func scopeFrom(ctx context.Context) scope {
	if sc, ok := ctx.Value(scopeKey{}).(*scope); ok {
		return *sc
	}
	return scope{}
}
