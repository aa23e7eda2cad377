package mcp_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

func TestOrigin(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, &mcp.HandlerOptions{AllowedOrigins: []string{"https://App.Example.com/", "http://tools.example.org:8443"}})
	tests := []struct {
		origin, host string
		ok, cors     bool
	}{
		{"", "mcp.example.com", true, false},
		{"https://mcp.example.com", "mcp.example.com", true, false},     // same-origin
		{"https://mcp.example.com", "mcp.example.com:443", true, false}, // same-origin, default port
		{"http://mcp.example.com:8080", "mcp.example.com:8080", true, false},
		{"http://localhost:6274", "mcp.example.com", true, true},
		{"http://127.0.0.1:3000", "mcp.example.com", true, true},
		{"http://[::1]:3000", "mcp.example.com", true, true},
		{"https://app.example.com", "mcp.example.com", true, true},
		{"https://app.example.com:443", "mcp.example.com", true, true},
		{"http://tools.example.org:8443", "mcp.example.com", true, true},
		{"https://evil.example", "mcp.example.com", false, false},
		{"https://app.example.com.evil.example", "mcp.example.com", false, false},
		{"http://app.example.com", "mcp.example.com", false, false}, // scheme differs
		{"http://tools.example.org", "mcp.example.com", false, false},
		{"https://mcp.example.com:8443", "mcp.example.com", false, false},
		{"null", "mcp.example.com", false, false},
		{"file://localhost", "mcp.example.com", false, false},
		{"http://localhost.evil.example", "mcp.example.com", false, false},
	}
	for i, tc := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			r := newPost(echoBody)
			r.Host = tc.host
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			w := serve(h, r)
			if !tc.ok {
				wantRPCError(t, w, http.StatusForbidden, mcp.CodeInvalidRequest, "origin", tc.origin)
				return
			}
			if w.Code != http.StatusOK {
				t.Errorf("Origin %q, Host %q: %d %s", tc.origin, tc.host, w.Code, w.Body)
				return
			}
			acao := w.Header().Get("Access-Control-Allow-Origin")
			if want := map[bool]string{true: tc.origin, false: ""}[tc.cors]; acao != want {
				t.Errorf("Origin %q: Access-Control-Allow-Origin %q", tc.origin, acao)
			}
		})
	}
}

func TestOriginWildcard(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, &mcp.HandlerOptions{AllowedOrigins: []string{"*"}})
	r := newPost(echoBody)
	r.Header.Set("Origin", "https://anything.example")
	if w := serve(h, r); w.Code != 200 || w.Header().Get("Access-Control-Allow-Origin") != "https://anything.example" {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
}

// onListener marks r as received on a listener at addr, as net/http does.
func onListener(r *http.Request, addr string) *http.Request {
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		panic(err)
	}
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, a))
}

func TestHostCheck(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, &mcp.HandlerOptions{AllowedHosts: []string{"mcp.internal", "[fd00::1]"}})
	tests := []struct {
		local, host string
		ok          bool
	}{
		{"127.0.0.1:8080", "localhost:8080", true},
		{"127.0.0.1:8080", "LOCALHOST", true},
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", "127.1.2.3", true},
		{"[::1]:8080", "[::1]:8080", true},
		{"[::1]:8080", "app.localhost:8080", true},
		{"127.0.0.1:8080", "mcp.internal:9000", true}, // configured
		{"127.0.0.1:8080", "[fd00::1]:80", true},      // configured
		{"127.0.0.1:8080", "attacker.example:8080", false},
		{"127.0.0.1:8080", "attacker.example", false},
		{"127.0.0.1:8080", "localhost.attacker.example", false},
		{"[::1]:8080", "192.168.1.10:8080", false},
		{"10.0.0.5:8080", "attacker.example", true}, // not a loopback listener
	}
	for i, tc := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			r := onListener(newPost(echoBody), tc.local)
			r.Host = tc.host
			w := serve(h, r)
			if tc.ok && w.Code != http.StatusOK {
				t.Errorf("listener %s, Host %q: %d %s", tc.local, tc.host, w.Code, w.Body)
			}
			if !tc.ok {
				wantRPCError(t, w, http.StatusForbidden, mcp.CodeInvalidRequest, "Host", "DNS rebinding")
			}
		})
	}
	// "*" turns the check off.
	r := onListener(newPost(echoBody), "127.0.0.1:1")
	r.Host = "attacker.example"
	if w := serve(mcp.NewHandler(p, &mcp.HandlerOptions{AllowedHosts: []string{"*"}}), r); w.Code != 200 {
		t.Fatalf("AllowedHosts *: %d", w.Code)
	}
}

