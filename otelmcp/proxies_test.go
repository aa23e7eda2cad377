package otelmcp_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/otelmcp"
	"go.opentelemetry.io/otel"
)

// postFrom posts an echo call from peer with the given X-Forwarded-For
// header lines and returns the span's client.address and client.port.
func postFrom(t *testing.T, r *rig, peer string, xff ...string) (string, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(call("1", "echo", "")))
	req.RemoteAddr = peer
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.Version20250618)
	for _, v := range xff {
		req.Header.Add("X-Forwarded-For", v)
	}
	w := httptest.NewRecorder()
	r.handler.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	a := attrs(r.only(t).Attributes)
	port := ""
	if p, ok := a["client.port"]; ok {
		port = p.String()
	}
	return a["client.address"].String(), port
}

// TestTrustedProxies: with trusted proxies named, client.address is the
// rightmost X-Forwarded-For hop that is not one of them, and only when
// the connection comes from one of them; what a client writes to the
// left of the hops the proxies append is never believed.
func TestTrustedProxies(t *testing.T) {
	r := newRigTrusting(t, []string{"10.0.0.0/8", "192.0.2.7", " 2001:db8::/32 "})
	for _, tc := range []struct {
		name, peer string
		xff        []string
		addr, port string
	}{
		{"a client spoofs, one proxy appends", "10.1.2.3:4000", []string{"6.6.6.6, 203.0.113.9"}, "203.0.113.9", ""},
		{"two proxies", "10.1.2.3:4000", []string{"6.6.6.6, 203.0.113.9, 10.9.9.9"}, "203.0.113.9", ""},
		{"header lines are one list", "192.0.2.7:4000", []string{"6.6.6.6", "203.0.113.9", "10.9.9.9"}, "203.0.113.9", ""},
		{"an untrusted peer's header is ignored", "198.51.100.1:5000", []string{"203.0.113.9"}, "198.51.100.1", "5000"},
		{"a hop with a port", "10.1.2.3:4000", []string{"[2001:db8::1]:80, 203.0.113.9:1234"}, "203.0.113.9", ""},
		{"IPv6 proxy", "[2001:db8::5]:4000", []string{"203.0.113.9"}, "203.0.113.9", ""},
		{"every hop trusted: the first", "10.1.2.3:4000", []string{"10.0.0.5, 10.0.0.6"}, "10.0.0.5", ""},
		{"a trusted peer without the header", "10.1.2.3:4000", nil, "10.1.2.3", "4000"},
		{"an IPv4-mapped peer", "[::ffff:10.1.2.3]:4000", []string{"203.0.113.9"}, "203.0.113.9", ""},
	} {
		addr, port := postFrom(t, r, tc.peer, tc.xff...)
		if addr != tc.addr || port != tc.port {
			t.Errorf("%s: client.address %q port %q, want %q %q", tc.name, addr, port, tc.addr, tc.port)
		}
	}
}

// TestTrustedProxiesInvalid: an entry that is no address or network is
// reported to otel.Handle and trusts nothing.
func TestTrustedProxiesInvalid(t *testing.T) {
	var mu sync.Mutex
	var got []error
	prev := otel.GetErrorHandler()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		got = append(got, err)
		mu.Unlock()
	}))
	t.Cleanup(func() { otel.SetErrorHandler(prev) })
	otelmcp.Middleware(&otelmcp.Options{TrustedProxies: []string{"172.16.0.0/12", "proxy.internal", "10.0.0.300"}})
	mu.Lock()
	defer mu.Unlock()
	err := errors.Join(got...)
	if err == nil || !strings.Contains(err.Error(), `"proxy.internal", "10.0.0.300"`) || strings.Contains(err.Error(), "172.16") {
		t.Errorf("reported: %v", err)
	}
}
