package mcp

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// originPolicy decides which browser origins and Host names the Handler
// accepts. It protects local servers from DNS rebinding and cross-site
// requests:
//
//   - A request with an Origin header is refused (403) unless the origin is
//     same-origin (its host equals the request's Host), a loopback origin
//     (http or https on localhost, 127.0.0.0/8 or [::1], any port), or
//     listed in HandlerOptions.AllowedOrigins. "null" is refused unless
//     listed. Requests without Origin (non-browser clients) pass.
//   - A request that reached the server on a loopback address is refused
//     (403) unless its Host is a loopback name (localhost, a loopback IP) or
//     listed in HandlerOptions.AllowedHosts. A rebinding attack's Host is
//     the attacker's domain, so it fails even when its Origin is
//     "same-origin".
type originPolicy struct {
	anyOrigin bool
	origins   map[string]bool // normalized scheme://host[:port]
	anyHost   bool
	hosts     map[string]bool // lower-case host names, without port
}

func newOriginPolicy(origins, hosts []string) *originPolicy {
	p := &originPolicy{origins: make(map[string]bool), hosts: make(map[string]bool)}
	for _, o := range origins {
		o = strings.TrimSpace(o)
		if o == "*" {
			p.anyOrigin = true
			continue
		}
		p.origins[normalizeOrigin(o)] = true
	}
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if h == "*" {
			p.anyHost = true
			continue
		}
		p.hosts[strings.ToLower(strings.Trim(hostOnly(h), "[]"))] = true
	}
	return p
}

// normalizeOrigin lower-cases an origin and drops a trailing slash and the
// scheme's default port, so that configured and sent origins compare equal.
func normalizeOrigin(o string) string {
	o = strings.ToLower(strings.TrimSuffix(o, "/"))
	scheme, rest, ok := strings.Cut(o, "://")
	if !ok {
		return o
	}
	return scheme + "://" + stripDefaultPort(scheme, rest)
}

func stripDefaultPort(scheme, hostport string) string {
	switch {
	case scheme == "http" && strings.HasSuffix(hostport, ":80"):
		return hostport[:len(hostport)-3]
	case scheme == "https" && strings.HasSuffix(hostport, ":443"):
		return hostport[:len(hostport)-4]
	}
	return hostport
}

// checkOrigin reports whether the request's Origin, if any, is allowed, and
// whether it is a cross-origin one that needs CORS response headers.
func (p *originPolicy) checkOrigin(r *http.Request) (ok, cross bool) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true, false
	}
	norm := normalizeOrigin(origin)
	scheme, hostport, hasScheme := strings.Cut(norm, "://")
	if hasScheme && hostport != "" && strings.EqualFold(hostport, stripDefaultPort(scheme, strings.ToLower(r.Host))) {
		return true, false
	}
	if p.anyOrigin || p.origins[norm] {
		return true, true
	}
	if hasScheme && (scheme == "http" || scheme == "https") && isLoopbackName(hostOnly(hostport)) {
		return true, true
	}
	return false, false
}

// checkHost reports whether the request's Host is acceptable for the local
// address it arrived on.
func (p *originPolicy) checkHost(r *http.Request) bool {
	if p.anyHost {
		return true
	}
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || !isLoopbackAddr(addr) {
		return true
	}
	h := hostOnly(r.Host)
	return isLoopbackName(h) || p.hosts[strings.ToLower(strings.Trim(h, "[]"))]
}

// hostOnly returns the host of a host[:port], keeping IPv6 brackets.
func hostOnly(hostport string) string {
	if strings.HasPrefix(hostport, "[") {
		if i := strings.IndexByte(hostport, ']'); i >= 0 {
			return hostport[:i+1]
		}
		return hostport
	}
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && strings.IndexByte(hostport, ':') == i {
		return hostport[:i]
	}
	return hostport
}

// isLoopbackName reports whether host (no port; IPv6 in brackets or not)
// names the loopback interface: localhost, a name under .localhost, or a
// loopback IP.
func isLoopbackName(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

func isLoopbackAddr(a net.Addr) bool {
	switch t := a.(type) {
	case *net.TCPAddr:
		return t.IP.IsLoopback()
	case *net.UnixAddr:
		return false
	}
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}
