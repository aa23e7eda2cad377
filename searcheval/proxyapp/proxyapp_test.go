package proxyapp

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestProxyPolicy checks that the proxy stamps the office's headers on what
// it forwards, refuses blocked hosts with 403 and lists both in the admin
// API.
func TestProxyPolicy(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "via="+r.Header.Get("Via"))
	}))
	defer origin.Close()
	cfg := Config{Blocked: []string{"ads.example"}, AddHeaders: map[string]string{"Via": "1.1 office-proxy"}}
	_, g, h, err := NewService(nil, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	proxyURL, _ := url.Parse("http://" + g.Addr())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}

	get := func(u string) (int, string) {
		t.Helper()
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(origin.URL); code != http.StatusOK || body != "via=1.1 office-proxy" {
		t.Errorf("forwarded request: %d %q, want 200 with the office's Via header", code, body)
	}
	if code, body := get("http://cdn.ads.example/x.js"); code != http.StatusForbidden || !strings.Contains(body, "cdn.ads.example") {
		t.Errorf("blocked subdomain: %d %q, want 403 naming the host", code, body)
	}

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/admin/requests", nil))
	if got := rec.Body.String(); !strings.Contains(got, `"blocked":1`) || !strings.Contains(got, `"forwarded":1`) {
		t.Errorf("admin requests: %s, want one blocked and one forwarded", got)
	}
}
