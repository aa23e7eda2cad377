package console

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPagesRender: every page answers 200 with HTML under a CSP whose
// nonce is the one the page's style and script carry, shows what it is
// for, and links relatively (so that it works under any prefix).
func TestPagesRender(t *testing.T) {
	f := newFixture(t)
	f.callTool(operatorToken, "echo", `{"text":"hi"}`)
	for path, want := range map[string][]string{
		"":        {"echo", "Echoes its text.", "demo.echo", "For smoke tests.", `echo {&#34;text&#34;:&#34;hi&#34;}`, "read-only", "not open-world", "required", "the text to echo", "fail", "slow"},
		"calls":   {"Requests per minute", "<polyline", "tools/call", "olga", "<td>20"},
		"tasks":   {"Tasks", "No task."},
		"process": {"Goroutines", "Heap", "Longest GC pause", "Requests per second", "profile?kind=heap"},
	} {
		p := f.get(path, bearer(operatorToken))
		if p.status != 200 || !strings.HasPrefix(p.header.Get("Content-Type"), "text/html") {
			t.Fatalf("%q: %d %s", path, p.status, p.body)
		}
		csp := p.header.Get("Content-Security-Policy")
		m := regexp.MustCompile(`script-src 'nonce-([A-Za-z0-9_-]+)'`).FindStringSubmatch(csp)
		if m == nil || !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe") {
			t.Fatalf("%q: CSP %q", path, csp)
		}
		if !strings.Contains(p.body, `<script nonce="`+m[1]+`">`) || !strings.Contains(p.body, `<style nonce="`+m[1]+`">`) {
			t.Errorf("%q: the script or style does not carry the CSP's nonce", path)
		}
		if strings.Contains(p.body, " style=") || strings.Contains(p.body, "http://") || strings.Contains(p.body, "https://") {
			t.Errorf("%q: an inline style attribute or an external URL", path)
		}
		if strings.Contains(p.body, `href="/`) || strings.Contains(p.body, `action="/`) {
			t.Errorf("%q: an absolute link breaks under a prefix", path)
		}
		for _, w := range want {
			if !strings.Contains(p.body, w) {
				t.Errorf("%q lacks %q", path, w)
			}
		}
		if p.header.Get("X-Frame-Options") != "DENY" || p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%q: headers %v", path, p.header)
		}
	}
	// Nonces differ from answer to answer.
	a, b := f.get("", bearer(operatorToken)), f.get("", bearer(operatorToken))
	if a.header.Get("Content-Security-Policy") == b.header.Get("Content-Security-Policy") {
		t.Error("two answers share a nonce")
	}
}

