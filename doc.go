// Package mcp hosts Model Context Protocol (MCP) tools inside a Go
// service's own http.Handler: add typed tools, mount the Handler on any
// mux, and decide who may call what (ExampleNewHandler runs this):
//
//	type text struct {
//		Text string `json:"text"`
//	}
//	ts := mcp.NewToolSet()
//	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo the text.", Permission: "demo.echo"},
//		func(ctx context.Context, req *mcp.Request, in text) (text, error) { return in, nil })
//	if err != nil {
//		panic(err)
//	}
//	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "my-service", Version: "1.0.0"})
//	mux := http.NewServeMux()
//	mux.Handle("/mcp", mcp.NewHandler(server, &mcp.HandlerOptions{
//		Authenticator: mcp.StaticTokens(map[string]mcp.Caller{"s3cret": {Principal: "ops", Grants: []string{"demo.*"}}}),
//	}))
//
// A [Tool] describes itself ([ToolInfo]: name, description, JSON Schemas,
// permission) and runs; [NewTool] and [AddTool] make one from a typed
// function, inferring its schemas. A [ToolSet] holds tools and may change
// at run time. An [Authorizer] decides whether a [Caller] (principal,
// grants) may use a permission; a tool the caller may not use is neither
// listed nor callable, exactly like an unknown one. [Server] serves the
// protocol revisions 2025-03-26 to 2026-07-28, chosen per request, under
// bounds ([Limits]); [NewHandler] serves it over Streamable HTTP (origin
// and DNS-rebinding checks, an [Authenticator] per request) and
// [ServeStdio] over standard input and output.
//
// The server is stateless: any replica answers any request. Tools that
// run long run as tasks (ToolInfo.TaskSupport) whose state lives in a
// tasks.Store shared by the replicas (package tasks: the store contract,
// records, the default MemoryStore and the TestStore checker). Errors are values: errors.Is finds
// [ErrUnknownTool] and [ErrInvalidArguments], errors.As an [*Error] with
// its JSON-RPC code; an error a tool returns is an isError result the
// model reads.
//
// Tools that come with the library are added with one Register call each:
// codetools (the service's own Go code), runtimetools (the running
// process) and enquiry (which tool does what). mcptest is the library's
// net/http/httptest; tasks is its io/fs for task stores; otelmcp (OpenTelemetry) and redisstore (tasks shared
// through Redis) are modules of their own.
//
// The README introduces each part and docs/ describes it at length; docs/design.md holds the path
// of a request, tasks, error codes, logging, and the conventions every
// package follows (docs_test.go checks those the code shows).
package mcp
