package main

import (
	"log/slog"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/console"
	"github.com/embedmcp/mcp/tasks"
)

// authenticator is how callers of the MCP endpoint and of the console are
// authenticated: every caller as anonymous (with the grants callerGrants
// gives), or with -token only requests carrying it (browsers send it as the
// password of HTTP Basic credentials).
func authenticator(cfg config) mcp.Authenticator {
	if cfg.token != "" {
		return mcp.StaticTokens(map[string]mcp.Caller{cfg.token: caller()})
	}
	return mcp.Anonymous(anonymous(cfg))
}

// newConsole returns the operator console over the server's tools and
// tasks: the demo grants ("diagnostics.*") let callers read it, cancel
// tasks and download profiles.
func newConsole(tools mcp.Registry, store tasks.Store, auth mcp.Authenticator, logger *slog.Logger) (*console.Console, error) {
	return console.New(&console.Options{Title: "codeserver", Registry: tools, Authenticator: auth,
		Authorizer: mcp.GrantsAuthorizer{}, Tasks: store, Logger: logger})
}

// consoleHint says how a browser signs in to the console.
func consoleHint(token string) string {
	if token == "" {
		return ""
	}
	return " (sign in with any user name and the token as password)"
}
