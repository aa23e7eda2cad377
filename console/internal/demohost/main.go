// Command demohost serves a few tools over MCP at /mcp and the operator
// console at /console/, behind one Authenticator with two tokens: an
// operator's (diagnostics.* and demo.*) and a user's (demo.* only, no
// console). The console's browser test (scripts/test.d/console.sh) uses it
// for what examples/codeserver cannot show: a caller without
// diagnostics.console.read, and a task to cancel.
//
// Usage:
//
//	go run ./console/internal/demohost -addr 127.0.0.1:8081 -operator secret1 -user secret2
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/console"
	"github.com/embedmcp/mcp/tasks"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "listen `address`")
	operator := flag.String("operator", "", "the operator's bearer `token` (required)")
	user := flag.String("user", "", "the user's bearer `token` (required)")
	flag.Parse()
	if *operator == "" || *user == "" {
		fmt.Fprintln(os.Stderr, "demohost: -operator and -user are required")
		os.Exit(2)
	}
	if err := run(*addr, *operator, *user); err != nil {
		fmt.Fprintln(os.Stderr, "demohost:", err)
		os.Exit(1)
	}
}

func run(addr, operator, user string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ts := mcp.NewToolSet()
	type echoIn struct {
		Text string `json:"text" jsonschema:"the text to echo"`
	}
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Title: "Echo", Description: "Echoes its text.", Permission: "demo.echo",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}},
		func(_ context.Context, _ *mcp.Request, in echoIn) (string, error) { return in.Text, nil }); err != nil {
		return err
	}
	type waitIn struct {
		Seconds int `json:"seconds" jsonschema:"how long to wait, at most 600"`
	}
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "wait", Title: "Wait", Description: "Waits, as a task, until the time is up or the task is cancelled.",
		Permission: "demo.wait", TaskSupport: mcp.TaskRequired, AdminSummary: "A long task, to cancel from the console."},
		func(ctx context.Context, _ *mcp.Request, in waitIn) (string, error) {
			select {
			case <-time.After(time.Duration(min(max(in.Seconds, 0), 600)) * time.Second):
				return "done", nil
			case <-ctx.Done():
				return "", context.Cause(ctx)
			}
		}); err != nil {
		return err
	}
	auth := mcp.StaticTokens(map[string]mcp.Caller{
		operator: {Principal: "operator", Grants: []string{"diagnostics.*", "demo.*"}},
		user:     {Principal: "user", Grants: []string{"demo.*"}},
	})
	store := tasks.NewMemoryStore(nil)
	con, err := console.New(&console.Options{Title: "demohost", Registry: ts, Authenticator: auth, Authorizer: mcp.GrantsAuthorizer{},
		Tasks: store, SampleInterval: time.Second, Logger: logger})
	if err != nil {
		return err
	}
	defer con.Close()
	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "demohost", Logger: logger,
		Middleware: []mcp.Middleware{con.Record}, Tasks: mcp.TaskOptions{Store: store}})
	mux := http.NewServeMux()
	handler := mcp.NewHandler(server, &mcp.HandlerOptions{Authenticator: auth, Logger: logger})
	mux.Handle("/mcp", handler)
	mux.Handle("/console/", http.StripPrefix("/console", con))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(func() { _ = handler.Close() })
	fmt.Fprintf(os.Stderr, "demohost: console at http://%s/console/\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = server.Shutdown(sctx)
		return nil
	}
}
