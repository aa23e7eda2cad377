// Package mcp hosts Model Context Protocol (MCP) tools inside a Go
// service's own http.Handler.
//
// The design follows NaviServer's nsmcp module, in four small parts:
//
//   - A [Tool] describes itself ([ToolInfo]: name, description, input and
//     output JSON Schema, permission, annotations) and implements Validate
//     and Execute. [NewTool] turns a typed Go function into a Tool whose
//     schemas are inferred once, with github.com/google/jsonschema-go.
//   - A [Registry] holds tools by name. [ToolSet] is the concurrency-safe
//     default; tools can be added, replaced and removed at run time, and
//     [ChangeNotifier] reports the changes.
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
// # One request
//
// A request takes one path through the Server, each step once: the body is
// parsed under the bounds; the revision rules pick the revision and check
// _meta and the HTTP headers against the body; the method is dispatched;
// for tools/call the tool is looked up, the Authorizer is asked once, the
// arguments are validated against the input schema and by the tool's
// Validate, the tool runs (through Options.ToolMiddleware), its output is
// checked, and the answer is encoded once.
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
// # Long-running tools: tasks
//
// A tool whose ToolInfo.TaskSupport is TaskOptional or TaskRequired runs as
// a task (the Tasks extension, io.modelcontextprotocol/tasks, under
// 2026-07-28) for clients that declare the extension on the request: the
// tools/call is answered at once with the task, once it is stored, and the
// tool runs on; tasks/get returns its state and outcome, tasks/update
// answers the input it asks for (InputRequired, as in multi round-trip
// calls), tasks/cancel cancels its context wherever it runs, and
// subscriptions/listen streams notifications/tasks. A task's state is the
// one thing kept between requests, in a TaskStore (Options.Tasks.Store):
// MemoryTaskStore for one process, the redisstore module for replicas.
// Each task belongs to the caller that created it (principal and selected
// server); to anyone else it does not exist. The replica running a task
// holds a lease on it, so that a task whose replica dies fails instead of
// staying "working". Server.Shutdown lets running tasks finish.
//
// Errors keep their JSON-RPC codes exactly: -32700 for bodies that are not
// JSON within the bounds, -32600 for JSON that is not a JSON-RPC request
// (including duplicate member names), -32601 for unknown methods, -32602 for
// bad params and unknown tools, -32603 for failures inside the server (a
// panicking tool: the stack goes to the log, never to the client). An
// ordinary error returned by a tool is a result with isError set, which the
// model can read and act on; from 2025-11-25 on, so are invalid arguments.
//
// Logging uses log/slog: one record per request with the method, tool,
// principal, duration and outcome. Argument values are never logged.
// OpenTelemetry spans and metrics come from the module otelmcp (its own
// go.mod), installed as one Options.Middleware.
//
// # The other packages
//
// Tools that come with the library, each added with one Register call:
// codetools (code_search, code_definition, code_references, code_file: the
// service's own Go code), runtimetools (goroutines, metrics, profiles,
// logs, build, expvar and health of the running process) and enquiry
// (tool_detail and tool_catalogue: which tool does what). mcptest is the
// net/http/httptest of the library. otelmcp (OpenTelemetry) and redisstore
// (tasks and tool-list changes shared by replicas through Redis) are
// modules of their own, so that this module's go.mod stays lean.
//
// # Conventions
//
// The packages of this module (mcp, codetools, enquiry, runtimetools,
// mcptest) and of its companion modules (otelmcp, redisstore) follow one
// set of conventions, which docs_test.go checks where the code shows them:
//
//   - Constructors are NewX: NewServer, NewHandler, codetools.NewCatalog,
//     runtimetools.NewLogRing, redisstore.NewStore. A function that returns
//     another package's interface is named for it: otelmcp.Middleware
//     returns an mcp.Middleware.
//   - Options are a pointer to an XOptions (or Options) struct that may be
//     nil, and whose zero value is the default. A value that means nothing
//     is refused rather than silently replaced: constructors that can fail
//     return the error (runtimetools.NewLogRing, runtimetools.Register);
//     those that cannot say it where it is seen (NewServer logs it and
//     answers every request with 500; a Catalog names it in every answer's
//     coverage). Sizes and counts document what zero and negative values
//     mean (HandlerOptions.MaxBodyBytes: the default; MaxListenStreams: no
//     cap).
//   - Packages that provide tools add them with Register(ts *mcp.ToolSet,
//     …) error, and return them unregistered, for any other Registry, with
//     Tools(…) ([]mcp.Tool, error), taking the same arguments: the options
//     (enquiry.Register(ts, opts), runtimetools.Register(ts, opts)) or what
//     the tools serve (codetools.Register(ts, catalog), whose options are
//     NewCatalog's). Constants name their tools and permissions
//     (codetools.SearchToolName, runtimetools.PermissionProfile), and a bad
//     argument of any of their tools is an *ArgumentError.
//   - Fail-closed defaults are functions, never variables a program could
//     reassign: AllowAll(), DenyAll(), DefaultLimits(). A Server given no
//     Authorizer denies everything. The only exported variables are error
//     sentinels; no package has an init function.
//   - The Server hands a tool what it needs through the context: the Caller
//     (CallerFromContext, also Request.Caller), the Server's Authorizer
//     (AuthorizerFromContext), which tools that show other tools ask, and
//     the transport's Exchange (ExchangeFromContext). No tool takes the
//     Authorizer a second time.
//   - Registry changes are followed one way: ChangeNotifier.Watch. ToolSet
//     implements it for one process; redisstore.ChangeNotifier carries the
//     changes between replicas.
//   - A context.Context is the first parameter of whatever takes one.
//   - Errors are values found with errors.Is and errors.As (ErrUnknownTool,
//     *UnknownToolError, ErrInvalidArguments, *ArgumentError, *Error, and
//     each package's own: codetools.ErrUnknownName, runtimetools.ErrBusy);
//     nothing is learnt by parsing messages.
//   - Nothing panics across the API boundary: a panicking tool, Authorizer,
//     Authenticator, Registry or health check fails its request, not the
//     process.
//   - Every exported name is documented, and each package's entry points
//     have runnable Examples.
package mcp
