package mcp

import (
	"context"
	"encoding/json"
)

// Caller is the authenticated request context: who is calling, what they were
// granted and which server (tenant, virtual host) the request selected. It is
// nsmcp's "authenticated request context". Transports build it, usually with
// an Authenticator; the Protocol hands it to the Authorizer and to tools.
//
// A Caller is a value; the zero Caller is an anonymous caller with no grants.
type Caller struct {
	// Principal identifies the caller (a user id, a service account, a token's
	// subject). It is logged; it must not be a secret.
	Principal string
	// Grants are the permissions the caller holds, interpreted by the
	// Authorizer (for example "diagnostics.code.read" or "diagnostics.*").
	Grants []string
	// Server is the server the request selected, for hosts that serve several.
	Server string
}

// ContextWithCaller returns a copy of ctx that carries c. The Server does
// this before it calls an Authorizer or a tool, so both can read the caller
// with CallerFromContext.
func ContextWithCaller(ctx context.Context, c Caller) context.Context {
	sc := scopeFrom(ctx)
	sc.caller = &c
	return context.WithValue(ctx, scopeKey{}, &sc)
}

// CallerFromContext returns the Caller stored in ctx by ContextWithCaller
// (or by the Server, inside a call) and whether there was one.
func CallerFromContext(ctx context.Context) (Caller, bool) {
	sc, ok := ctx.Value(scopeKey{}).(*scope)
	if !ok || sc.caller == nil {
		return Caller{}, false
	}
	return *sc.caller, true
}

// Result is the result of a tools/call: the MCP CallToolResult.
type Result struct {
	// Content is the unstructured result, shown to the model.
	Content []Content
	// StructuredContent is the structured result. It is encoded with
	// encoding/json unless it is a json.RawMessage, which is used verbatim.
	StructuredContent any
	// IsError reports a tool-level failure the model can see and act on.
	IsError bool
	// Meta is the result's _meta object.
	Meta map[string]any
}

// TextResult returns a Result with one text content block.
func TextResult(text string) *Result {
	return &Result{Content: []Content{TextContent(text)}}
}

// ErrorResult returns a Result with IsError set and one text content block.
func ErrorResult(text string) *Result {
	return &Result{Content: []Content{TextContent(text)}, IsError: true}
}

// Icon is an icon a client may show for a tool (MCP Icon).
type Icon struct {
	Src      string   `json:"src"`                // the icon's URI (https: or data:)
	MIMEType string   `json:"mimeType,omitempty"` // e.g. "image/png"
	Sizes    []string `json:"sizes,omitempty"`    // e.g. "48x48", "any"
	Theme    string   `json:"theme,omitempty"`    // "light" or "dark"
}

// ToolAnnotations are hints about a tool's behaviour (MCP ToolAnnotations).
// Every hint is tri-state: nil means the author did not say, and nothing is
// emitted for it. Clients must not trust hints from untrusted servers.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`           // a human-readable title
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`    // the tool changes nothing
	DestructiveHint *bool  `json:"destructiveHint,omitempty"` // its changes may destroy data
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`  // calling it twice does no more than once
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`   // it reaches outside systems
}

// Bool returns a pointer to b, for ToolAnnotations hints.
func Bool(b bool) *bool { return &b }

// rawJSONValue wraps encoded JSON so encoding/json writes it verbatim.
func rawJSONValue(b []byte) json.RawMessage { return json.RawMessage(b) }
