// Command codeserver is a service that lets agents read its own code: it
// embeds a source snapshot of itself (made by mcpsnapshot through go
// generate) and serves the code tools (code_search, code_definition,
// code_references, code_file), the tool enquiry tools, the runtime tools
// (goroutines, metrics, profiles, logs, build, expvar, health) and a few
// example tools, echo among them, over MCP at http://127.0.0.1:8080/mcp,
// and an operator console for people at http://127.0.0.1:8080/console/.
//
// Usage:
//
//	go generate ./examples/codeserver && go run ./examples/codeserver [-addr host:port] [-token secret] [-stdio]
//
// Without -token every caller is admitted anonymously: with every grant
// (diagnostics.*, which shows the process's code, goroutines, profiles and
// logs, and demo.*) when the listener is on a loopback address, with
// demo.* only otherwise. With -token, requests need "Authorization: Bearer
// <secret>" and get every grant. It says which at start. -stdio serves one
// client on standard input and output instead of HTTP.
package main

//go:generate go run ../../codetools/cmd/mcpsnapshot -o snapshot .

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/console"
	"github.com/embedmcp/mcp/tasks"
)

// snapshotFS holds the snapshot that go generate writes. It is not
// committed: a fresh clone embeds the README alone, and the catalog then
// serves the binary's function table and reports that no snapshot was
// generated yet.
//
//go:embed snapshot
var snapshotFS embed.FS

// grants are what callers of this example may use (see callerGrants).
var grants = []string{"diagnostics.*", "demo.*"}

type config struct {
	addr  string
	token string
	stdio bool
	// exposed: the listener is not on a loopback address, so anonymous
	// callers get no diagnostics.
	exposed bool
}

func main() {
	var cfg config
	flag.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen `address`")
	flag.StringVar(&cfg.token, "token", "", "require this bearer `token` (default: admit local callers)")
	flag.BoolVar(&cfg.stdio, "stdio", false, "serve MCP on standard input and output instead of HTTP")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(cfg, logger); err != nil {
		logger.Error("codeserver", "error", err)
		os.Exit(1)
	}
}

func run(cfg config, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	snap, err := fs.Sub(snapshotFS, "snapshot")
	if err != nil {
		return err
	}
	if cfg.stdio {
		server, _, con, err := newServer(logger, snap, authenticator(cfg))
		if err != nil {
			return err
		}
		defer con.Close()
		return mcp.ServeStdio(ctx, server, caller(), os.Stdin, os.Stdout, nil)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	cfg.exposed = !isLoopback(ln.Addr())
	server, catalog, con, err := newServer(logger, snap, authenticator(cfg))
	if err != nil {
		ln.Close()
		return err
	}
	defer con.Close()
	mux, _ := newMux(server, catalog, con, cfg, logger)
	srv := newHTTPServer(mux)
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Fprintf(os.Stderr, "codeserver: serving MCP at %s\n", url)
	fmt.Fprintf(os.Stderr, "codeserver: %s\n", grantsNote(cfg))
	fmt.Fprintf(os.Stderr, "codeserver: operator console at http://%s/console/%s\n", ln.Addr(), consoleHint(cfg.token))
	fmt.Fprintf(os.Stderr, "try:\n  npx @modelcontextprotocol/inspector --cli %s --transport http --method tools/call --tool-name code_search --tool-arg query=ServeHTTP%s\n", url, authFlag(cfg.token, true))
	fmt.Fprintf(os.Stderr, "  curl -s %s -H 'Content-Type: application/json'%s -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}'\n", url, authFlag(cfg.token, false))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdown)
	}
}

func authFlag(token string, inspector bool) string {
	switch {
	case token == "":
		return ""
	case inspector:
		return ` --header "Authorization: Bearer ` + token + `"`
	default:
		return ` -H 'Authorization: Bearer ` + token + `'`
	}
}

func caller() mcp.Caller {
	return mcp.Caller{Principal: "local", Grants: grants}
}

// anonymous is the caller of a request without a token.
func anonymous(cfg config) mcp.Caller {
	return mcp.Caller{Principal: "anonymous", Grants: callerGrants(cfg)}
}

// newServer builds the MCP server: the catalog over the snapshot snap
// (the embedded one; tests pass one they generate), the code tools, the
// enquiry tools, the runtime tools and the example tools. It returns the
// catalog too, for the HTTP routes, and the operator console, which
// records every request and lets auth's callers see it.
func newServer(logger *slog.Logger, snap fs.FS, auth mcp.Authenticator) (*mcp.Server, *codetools.Catalog, *console.Console, error) {
	ts := mcp.NewToolSet()
	if err := registerExamples(ts); err != nil {
		return nil, nil, nil, err
	}
	catalog := codetools.NewCatalog(&codetools.Options{Snapshot: snap, Server: "codeserver", Logger: logger})
	go catalog.Warm(context.Background()) // build now; it logs its cost
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := registerEnquiry(ts); err != nil {
		return nil, nil, nil, err
	}
	logger, err := registerRuntime(ts, logger, snap, catalog)
	if err != nil {
		return nil, nil, nil, err
	}
	store := tasks.NewMemoryStore(nil)
	con, err := newConsole(ts, store, auth, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{
		Name:         "codeserver",
		Title:        "embedmcp code server",
		Version:      "0.1.0",
		Instructions: "This server can show you its own Go code. Use code_search to find ids, code_definition to read them, code_references to follow calls and uses, code_file to read files, the runtime_* tools to see inside the running process, and tool_detail to find the right tool.",
		Logger:       logger,
		CallTimeout:  30 * time.Second,
		Middleware:   []mcp.Middleware{con.Record},
		Tasks:        mcp.TaskOptions{Store: store},
	}), catalog, con, nil
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

// newMux mounts the MCP handler at /mcp.
func newMux(server *mcp.Server, catalog *codetools.Catalog, con *console.Console, cfg config, logger *slog.Logger) (http.Handler, *mcp.Handler) {
	mux := codetools.NewServeMux(catalog, nil) // adds its routes to the catalog: code_search "/mcp" finds the handler
	handler := mcp.NewHandler(server, &mcp.HandlerOptions{Authenticator: authenticator(cfg), Logger: logger})
	mux.Handle("/mcp", handler)
	mux.Handle("/console/", http.StripPrefix("/console", con)) // the operator console, behind the same Authenticator
	return mux, handler
}
