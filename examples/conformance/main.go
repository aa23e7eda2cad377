// Command conformance is the server the official MCP conformance suite
// (@modelcontextprotocol/conformance) and the real-client checks of
// scripts/test.d run against. It serves the tools the suite's server
// scenarios call (test_simple_text, test_image_content, ...,
// json_schema_2020_12_tool) plus echo, with anonymous callers allowed to
// use every tool, over Streamable HTTP at http://ADDR/mcp or over stdio.
//
//	go run ./examples/conformance -addr 127.0.0.1:3001
//	go run ./examples/conformance -stdio
//
// Flags:
//
//	-addr host:port   listen address (default 127.0.0.1:3001; port 0 picks a
//	                  free port, printed on the first line of stdout)
//	-stdio            serve on stdin/stdout instead of HTTP
//
// It is a test fixture, not an example to copy for production: every caller
// is admitted (mcp.AllowAll()). DNS-rebinding protection stays on, as the
// suite's dns-rebinding-protection scenario expects.
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
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

// run parses args and serves until ctx ends (or, with -stdio, stdin does).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:3001", "listen address (port 0 picks a free port)")
	stdio := fs.Bool("stdio", false, "serve MCP on stdin/stdout instead of HTTP")
	verbose := fs.Bool("v", false, "log every request to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	server, err := newServer(logger)
	if err != nil {
		return err
	}
	if *stdio {
		return mcp.ServeStdio(ctx, server, mcp.Caller{Principal: "local"}, stdin, stdout, &mcp.StdioOptions{Logger: logger})
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mux, _ := newMux(server, logger)
	srv := newHTTPServer(mux)
	fmt.Fprintf(stdout, "MCP conformance server listening on http://%s/mcp\n", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
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

// newMux mounts the MCP endpoint at /mcp for anonymous callers, with the
// handler's default origin and DNS-rebinding protection.
func newMux(server mcp.Protocol, logger *slog.Logger) (http.Handler, *mcp.Handler) {
	mux := http.NewServeMux()
	handler := mcp.NewHandler(server, &mcp.HandlerOptions{Logger: logger})
	mux.Handle("/mcp", handler)
	return mux, handler
}

// newServer registers the tools and returns the Protocol serving them to
// every caller.
func newServer(logger *slog.Logger) (*mcp.Server, error) {
	ts := mcp.NewToolSet()
	if err := registerTools(ts); err != nil {
		return nil, err
	}
	return mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Name: "embedmcp-conformance", Version: "1.0.0", Logger: logger}), nil
}
