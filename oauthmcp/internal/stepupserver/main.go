// Command stepupserver is the MCP server of the OAuth suite
// (scripts/test.d/oauth.sh): two tools behind oauthmcp, with the
// insufficient_scope challenge on, for a real authorization server and a
// real MCP client to exercise. It prints "listening on <URL>" once it
// serves, and logs every refusal on stderr.
//
//	stepupserver -addr 127.0.0.1:8080 -issuer http://127.0.0.1:4444
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
	"github.com/embedmcp/mcp/oauthmcp"
)

// scopes: notes:read stands for reading and searching, notes:write for
// writing, notes for everything about notes.
var scopes = oauthmcp.ScopeMap{
	"notes:read":  {"notes.read", "notes.search"},
	"notes:write": {"notes.write"},
	"notes":       {"notes.*"},
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	issuer := flag.String("issuer", "", "the authorization server's issuer URL (required)")
	typJWT := flag.Bool("accept-typ-jwt", false, `accept access tokens whose typ header is "JWT" (Ory Hydra's)`)
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := run(*addr, *issuer, *typJWT, logger); err != nil {
		fmt.Fprintln(os.Stderr, "stepupserver:", err)
		os.Exit(1)
	}
}

func run(addr, issuer string, typJWT bool, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	resource := base + "/mcp"
	opts := oauthmcp.Options{Issuer: issuer, Resource: resource, Scopes: scopes, Logger: logger,
		MinRefreshInterval: time.Second}
	if typJWT {
		opts.TokenTypes = []string{"at+jwt", "application/at+jwt", "JWT"}
	}
	v, err := oauthmcp.New(&opts)
	if err != nil {
		return err
	}
	server, err := newServer()
	if err != nil {
		return err
	}
	const prm = "/.well-known/oauth-protected-resource"
	md := mcp.ProtectedResourceMetadata(mcp.ResourceMetadata{Resource: resource, AuthorizationServers: []string{issuer},
		ScopesSupported: scopes.Supported(), ResourceName: "notes"})
	handler := mcp.NewHandler(server, &mcp.HandlerOptions{
		Authenticator:       v.Authenticator(),
		ScopeChallenge:      scopes.Challenge,
		ResourceMetadataURL: base + prm + "/mcp",
		// A 401 asks for reading only; writing is asked for by the
		// insufficient_scope challenge of the first call that needs it.
		Scopes: []string{"notes:read"},
		Logger: logger,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mux.Handle("GET "+prm+"/mcp", md)
	mux.Handle("GET "+prm, md)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Println("listening on", resource)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

type note struct {
	Text string `json:"text" jsonschema:"the note"`
}

type result struct {
	Caller string `json:"caller"`
	Note   string `json:"note"`
}

func newServer() (*mcp.Server, error) {
	ts := mcp.NewToolSet()
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "notes_read", Description: "Read the last note.", Permission: "notes.read"},
		func(_ context.Context, req *mcp.Request, _ struct{}) (result, error) {
			return result{Caller: req.Caller.Principal, Note: "the last note"}, nil
		}); err != nil {
		return nil, err
	}
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "notes_write", Description: "Write a note.", Permission: "notes.write"},
		func(_ context.Context, req *mcp.Request, in note) (result, error) {
			return result{Caller: req.Caller.Principal, Note: "written: " + in.Text}, nil
		}); err != nil {
		return nil, err
	}
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), nil
}
