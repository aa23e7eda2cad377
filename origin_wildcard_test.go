package mcp_test

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestHostWildcard: "*.example.com" in AllowedHosts accepts one label in
// front of example.com, never example.com itself, deeper names, or a bare
// suffix match; patterns with the "*" elsewhere or over a top-level domain
// are ignored with a warning.
func TestHostWildcard(t *testing.T) {
	p, _ := testProtocol(t, nil)
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	h := mcp.NewHandler(p, &mcp.HandlerOptions{Logger: logger,
		AllowedHosts: []string{"*.Example.com", "mcp.internal.", "*.com", "a*.example.org", "*.*.example.net", "example.*"}})
	tests := []struct {
		host string
		ok   bool
	}{
		{"api.example.com", true},
		{"API.EXAMPLE.COM:8443", true},
		{"api.example.com.", true},
		{"x_1.example.com", true},
		{"mcp.internal", true}, // a name with a trailing dot in the configuration
		{"example.com", false},
		{"a.b.example.com", false},
		{"evilexample.com", false},
		{"api.evilexample.com", false},
		{"example.com.attacker.example", false},
		{"-x.example.com", false},
		{"attacker.com", false},   // "*.com" is ignored
		{"ab.example.org", false}, // "a*" is no label wildcard
		{"a.b.example.net", false},
		{"example.org", false},
	}
	for i, tc := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			r := onListener(newPost(echoBody), "127.0.0.1:8080")
			r.Host = tc.host
			w := serve(h, r)
			if tc.ok && w.Code != http.StatusOK {
				t.Errorf("Host %q: %d %s", tc.host, w.Code, w.Body)
			}
			if !tc.ok {
				wantRPCError(t, w, http.StatusForbidden, mcp.CodeInvalidRequest, "Host", "DNS rebinding")
			}
		})
	}
	for _, bad := range []string{"*.com", "a*.example.org", "*.*.example.net", "example.*"} {
		if !strings.Contains(logs.String(), "host="+bad) {
			t.Errorf("no warning for the pattern %q in %s", bad, logs.String())
		}
	}
	if strings.Contains(logs.String(), "host=*.Example.com") {
		t.Errorf("a valid pattern was warned about: %s", logs.String())
	}
}

// TestHostRefusalNamesTheListener: the 403 names the loopback address the
// request arrived on, and the server's own address when it listens on
// another (0.0.0.0, or a port alone), not "a loopback listener" in general.
func TestHostRefusalNamesTheListener(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, nil)
	for i, tc := range []struct {
		serverAddr string
		want       []string
		not        string
	}{
		{"0.0.0.0:8080", []string{`Host \"attacker.example\"`, "arrived on the loopback address 127.0.0.1:8080", "server listening on 0.0.0.0:8080"}, ""},
		{":8080", []string{"127.0.0.1:8080", "server listening on :8080"}, ""},
		{"127.0.0.1:8080", []string{"arrived on the loopback address 127.0.0.1:8080"}, "server listening on"},
		{"", []string{"arrived on the loopback address 127.0.0.1:8080", "AllowedHosts"}, "server listening on"},
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			r := onListener(newPost(echoBody), "127.0.0.1:8080")
			r = r.WithContext(context.WithValue(r.Context(), http.ServerContextKey, &http.Server{Addr: tc.serverAddr}))
			r.Host = "attacker.example"
			w := serve(h, r)
			body := w.Body.String()
			if w.Code != http.StatusForbidden {
				t.Fatalf("server %q: %d %s", tc.serverAddr, w.Code, body)
			}
			for _, want := range tc.want {
				if !strings.Contains(body, want) {
					t.Errorf("server %q: the refusal %s lacks %q", tc.serverAddr, body, want)
				}
			}
			if tc.not != "" && strings.Contains(body, tc.not) {
				t.Errorf("server %q: the refusal %s says %q", tc.serverAddr, body, tc.not)
			}
			if strings.Contains(body, "loopback listener") {
				t.Errorf("server %q: the refusal still speaks of a loopback listener: %s", tc.serverAddr, body)
			}
		})
	}
}
