// Command hello is a small MCP server built with embedmcp. It serves four
// typed tools (echo, add, countdown, and report, a slow tool that runs as a
// task for clients that support the Tasks extension) over Streamable HTTP
// at http://127.0.0.1:8080/mcp, or over stdio with -stdio.
//
//	go run ./examples/hello                  # anonymous callers
//	go run ./examples/hello -token s3cret    # require "Authorization: Bearer s3cret"
//	go run ./examples/hello -stdio           # for clients that launch a subprocess
//
// Flags:
//
//	-addr host:port   listen address (default 127.0.0.1:8080)
//	-token value      require this bearer token
//	-issuer url       advertise this authorization server in the RFC 9728
//	                  metadata at /.well-known/oauth-protected-resource
//	-page-size n      answer tools/list n tools at a time (default 0: all)
//	-stdio            serve on stdin/stdout instead of HTTP
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/embedmcp/mcp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	addr, token, issuer string
	pageSize            int
	stdio               bool
}

// run parses args and serves until ctx ends (or, with -stdio, stdin does).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hello", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen address")
	fs.StringVar(&cfg.token, "token", "", "require this bearer token (default: anonymous callers)")
	fs.StringVar(&cfg.issuer, "issuer", "", "authorization server to advertise in the protected resource metadata")
	fs.IntVar(&cfg.pageSize, "page-size", 0, "answer tools/list this many tools at a time (0: all)")
	fs.BoolVar(&cfg.stdio, "stdio", false, "serve MCP on stdin/stdout instead of HTTP")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.pageSize < 0 {
		return fmt.Errorf("-page-size must be 0 or more, got %d", cfg.pageSize)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	server, err := newServer(logger, cfg.pageSize)
	if err != nil {
		return err
	}
	if cfg.stdio {
		return mcp.ServeStdio(ctx, server, caller("local"), stdin, stdout, &mcp.StdioOptions{Logger: logger})
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	mux, _ := newMux(server, cfg, base, logger)
	srv := newHTTPServer(mux)
	fmt.Fprintf(stdout, "MCP server listening on %s/mcp\n", base)
	auth := ""
	if cfg.token != "" {
		auth = ` -H "Authorization: Bearer $TOKEN"`
	}
	fmt.Fprintf(stdout, "try: curl -s %s/mcp -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'%s "+
		`-d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}'`+"\n", base, auth)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The HTTP server first, then the tasks still running (report): they
	// get what is left of the five seconds, then fail saying why.
	return errors.Join(srv.Shutdown(shutdown), server.Shutdown(shutdown))
}

// caller is who a request runs as: it holds every grant.
func caller(principal string) mcp.Caller {
	return mcp.Caller{Principal: principal, Grants: []string{"hello.*"}}
}

// newHTTPServer returns the http.Server for mux, with the limits a server
// open to untrusted callers needs. Its Shutdown ends the MCP handler's
// listen streams by itself: the handler registers with the server that
// serves its first stream.
func newHTTPServer(mux http.Handler) *http.Server {
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second, // headers sent slowly
		ReadTimeout:       30 * time.Second, // bodies sent slowly; streamed answers are not cut
		IdleTimeout:       2 * time.Minute,  // keep-alive connections left idle
		MaxHeaderBytes:    64 << 10,
		// No WriteTimeout: it would cut progress and listen streams.
	}
	return srv
}

// newMux mounts the MCP endpoint at /mcp and, with -token, the protected
// resource metadata that 401 answers point to.
func newMux(server mcp.Protocol, cfg config, base string, logger *slog.Logger) (http.Handler, *mcp.Handler) {
	opts := &mcp.HandlerOptions{Authenticator: mcp.Anonymous(caller("anonymous")), Logger: logger}
	mux := http.NewServeMux()
	if cfg.token != "" {
		opts.Authenticator = mcp.StaticTokens(map[string]mcp.Caller{cfg.token: caller("token-holder")})
		md := mcp.ResourceMetadata{Resource: base + "/mcp", ResourceName: "hello"}
		if cfg.issuer != "" {
			md.AuthorizationServers = []string{cfg.issuer}
		}
		const path = "/.well-known/oauth-protected-resource"
		mux.Handle("GET "+path, mcp.ProtectedResourceMetadata(md))
		opts.ResourceMetadataURL = base + path
	}
	handler := mcp.NewHandler(server, opts)
	mux.Handle("/mcp", handler)
	return mux, handler
}