// TestDNSRebinding replays a rebinding attack against a real loopback
// listener: the attacker's page is same-origin with its own Host.
func TestDNSRebinding(t *testing.T) {
	p, _ := testProtocol(t, nil)
	srv := httptest.NewServer(mcp.NewHandler(p, nil))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(echoBody))
	req.Host = "attacker.example:" + srv.Listener.Addr().(*net.TCPAddr).AddrPort().String()[len("127.0.0.1:"):]
	req.Header.Set("Origin", "http://"+req.Host)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("rebinding request answered %d, want 403", resp.StatusCode)
	}
	// The same request under the real name passes.
	req, _ = http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(echoBody))
	req.Header.Set("Origin", srv.URL)
	req.Header.Set("Content-Type", "application/json")
	resp, err = srv.Client().Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("loopback request answered %d, want 200", resp.StatusCode)
	}
}

func TestCORSPreflight(t *testing.T) {
	p, _ := testProtocol(t, nil)
	h := mcp.NewHandler(p, &mcp.HandlerOptions{AllowedOrigins: []string{"https://app.example.com"}})
	preflight := func(origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodOptions, "/mcp", nil)
		r.Host = "mcp.example.com"
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		r.Header.Set("Access-Control-Request-Method", "POST")
		r.Header.Set("Access-Control-Request-Headers", "content-type, authorization, mcp-protocol-version")
		return serve(h, r)
	}
	w := preflight("https://app.example.com")
	if w.Code != http.StatusNoContent {
		t.Fatalf("preflight: %d", w.Code)
	}
	for k, want := range map[string]string{
		"Access-Control-Allow-Origin":  "https://app.example.com",
		"Access-Control-Allow-Methods": "POST",
		"Access-Control-Allow-Headers": "content-type, authorization, mcp-protocol-version",
	} {
		if got := w.Header().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	wantRPCError(t, preflight("https://evil.example"), http.StatusForbidden, mcp.CodeInvalidRequest)
	if w := preflight(""); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("OPTIONS without Origin: %d, want 405", w.Code)
	}
}

// TestOriginStrict: an Origin is scheme://host[:port] and nothing else, as
// browsers send it. Anything else (userinfo, a path, junk after an IPv6
// literal, a bad port, two Origin headers) is refused, under the default
// policy and under "*" alike, and never echoed into
// Access-Control-Allow-Origin.
func TestOriginStrict(t *testing.T) {
	p, _ := testProtocol(t, nil)
	bad := []string{
		"http://127.0.0.1:19101@evil.com",
		"http://localhost@evil.com",
		"http://user:pass@localhost:3000",
		"http://[::1]evil.com",
		"http://[::1]:3000evil",
		"http://[::1",
		"http://[evil.com]",
		"http://localhost/",
		"http://localhost:3000/path",
		"http://localhost?x=1",
		"http://localhost#x",
		"http://localhost:",
		"http://localhost:99999",
		"http://localhost:3000:3000",
		"http://localhost:+80",
		"http://",
		"http:/localhost",
		"//localhost",
		"localhost",
		"http://local host",
		"http://localhost\\@evil.com",
		"http://loc%61lhost",
		"1http://localhost",
	}
	for _, origins := range [][]string{nil, {"*"}} {
		h := mcp.NewHandler(p, &mcp.HandlerOptions{AllowedOrigins: origins})
		for _, origin := range bad {
			r := newPost(echoBody)
			r.Header.Set("Origin", origin)
			w := serve(h, r)
			if w.Code != http.StatusForbidden || w.Header().Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("AllowedOrigins %q, Origin %q: %d, Access-Control-Allow-Origin %q", origins, origin, w.Code,
					w.Header().Get("Access-Control-Allow-Origin"))
			}
		}
		r := newPost(echoBody)
		r.Header["Origin"] = []string{"http://localhost:3000", "https://evil.example"}
		if w := serve(h, r); w.Code != http.StatusForbidden {
			t.Errorf("AllowedOrigins %q, two Origin headers: %d", origins, w.Code)
		}
		// Well-formed origins still pass.
		for _, origin := range []string{"http://localhost:3000", "http://[::1]:3000", "HTTP://LOCALHOST", "http://127.0.0.1"} {
			r := newPost(echoBody)
			r.Header.Set("Origin", origin)
			if w := serve(h, r); w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != origin {
				t.Errorf("AllowedOrigins %q, Origin %q: %d, Access-Control-Allow-Origin %q", origins, origin, w.Code,
					w.Header().Get("Access-Control-Allow-Origin"))
			}
		}
	}
}

// TestAllowedOriginsInvalid: a configured origin that is not one is
// ignored with a warning, not half-matched.
func TestAllowedOriginsInvalid(t *testing.T) {
	p, _ := testProtocol(t, nil)
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	h := mcp.NewHandler(p, &mcp.HandlerOptions{Logger: logger,
		AllowedOrigins: []string{"https://app.example.com/mcp", "https://ok.example.com/"}})
	if !strings.Contains(logs.String(), "https://app.example.com/mcp") || strings.Contains(logs.String(), "ok.example.com") {
		t.Errorf("log: %s", logs.String())
	}
	for origin, want := range map[string]int{"https://app.example.com": 403, "https://ok.example.com": 200} {
		r := newPost(echoBody)
		r.Header.Set("Origin", origin)
		if w := serve(h, r); w.Code != want {
			t.Errorf("Origin %q: %d, want %d", origin, w.Code, want)
		}
	}
}
