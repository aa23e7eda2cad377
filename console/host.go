package console

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// hostAllowed is the console's guard against DNS rebinding, as
// mcp.HandlerOptions.AllowedHosts is the MCP endpoint's: a request that
// arrived on a loopback address must name a loopback host (localhost,
// a name under .localhost, a loopback IP) or one of hosts; "*" in hosts
// turns the check off.
func hostAllowed(r *http.Request, hosts map[string]bool) bool {
	if hosts["*"] {
		return true
	}
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || !loopbackAddr(addr) {
		return true
	}
	h := r.Host
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || hosts[h] {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Unmap().IsLoopback()
}

func loopbackAddr(a net.Addr) bool {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}