// Tool inputs and outputs.
type (
	echoIO struct {
		Text string `json:"text" jsonschema:"the text to return"`
	}
	addIn struct {
		A float64 `json:"a" jsonschema:"the first addend"`
		B float64 `json:"b" jsonschema:"the second addend"`
	}
	addOut struct {
		Sum float64 `json:"sum"`
	}
	countdownIn struct {
		From int `json:"from" jsonschema:"where to start, 1 to 10"`
	}
	countdownOut struct {
		Message string `json:"message"`
	}
	reportIn struct {
		Seconds int `json:"seconds,omitempty" jsonschema:"how long the report takes, 1 to 30 seconds (default 3)"`
	}
	reportOut struct {
		Lines    int    `json:"lines"`
		Took     string `json:"took"`
		TaskID   string `json:"taskId,omitempty"`
		Finished string `json:"finished"`
	}
)

// newServer registers the tools; tools/list answers pageSize tools at a
// time (0: all).
func newServer(logger *slog.Logger, pageSize int) (*mcp.Server, error) {
	ts := mcp.NewToolSet()
	var errs []error
	add := func(_ mcp.Tool, err error) { errs = append(errs, err) }
	add(mcp.AddTool(ts, mcp.ToolInfo{
		Name: "echo", Description: "Return the given text unchanged.", Permission: "hello.echo",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)},
	}, func(_ context.Context, _ *mcp.Request, in echoIO) (echoIO, error) { return in, nil }))
	add(mcp.AddTool(ts, mcp.ToolInfo{
		Name: "add", Description: "Add two numbers.", Permission: "hello.math",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)},
	}, func(_ context.Context, _ *mcp.Request, in addIn) (addOut, error) { return addOut{in.A + in.B}, nil }))
	add(mcp.AddTool(ts, mcp.ToolInfo{
		Name:        "countdown",
		Description: "Count down from a number, one step every 100 ms, reporting progress; shows streamed notifications.",
		Permission:  "hello.progress",
	}, countdown))
	add(mcp.AddTool(ts, mcp.ToolInfo{
		Name: "report",
		Description: "Build a slow report (a few seconds of work). For clients that support the Tasks extension it runs " +
			"as a task: the call returns a task at once, and tasks/get returns the report when it is done.",
		Permission:  "hello.report",
		TaskSupport: mcp.TaskOptional,
	}, report))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "hello", Version: "1.0.0", Logger: logger, PageSize: pageSize}), nil
}

func countdown(ctx context.Context, req *mcp.Request, in countdownIn) (countdownOut, error) {
	if in.From < 1 || in.From > 10 {
		return countdownOut{}, fmt.Errorf("from must be between 1 and 10, got %d", in.From)
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := in.From; i > 0; i-- {
		if err := req.Progress(float64(in.From-i+1), float64(in.From), fmt.Sprint(i)); err != nil {
			return countdownOut{}, err
		}
		select {
		case <-ctx.Done():
			return countdownOut{}, ctx.Err()
		case <-t.C:
		}
	}
	_ = req.Log(mcp.LevelInfo, "countdown", "lift-off")
	return countdownOut{Message: "lift-off"}, nil
}

// report works for the given seconds, as a slow export or re-index would.
// Run as a task it outlives its HTTP request: the client polls tasks/get,
// or cancels it with tasks/cancel, which cancels ctx.
func report(ctx context.Context, req *mcp.Request, in reportIn) (reportOut, error) {
	if in.Seconds == 0 {
		in.Seconds = 3
	}
	if in.Seconds < 1 || in.Seconds > 30 {
		return reportOut{}, fmt.Errorf("seconds must be between 1 and 30, got %d", in.Seconds)
	}
	start := time.Now()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	lines := 0
	for end := start.Add(time.Duration(in.Seconds) * time.Second); time.Now().Before(end); lines++ {
		select {
		case <-ctx.Done():
			return reportOut{}, ctx.Err()
		case <-t.C:
		}
	}
	return reportOut{Lines: lines, Took: time.Since(start).Round(time.Millisecond).String(), TaskID: req.TaskID(),
		Finished: time.Now().UTC().Format(time.RFC3339)}, nil
}
