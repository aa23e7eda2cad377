package console

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/google/pprof/profile"
)

// TestProfile: profiles need diagnostics.runtime.profile, come in pprof's
// format, and carry no pprof labels (which may hold request values).
func TestProfile(t *testing.T) {
	f := newFixture(t)
	stop := make(chan struct{})
	defer close(stop)
	ready := make(chan struct{})
	go pprof.Do(context.Background(), pprof.Labels("user_email", "label-value-0123"), func(context.Context) {
		close(ready)
		<-stop
	})
	<-ready
	if p := f.get("profile?kind=goroutine", bearer(readerToken)); p.status != 403 {
		t.Errorf("reader: %d", p.status)
	}
	if p := f.get("process", bearer(readerToken)); strings.Contains(p.body, "profile?kind=") {
		t.Error("a reader sees profile links")
	}
	csrf := csrfOf(t, f.get("process", bearer(operatorToken)).body)
	for _, kind := range []string{"goroutine", "heap", "cpu&seconds=1"} {
		p := f.get("profile?kind="+kind, bearer(operatorToken))
		if kind == "cpu&seconds=1" { // started from the Process page's form
			p = f.do("POST", "profile", bearer(operatorToken), map[string]string{"kind": "cpu", "seconds": "1", "csrf": csrf})
		}
		if p.status != 200 || !strings.HasPrefix(p.header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("%s: %d %s", kind, p.status, p.body)
		}
		prof, err := profile.ParseData([]byte(p.body))
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		for _, s := range prof.Sample {
			if len(s.Label) > 0 || len(s.NumLabel) > 0 {
				t.Fatalf("%s: a sample keeps labels %v", kind, s.Label)
			}
		}
		zr, err := gzip.NewReader(strings.NewReader(p.body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(zr)
		if bytes.Contains(raw, []byte("label-value-0123")) {
			t.Errorf("%s: the profile holds a label's value", kind)
		}
		if kind == "goroutine" && len(prof.Sample) == 0 {
			t.Error("an empty goroutine profile: the test sees nothing")
		}
	}
}

// TestUnderAnyPrefix: the console answers at the root of a mux and under
// a nested prefix; the session cookie is scoped to where it is mounted;
// HEAD answers the headers only.
func TestUnderAnyPrefix(t *testing.T) {
	ts := mcp.NewToolSet()
	auth := mcp.StaticTokens(map[string]mcp.Caller{"t": {Principal: "p", Grants: []string{"diagnostics.console.read"}}})
	c, err := New(&Options{Registry: ts, Authenticator: auth, Authorizer: mcp.GrantsAuthorizer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for prefix, mount := range map[string]http.Handler{"/": c, "/ops/console/": http.StripPrefix("/ops/console", c)} {
		mux := http.NewServeMux()
		mux.Handle(prefix, mount)
		for _, page := range []string{"", "calls", "tasks", "process"} {
			r := httptest.NewRequest("GET", prefix+page, nil)
			r.SetBasicAuth("", "t")
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, r)
			if w.Code != 200 {
				t.Fatalf("%s%s: %d", prefix, page, w.Code)
			}
			cookies := w.Result().Cookies()
			if len(cookies) != 1 || cookies[0].Path != prefix {
				t.Errorf("%s%s: cookies %v", prefix, page, cookies)
			}
		}
		r := httptest.NewRequest("HEAD", prefix+"calls", nil)
		r.SetBasicAuth("", "t")
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		if w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Content-Length") == "" {
			t.Errorf("HEAD: %d, %d bytes", w.Code, w.Body.Len())
		}
	}
}

// TestCPUProfileNeedsPost: a CPU profile is started only by a same-origin
// POST carrying the CSRF token issued to the caller: a GET (a link, an
// <img>) is refused with 405 and starts nothing, and so are a POST
// without the token, with another caller's, or from another origin; bad
// form values are refused with their reason. A refused request leaves
// the profiler free.
func TestCPUProfileNeedsPost(t *testing.T) {
	f := newFixture(t)
	csrf := csrfOf(t, f.get("process", bearer(operatorToken)).body)
	if p := f.get("profile?kind=cpu&seconds=1", bearer(operatorToken)); p.status != 405 || p.header.Get("Allow") != "POST" {
		t.Errorf("GET of a CPU profile: %d %v %s", p.status, p.header.Get("Allow"), p.body)
	}
	for _, tc := range []struct {
		form   map[string]string
		status int
	}{
		{map[string]string{"kind": "cpu", "seconds": "60"}, 403},
		{map[string]string{"kind": "cpu", "seconds": "60", "csrf": "forged"}, 403},
		{map[string]string{"kind": "cpu", "seconds": "60", "csrf": f.console.keys.csrfToken(mcp.Caller{Principal: "rita"}, time.Now())}, 403},
		{map[string]string{"kind": "cpu", "seconds": "0", "csrf": csrf}, 400},
		{map[string]string{"kind": "cpu", "seconds": "x", "csrf": csrf}, 400},
		{map[string]string{"kind": "cpu", "seconds": "61", "csrf": csrf}, 400},
		{map[string]string{"kind": "heap", "csrf": csrf}, 400},
		{map[string]string{"kind": "cpu", "seconds": "1", "csrf": csrf, "extra": "1"}, 400},
	} {
		if p := f.do("POST", "profile", bearer(operatorToken), tc.form); p.status != tc.status {
			t.Errorf("POST %v: %d, want %d: %s", tc.form, p.status, tc.status, p.body)
		}
	}
	if p := f.do("POST", "profile", bearer(readerToken), map[string]string{"kind": "cpu", "seconds": "1", "csrf": csrf}); p.status != 403 {
		t.Errorf("a reader's POST: %d", p.status)
	}
	for _, h := range [][2]string{{"Origin", "https://evil.example"}, {"Origin", "null"}} {
		req := newFormRequest(t, f.srv.URL+"/console/profile", "kind=cpu&seconds=60&csrf="+csrf)
		req.Header.Set("Authorization", bearer(operatorToken))
		req.Header.Set(h[0], h[1])
		if status := doRequest(t, req); status != 403 {
			t.Errorf("%s: %s → %d", h[0], h[1], status)
		}
	}
	// Nothing above started the profiler.
	if !f.console.cpu.TryLock() {
		t.Fatal("a refused request holds the CPU profiler")
	}
	f.console.cpu.Unlock()
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatalf("a refused request started a CPU profile: %v", err)
	}
	pprof.StopCPUProfile()
}
