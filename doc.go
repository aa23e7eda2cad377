// Package mcp hosts Model Context Protocol (MCP) tools inside a Go
// service's own http.Handler.
//
// The design follows NaviServer's nsmcp module, in four small parts:
//
//   - A [Tool] describes itself ([ToolInfo]: name, description, input and
//     output JSON Schema, permission, annotations) and implements Validate
//     and Execute. [NewTool] turns a typed Go function into a Tool whose
//     schemas are inferred once, with github.com/google/jsonschema-go.
//   - A [Registry] holds tools, lists those a caller may use and calls one:
//     authorize, validate against the input schema, Validate, Execute.
//     [ToolSet] is the concurrency-safe default; tools can be added and
//     removed at run time.
//   - An [Authorizer] decides whether a [Caller] (the authenticated request
//     context: principal, grants, selected server) may use a permission such
//     as "diagnostics.code.read". A tool the caller may not use is invisible:
//     it is not listed, and calling it answers exactly like an unknown tool.
//   - A [Protocol] parses one JSON-RPC body under bounds ([Limits]: depth 32,
//     strings of 64 KiB, 256 members per container, valid numbers and UTF-8,
//     no duplicate member names) and answers an HTTP-ready status and body.
//     [Server] is the default; it serves the protocol revisions 2025-03-26,
//     2025-06-18 and 2025-11-25 (initialize handshake) and 2026-07-28
//     (sessionless, per-request _meta), chosen per request.
//
// Transports: [NewHandler] serves a Protocol as a Streamable HTTP endpoint
// (mount it on any mux). It refuses cross-origin requests not on
// HandlerOptions.AllowedOrigins and, on loopback listeners, Host names that
// are not loopback names (DNS rebinding) with 403; it answers JSON, or an SSE
// stream when a tool sends progress or log notifications and the client
// accepts text/event-stream. An [Authenticator] turns each HTTP request into
// the Caller: [Anonymous], [BearerAuth] with a verifier, or [StaticTokens];
// [ProtectedResourceMetadata] serves RFC 9728 metadata. [ServeStdio] serves
// one client over newline-delimited JSON on stdin and stdout.
//
// The server is stateless: it issues no sessions and keeps nothing between
// requests, so any replica behind a load balancer can answer any request.
// Notifications are answered with 202 and never run tools.
//
// Errors keep their JSON-RPC codes exactly: -32700 for bodies that are not
// JSON within the bounds, -32600 for JSON that is not a JSON-RPC request
// (including duplicate member names), -32601 for unknown methods, -32602 for
// bad params and unknown tools, -32603 for failures inside the server (a
// panicking tool: the stack goes to the log, never to the client). An
// ordinary error returned by a tool is a result with isError set, which the
// model can read and act on; from 2025-11-25 on, so are invalid arguments.
//
// The caller reaches tools in two ways: as [Request].Caller, and in the
// context (CallerFromContext), for code deeper in the call.
//
// Logging uses log/slog: one record per request with the method, tool,
// principal, duration and outcome. Argument values are never logged.
package mcp
