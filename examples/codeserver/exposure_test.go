package main

import (
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

func startExposed(t *testing.T, token string) string {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := config{token: token, exposed: true}
	server, catalog, con, err := newServer(logger, os.DirFS(snapshotDir(t)), authenticator(cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = con.Close() })
	mux, _ := newMux(server, catalog, con, cfg, logger)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func toolNames(t *testing.T, url, token string) []string {
	t.Helper()
	_, out := post(t, url, token, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var names []string
	for _, tool := range out["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	return names
}

// TestExposedListenerGrantsNoDiagnostics: on a listener that is not
// loopback and without -token, anonymous callers get the demo tools and
// none of the diagnostics; with -token, the token holder gets them all.
func TestExposedListenerGrantsNoDiagnostics(t *testing.T) {
	url := startExposed(t, "")
	names := toolNames(t, url, "")
	if !contains(names, "echo") {
		t.Errorf("anonymous, exposed: no echo in %v", names)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "runtime_") || strings.HasPrefix(n, "code_") {
			t.Errorf("anonymous, exposed: %s is listed", n)
		}
	}
	status, out := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runtime_goroutines","arguments":{"states":true}}}`)
	if status == 200 && out["error"] == nil {
		t.Errorf("anonymous, exposed: runtime_goroutines answered: %v", out)
	}
	withToken := startExposed(t, "s3cret")
	if names := toolNames(t, withToken, "s3cret"); !contains(names, "runtime_goroutines") || !contains(names, "code_search") {
		t.Errorf("token holder, exposed: %v", names)
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.9.9.9:1": true, "[::1]:8080": true, "[::ffff:127.0.0.1]:80": true,
		"0.0.0.0:8080": false, "[::]:8080": false, "192.0.2.7:8080": false, "[2001:db8::1]:80": false,
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := isLoopback(a); got != want {
			t.Errorf("isLoopback(%s) = %v, want %v", addr, got, want)
		}
	}
	for cfg, want := range map[config]string{
		{}:                               "anonymous callers get diagnostics.* and demo.*",
		{exposed: true}:                  "anonymous callers get demo.* only",
		{exposed: true, token: "secret"}: "callers with the -token bearer token",
	} {
		if got := grantsNote(cfg); !strings.Contains(got, want) {
			t.Errorf("grantsNote(%+v) = %q", cfg, got)
		}
	}
}
