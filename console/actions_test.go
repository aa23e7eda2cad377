package console

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// csrfOf returns the CSRF token of the first cancel form of a Tasks page.
func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no cancel form with a CSRF token")
	}
	return m[1]
}

// TestCancelTask: the Tasks page lists a running task with its owner and
// no argument; a reader sees no cancel form and cannot cancel; a POST
// without a valid CSRF token, cross-origin, or with a bad id changes
// nothing; the operator's cancel ends the tool's context and the task.
func TestCancelTask(t *testing.T) {
	f := newFixture(t)
	id := f.startTask(userToken)

	p := f.get("tasks", bearer(readerToken))
	if !strings.Contains(p.body, id) || !strings.Contains(p.body, "working") || !strings.Contains(p.body, "ulf") || !strings.Contains(p.body, "<code>slow</code>") {
		t.Fatalf("tasks page lacks the task")
	}
	if strings.Contains(p.body, "<form method=\"post\"") || strings.Contains(p.body, "task-arg-value") {
		t.Error("a reader sees a cancel form, or the task's arguments")
	}
	if r := f.do("POST", "cancel", bearer(readerToken), map[string]string{"id": id, "csrf": "x"}); r.status != 403 {
		t.Errorf("reader's cancel: %d", r.status)
	}

	p = f.get("tasks", bearer(operatorToken))
	token := csrfOf(t, p.body)
	for _, form := range []map[string]string{
		{"id": id},
		{"id": id, "csrf": "forged"},
		{"id": id, "csrf": f.console.keys.csrfToken(mcp.Caller{Principal: "rita"}, time.Now())}, // another caller's
		{"id": id, "csrf": f.console.keys.csrfToken(mcp.Caller{Principal: "olga"}, time.Now().Add(-13*time.Hour))},
	} {
		if r := f.do("POST", "cancel", bearer(operatorToken), form); r.status != 403 {
			t.Errorf("cancel with %v: %d", form, r.status)
		}
	}
	if r := f.do("POST", "cancel", bearer(operatorToken), map[string]string{"id": "not/an/id", "csrf": token}); r.status != 400 {
		t.Errorf("bad id: %d", r.status)
	}
	if r := f.do("POST", "cancel", bearer(operatorToken), map[string]string{"id": "AAAAAAAAAAAAAAAAAAAAAA", "csrf": token}); r.status != 404 {
		t.Errorf("unknown id: %d", r.status)
	}
	if rec, err := f.store.Get(context.Background(), id); err != nil || rec.Status != tasks.Working {
		t.Fatalf("refused requests changed the task: %v %v", rec.Status, err)
	}
	select {
	case err := <-f.stopped:
		t.Fatalf("the tool stopped: %v", err)
	default:
	}

	r := f.do("POST", "cancel", bearer(operatorToken), map[string]string{"id": id, "csrf": token})
	if r.status != 303 || r.header.Get("Location") != "tasks?cancelled="+id {
		t.Fatalf("cancel: %d %v", r.status, r.header)
	}
	select {
	case err := <-f.stopped:
		if err == nil {
			t.Error("the tool's context has no cause")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the tool's context was not cancelled")
	}
	rec, err := f.store.Get(context.Background(), id)
	if err != nil || rec.Status != tasks.Cancelled || !strings.Contains(rec.StatusMessage, "olga") {
		t.Fatalf("task after cancel: %+v %v", rec, err)
	}
	if r := f.do("POST", "cancel", bearer(operatorToken), map[string]string{"id": id, "csrf": token}); r.status != 409 {
		t.Errorf("second cancel: %d", r.status)
	}
	p = f.get("tasks?cancelled="+id, bearer(operatorToken))
	if !strings.Contains(p.body, "was cancelled") || !strings.Contains(p.body, "Cancelled by an operator (olga)") {
		t.Error("the Tasks page does not show the cancellation")
	}
	if p := f.get("tasks?status=working", bearer(operatorToken)); strings.Contains(p.body, id) {
		t.Error("status filter shows a cancelled task as working")
	}
}

// TestCancelCrossOrigin: a browser's cross-site POST is refused even with
// a valid token.
func TestCancelCrossOrigin(t *testing.T) {
	f := newFixture(t)
	id := f.startTask(userToken)
	token := csrfOf(t, f.get("tasks", bearer(operatorToken)).body)
	for _, h := range [][2]string{{"Origin", "https://evil.example"}, {"Origin", "null"}, {"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Site", "same-site"}} {
		req := newFormRequest(t, f.srv.URL+"/console/cancel", "id="+id+"&csrf="+token)
		req.Header.Set("Authorization", bearer(operatorToken))
		req.Header.Set(h[0], h[1])
		if resp := doRequest(t, req); resp != 403 {
			t.Errorf("%s: %s → %d", h[0], h[1], resp)
		}
	}
	if rec, _ := f.store.Get(context.Background(), id); rec.Status != tasks.Working {
		t.Error("a cross-origin request cancelled the task")
	}
}

// TestNoLeak: no page shows argument values, tokens or task arguments,
// whatever was called.
func TestNoLeak(t *testing.T) {
	f := newFixture(t)
	secrets := []string{"arg-value-0123", "task-arg-value", operatorToken, readerToken, userToken}
	f.callTool(userToken, "echo", `{"text":"arg-value-0123"}`)
	f.callTool(userToken, "echo", `{"text":5, "other":"arg-value-0123"}`) // invalid: the error names the argument
	f.callTool(userToken, "arg-value-0123", `{}`)
	f.startTask(userToken)
	var seen int
	for _, path := range []string{"", "calls", "calls?outcome=error", "tasks", "process", "?grants=demo.*"} {
		for _, auth := range []string{bearer(operatorToken), basic(readerToken)} {
			p := f.get(path, auth)
			if p.status != 200 {
				t.Fatalf("%q: %d", path, p.status)
			}
			seen += strings.Count(p.body, "<tr")
			for _, s := range secrets {
				if strings.Contains(p.body, s) || strings.Contains(strings.Join(p.header.Values("Set-Cookie"), ";"), s) {
					t.Errorf("%q shows %q", path, s)
				}
			}
		}
	}
	if seen < 10 {
		t.Errorf("the pages show %d rows: the test saw nothing", seen)
	}
}

// TestRecordAllocatesNothing: once a tool has statistics, Record adds no
// allocation to a request: a Server answering a tools/call through it
// allocates as often as through a Middleware that does nothing.
func TestRecordAllocatesNothing(t *testing.T) {
	c, _, _ := benchConsole(t, 1)
	ctx := context.Background()
	caller := mcp.Caller{Principal: "bench"}
	allocs := func(mw mcp.Middleware) float64 {
		server := mcp.NewServer(c.reg, mcp.AllowAll(), &mcp.Options{Middleware: []mcp.Middleware{mw}})
		server.Handle(ctx, caller, callBody)
		return testing.AllocsPerRun(500, func() { server.Handle(ctx, caller, callBody) })
	}
	base, rec := allocs(noop), allocs(c.Record)
	if rec > base {
		t.Errorf("a request allocates %v times through Record, %v without", rec, base)
	}
	if calls, _, _ := c.rec.recent(&callFilter{Limit: 5}); len(calls) != 5 || calls[0].tool != "tool0000" || calls[0].principal != "bench" {
		t.Errorf("recorded %+v", calls)
	}
}

// TestStats: percentiles and error rates come out of the histograms
// within a bucket's width.
func TestStats(t *testing.T) {
	r := newRecorder(100)
	now := time.Now()
	for i := range 100 {
		c := call{at: now.UnixNano(), dur: int64(time.Duration(i+1) * time.Millisecond), tool: "t", method: "tools/call"}
		if i%10 == 0 {
			c.outcome = outcomeToolError
		}
		r.add(&c)
	}
	hs := r.stats(now)
	if len(hs.Tools) != 1 || hs.Tools[0].Count != 100 || hs.Tools[0].Errors != 10 || hs.Total.Count != 100 {
		t.Fatalf("stats %+v", hs.Tools)
	}
	within := func(got, want time.Duration) bool { return got > want*70/100 && got < want*130/100 }
	if ts := hs.Tools[0]; !within(ts.P50, 50*time.Millisecond) || !within(ts.P99, 99*time.Millisecond) {
		t.Errorf("p50 %v, p99 %v", ts.P50, ts.P99)
	}
	if later := r.stats(now.Add(61 * time.Minute)); later.Total.Count != 0 || len(later.Tools) != 0 {
		t.Errorf("an hour later: %d calls", later.Total.Count)
	}
	for ns := int64(1); ns < 1<<40; ns = ns*3/2 + 1 {
		i := histIndex(ns)
		if i < 0 || i >= histBuckets || (i > 0 && i < histBuckets-1 && !within(histValue(i), time.Duration(ns))) {
			t.Fatalf("histIndex(%d) = %d, value %v", ns, i, histValue(i))
		}
	}
}

// TestNoRegistry: New refuses options without a Registry.
func TestNoRegistry(t *testing.T) {
	if _, err := New(nil); !errors.Is(err, ErrNoRegistry) {
		t.Errorf("New(nil) = %v", err)
	}
}

// TestCrossSiteRefused: every request a browser says another site's page
// made (Sec-Fetch-Site cross-site, same-site, or anything but same-origin
// and none) is refused with 403 before it is authenticated, pages and
// profiles included: no work, no session cookie. Same-origin, none (the
// address typed) and no header at all (a script) are served.
func TestCrossSiteRefused(t *testing.T) {
	f := newFixture(t)
	paths := []string{"", "calls", "tasks", "process", "profile?kind=heap", "profile?kind=cpu&seconds=1", "nowhere"}
	for _, site := range []string{"cross-site", "same-site", "Cross-Site", "bogus", ""} {
		for _, path := range paths {
			req, err := http.NewRequest("GET", f.srv.URL+"/console/"+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.SetBasicAuth("", operatorToken)
			req.Header.Set("Sec-Fetch-Site", site)
			if site == "" {
				req.Header["Sec-Fetch-Site"] = []string{"same-origin", "cross-site"} // a second header
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 403 || !strings.Contains(string(b), "another site") || len(resp.Cookies()) > 0 {
				t.Errorf("%q from %q: %d %v %.100s", path, site, resp.StatusCode, resp.Cookies(), b)
			}
		}
	}
	id := f.startTask(userToken)
	token := csrfOf(t, f.get("tasks", bearer(operatorToken)).body)
	req := newFormRequest(t, f.srv.URL+"/console/cancel", "id="+id+"&csrf="+token)
	req.Header.Set("Authorization", bearer(operatorToken))
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if status := doRequest(t, req); status != 403 {
		t.Errorf("cross-site cancel: %d", status)
	}
	for _, site := range []string{"same-origin", "none", ""} {
		for _, path := range paths[:5] {
			req, err := http.NewRequest("GET", f.srv.URL+"/console/"+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", bearer(operatorToken))
			if site != "" {
				req.Header.Set("Sec-Fetch-Site", site)
			}
			if status := doRequest(t, req); status != 200 {
				t.Errorf("%q from %q: %d", path, site, status)
			}
		}
	}
}
