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
	for _, kind := range []string{"goroutine", "heap", "cpu&seconds=1"} {
		p := f.get("profile?kind="+kind, bearer(operatorToken))
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