// TestAccess: no credentials or a wrong token get 401 with a Basic
// challenge (browsers then ask); a caller without diagnostics.console.read
// gets 403; bearer, Basic and the session cookie set after Basic all work,
// and a forged or expired cookie does not.
func TestAccess(t *testing.T) {
	f := newFixture(t)
	for _, auth := range []string{"", bearer("wrong"), basic("wrong"), "Basic !!!"} {
		p := f.get("", auth)
		if p.status != 401 || !strings.HasPrefix(p.header.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("auth %q: %d %v", auth, p.status, p.header.Get("WWW-Authenticate"))
		}
	}
	for _, path := range []string{"", "calls", "tasks", "process", "profile?kind=heap", "nowhere"} {
		if p := f.get(path, bearer(userToken)); p.status != 403 {
			t.Errorf("%q without %s: %d", path, PermissionRead, p.status)
		}
	}
	if p := f.get("", bearer(readerToken)); p.status != 200 || len(p.header.Values("Set-Cookie")) != 0 {
		t.Errorf("bearer: %d, cookies %v", p.status, p.header.Values("Set-Cookie"))
	}
	p := f.get("calls", basic(readerToken))
	if p.status != 200 {
		t.Fatalf("basic: %d", p.status)
	}
	var session *http.Cookie
	for _, c := range (&http.Response{Header: p.header}).Cookies() {
		if c.Name == sessionCookie {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Path != "/console/" {
		t.Fatalf("session cookie %+v", session)
	}
	if strings.Contains(session.Value, readerToken) {
		t.Error("the cookie shows the token")
	}
	if p := f.get("tasks", "", session); p.status != 200 || !strings.Contains(p.body, "rita") {
		t.Errorf("cookie: %d", p.status)
	}
	forged := *session
	forged.Value = session.Value[:len(session.Value)-2] + "AA"
	if p := f.get("", "", &forged); p.status != 401 {
		t.Errorf("forged cookie: %d", p.status)
	}
	f.console.now = func() time.Time { return time.Now().Add(DefaultSessionTTL + time.Minute) }
	if p := f.get("", "", session); p.status != 401 {
		t.Errorf("expired cookie: %d", p.status)
	}
}

// TestBadInput: unknown paths 404, wrong methods 405, and every bad form
// value 400 with its reason, the value not echoed unbounded.
func TestBadInput(t *testing.T) {
	f := newFixture(t)
	for path, status := range map[string]int{
		"nowhere": 404, "tools/echo": 404, "calls/": 404,
		"calls?limit=abc": 400, "calls?limit=0": 400, "calls?limit=1001": 400, "calls?outcome=bogus": 400,
		"calls?method=evil": 400, "calls?tool=" + strings.Repeat("x", 200): 400, "calls?tool=a%00b": 400,
		"calls?limit=1&limit=2": 400, "calls?" + strings.Repeat("zz", 10): 400,
		"?grants=bad%3Cchar": 400, "?grants=" + strings.Repeat("a+", 65): 400, "?q=%ff": 400,
		"tasks?status=done": 400, "tasks?limit=-1": 400, "tasks?cancelled=..": 400, "process?x=1": 400,
		"profile?kind=bogus": 400, "profile?kind=heap&seconds=1": 400,
		"calls?limit=5&outcome=failed&method=tools/call": 200, "?grants=demo.*+x:y&as=bob": 200,
	} {
		p := f.get(path, bearer(operatorToken))
		if p.status != status {
			t.Errorf("%q: %d, want %d: %s", path, p.status, status, p.body)
			continue
		}
		if status == 400 && (!strings.HasPrefix(p.body, "400 bad request: ") || len(p.body) > 300) {
			t.Errorf("%q: reason %q", path, p.body)
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		if p := f.do(m, "calls", bearer(operatorToken), nil); p.status != 405 {
			t.Errorf("%s calls: %d", m, p.status)
		}
	}
	if p := f.get("cancel", bearer(operatorToken)); p.status != 405 {
		t.Errorf("GET cancel: %d", p.status)
	}
}

// TestCallsRecorded: a request to /mcp shows on the Calls page with its
// principal, method, tool, revision and outcome; filters select; a tool
// name a client made up is not kept.
func TestCallsRecorded(t *testing.T) {
	f := newFixture(t)
	f.callTool(readerToken, "echo", `{"text":"hello"}`)
	f.callTool(userToken, "fail", `{}`)
	f.callTool(userToken, "made-up-tool-name", `{}`)
	f.mcpCall(userToken, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`)

	p := f.get("calls", bearer(operatorToken))
	rows := regexp.MustCompile(`(?s)<tbody><tr.*?</tbody>`).FindAllString(p.body, -1)
	if len(rows) != 2 {
		t.Fatalf("%d tables with rows", len(rows))
	}
	calls := rows[1]
	for _, w := range []string{"rita", "ulf", "<code>echo</code>", "<code>fail</code>", "tool_error", "tools/list", "<td>20"} {
		if !strings.Contains(calls, w) {
			t.Errorf("calls table lacks %q", w)
		}
	}
	if strings.Contains(p.body, "made-up-tool-name") {
		t.Error("a made-up tool name is shown")
	}
	if strings.Count(calls, "<tr") != 4 {
		t.Errorf("%d rows, want 4", strings.Count(calls, "<tr"))
	}
	p = f.get("calls?outcome=failed&principal=ulf", bearer(operatorToken))
	if rows := regexp.MustCompile(`(?s)<table class="calls".*?</table>`).FindString(p.body); strings.Count(rows, "<tr") != 3 || strings.Contains(rows, "rita") {
		t.Errorf("filtered: %s", rows)
	}
	p = f.get("calls?tool=echo", bearer(operatorToken))
	if rows := regexp.MustCompile(`(?s)<table class="calls".*?</table>`).FindString(p.body); strings.Count(rows, "<tr") != 2 {
		t.Errorf("tool filter: %s", rows)
	}
}

// TestWhoMayCall: the preview shows the Authorizer's answer for the
// grants typed, tool by tool.
func TestWhoMayCall(t *testing.T) {
	f := newFixture(t)
	p := f.get("?as=bob&grants=demo.echo,+demo.fail", bearer(readerToken))
	if !strings.Contains(p.body, "may call <b>2</b> of these 3 tools") {
		t.Errorf("preview: %s", regexp.MustCompile(`(?s)<p class="notice".*?</p>`).FindString(p.body))
	}
	yes := regexp.MustCompile(`(?s)<tr id="tool-(\w+)">\s*<td><span class="yes">`).FindAllStringSubmatch(p.body, -1)
	var names []string
	for _, m := range yes {
		names = append(names, m[1])
	}
	if strings.Join(names, ",") != "echo,fail" {
		t.Errorf("allowed %v", names)
	}
	if p := f.get("?grants=", bearer(readerToken)); !strings.Contains(p.body, "may call <b>0</b>") {
		t.Error("no grants: some tool allowed")
	}
}

// TestDNSRebinding: on a loopback listener, a Host that is not a loopback
// name (a rebound DNS name) is refused before anything else, unless
// allowed.
func TestDNSRebinding(t *testing.T) {
	f := newFixture(t)
	for host, want := range map[string]int{"evil.example": 403, "evil.example:80": 403, "localhost": 200, "app.localhost:1": 200, "[::1]:8080": 200} {
		req, _ := http.NewRequest("GET", f.srv.URL+"/console/", nil)
		req.Host = host
		req.Header.Set("Authorization", bearer(operatorToken))
		if got := doRequest(t, req); got != want {
			t.Errorf("Host %q: %d, want %d", host, got, want)
		}
	}
	req := httptest.NewRequest("GET", "/", nil) // no local address: not a loopback listener
	req.Host = "evil.example"
	if !hostAllowed(req, nil) {
		t.Error("a request off a loopback listener is refused for its Host")
	}
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}))
	if hostAllowed(req, nil) || !hostAllowed(req, map[string]bool{"evil.example": true}) || !hostAllowed(req, map[string]bool{"*": true}) {
		t.Error("AllowedHosts not applied")
	}
}
