package mcptest

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/embedmcp/mcp"
)

// Caller returns an mcp.Caller for principal holding grants.
func Caller(principal string, grants ...string) mcp.Caller {
	return mcp.Caller{Principal: principal, Grants: slices.Clone(grants)}
}

// Context returns a copy of parent carrying caller (mcp.ContextWithCaller),
// the Authorizer az (mcp.ContextWithAuthorizer; nil leaves none, so
// mcp.AuthorizerFromContext denies everything) and an mcp.Exchange for
// protocol version (none when version is ""): the context a transport and
// the Server give a tool. Use it to call a tool's Validate and Execute
// directly.
func Context(parent context.Context, caller mcp.Caller, az mcp.Authorizer, version string) context.Context {
	ctx := mcp.ContextWithCaller(parent, caller)
	if az != nil {
		ctx = mcp.ContextWithAuthorizer(ctx, az)
	}
	if version != "" {
		ctx = mcp.ContextWithExchange(ctx, &mcp.Exchange{ProtocolVersion: version})
	}
	return ctx
}

func encodeArgs(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		return a, nil
	case []byte:
		return json.RawMessage(a), nil
	case string:
		return json.RawMessage(a), nil
	}
	return json.Marshal(args)
}

// Question is one question put to an Authorizer.
type Question struct {
	Principal  string // the Caller's principal
	Permission string // the permission asked about
	Allowed    bool   // the answer
}

// Authorizer is a fake mcp.Authorizer that records every question it is
// asked, so that tests can assert which permissions a Server checked
// (tools/list asks once per registered tool; tools/call asks once, for the
// called tool). Make one with Record (Record(mcp.AllowAll()),
// Record(mcp.DenyAll())), Grants or CallerGrants. It is safe for concurrent
// use.
type Authorizer struct {
	decide func(ctx context.Context, c mcp.Caller, permission string) bool

	mu    sync.Mutex
	asked []Question
}

// Grants returns an Authorizer that answers as if every caller held grants
// (matched with mcp.GrantCovers), whatever the caller's own grants. The
// empty permission is allowed, as by mcp.GrantsAuthorizer.
func Grants(grants ...string) *Authorizer {
	grants = slices.Clone(grants)
	return Record(mcp.AuthorizerFunc(func(ctx context.Context, c mcp.Caller, p string) bool {
		c.Grants = grants
		return mcp.GrantsAuthorizer{}.Allowed(ctx, c, p)
	}))
}

// CallerGrants returns an Authorizer that decides by the caller's own
// grants, as mcp.GrantsAuthorizer does.
func CallerGrants() *Authorizer { return Record(mcp.GrantsAuthorizer{}) }

// Record returns an Authorizer that asks az and records the answers.
func Record(az mcp.Authorizer) *Authorizer {
	return &Authorizer{decide: az.Allowed}
}

// Allowed implements mcp.Authorizer.
func (a *Authorizer) Allowed(ctx context.Context, c mcp.Caller, permission string) bool {
	ok := a.decide(ctx, c, permission)
	a.mu.Lock()
	a.asked = append(a.asked, Question{Principal: c.Principal, Permission: permission, Allowed: ok})
	a.mu.Unlock()
	return ok
}

// Asked returns the questions asked so far, in order.
func (a *Authorizer) Asked() []Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.asked)
}

// Permissions returns the distinct permissions asked about so far, sorted.
func (a *Authorizer) Permissions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, q := range a.asked {
		out = append(out, q.Permission)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Reset forgets the questions asked so far.
func (a *Authorizer) Reset() {
	a.mu.Lock()
	a.asked = nil
	a.mu.Unlock()
}
