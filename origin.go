package mcp

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
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
//     listed. An Origin that is not scheme://host[:port], or a second Origin
//     header, is refused under every policy. Requests without Origin
//     (non-browser clients) pass.
//   - A request that reached the server on a loopback address is refused
//     (403) unless its Host is a loopback name (localhost, a loopback IP) or
//     listed in HandlerOptions.AllowedHosts, by name or by a label
//     wildcard ("*.example.com": one more label in front). A rebinding
//     attack's Host is the attacker's domain, so it fails even when its
//     Origin is "same-origin".
type originPolicy struct {
	anyOrigin bool
	origins   map[string]bool // normalized scheme://host[:port]
	anyHost   bool
	hosts     map[string]bool // lower-case host names, without port
	wildcards []string        // ".example.com" of "*.example.com", lower case
}

func newOriginPolicy(origins, hosts []string, logger *slog.Logger) *originPolicy {
	p := &originPolicy{origins: make(map[string]bool), hosts: make(map[string]bool)}
	for _, o := range origins {
		o = strings.TrimSpace(o)
		switch o {
		case "*":
			p.anyOrigin = true
			continue
		case "null":
			p.origins[o] = true
			continue
		}
		// A trailing slash is forgiven in configuration, never on the wire.
		norm, ok := normalizeOrigin(strings.TrimSuffix(o, "/"))
		if !ok {
			logger.LogAttrs(context.Background(), slog.LevelWarn,
				"mcp: HandlerOptions.AllowedOrigins: not an origin (scheme://host[:port]); ignored", slog.String("origin", o))
			continue
		}
		p.origins[norm] = true
	}
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if h == "*" {
			p.anyHost = true
			continue
		}
		if strings.Contains(h, "*") {
			suffix, ok := hostWildcard(h)
			if !ok {
				logger.LogAttrs(context.Background(), slog.LevelWarn,
					"mcp: HandlerOptions.AllowedHosts: a wildcard is a whole first label over at least two others, as in *.example.com; ignored",
					slog.String("host", shorten(h)))
				continue
			}
			p.wildcards = append(p.wildcards, suffix)
			continue
		}
		p.hosts[strings.TrimSuffix(strings.ToLower(strings.Trim(hostOnly(h), "[]")), ".")] = true
	}
	return p
}

// hostWildcard checks a host pattern "*.example.com" (no port) and
// returns its suffix ".example.com" in lower case. The "*" must be the
// whole first label, and the labels after it at least two valid ones, so
// that a pattern never covers a top-level domain.
func hostWildcard(pattern string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSuffix(strings.ToLower(pattern), "."), "*.")
	if !ok || strings.Count(rest, ".") < 1 {
		return "", false
	}
	for _, label := range strings.Split(rest, ".") {
		if !validLabel(label) {
			return "", false
		}
	}
	return "." + rest, true
}

// validLabel reports whether s is a DNS label: 1 to 63 letters, digits,
// "-" or "_", neither first nor last a "-".
func validLabel(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// allowedHost reports whether host (no port, lower case, no trailing dot)
// is listed in AllowedHosts, by name or by a wildcard: one valid label in
// front of the wildcard's suffix, never a suffix match of a bare string.
func (p *originPolicy) allowedHost(host string) bool {
	if p.hosts[host] {
		return true
	}
	for _, suffix := range p.wildcards {
		if label, ok := strings.CutSuffix(host, suffix); ok && validLabel(label) {
			return true
		}
	}
	return false
}

// normalizeOrigin checks that o is an origin as browsers serialize it,
// scheme://host[:port] and nothing else (RFC 6454), and returns it
// lower-cased without the scheme's default port, so that configured and
// sent origins compare equal. Userinfo, a path (even "/"), a query, a
// fragment, an empty or out-of-range port, or anything after an IPv6
// literal make it no origin.
func normalizeOrigin(o string) (string, bool) {
	scheme, hostport, ok := strings.Cut(o, "://")
	if !ok || !validScheme(scheme) || hostport == "" {
		return "", false
	}
	host, port := hostport, ""
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return "", false
		}
		ip, err := netip.ParseAddr(hostport[1:end])
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return "", false
		}
		host, port = hostport[:end+1], hostport[end+1:]
		if port != "" && port[0] != ':' {
			return "", false
		}
	} else if i := strings.IndexByte(hostport, ':'); i >= 0 {
		host, port = hostport[:i], hostport[i:]
	}
	if host == "" || (host[0] != '[' && !validRegName(host)) {
		return "", false
	}
	if port != "" {
		n, err := strconv.Atoi(port[1:])
		if err != nil || n < 0 || n > 65535 || port[1] < '0' || port[1] > '9' {
			return "", false
		}
	}
	scheme = strings.ToLower(scheme)
	return scheme + "://" + stripDefaultPort(scheme, strings.ToLower(host+port)), true
}

// validScheme reports whether s is a URI scheme: a letter, then letters,
// digits, "+", "-" or ".".
func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// validRegName reports whether s is a host name as browsers serialize it
// (IDNs in punycode): letters, digits, "-", "." and "_".
func validRegName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
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

// checkOrigin reports whether a request's Origin header values, if any,
// are allowed for a request to host (its Host), and whether the origin is
// a cross-origin one that needs CORS response headers (whose
// Access-Control-Allow-Origin is then the Origin, known well-formed). More
// than one Origin header, or one that is not scheme://host[:port], is
// refused, whatever the policy.
func (p *originPolicy) checkOrigin(values []string, host string) (ok, cross bool) {
	switch {
	case len(values) == 0 || (len(values) == 1 && values[0] == ""):
		return true, false
	case len(values) > 1:
		return false, false
	case values[0] == "null":
		return p.origins["null"], true
	}
	norm, valid := normalizeOrigin(values[0])
	if !valid {
		return false, false
	}
	scheme, hostport, _ := strings.Cut(norm, "://")
	if hostport == stripDefaultPort(scheme, strings.ToLower(host)) {
		return true, false
	}
	if p.anyOrigin || p.origins[norm] {
		return true, true
	}
	if (scheme == "http" || scheme == "https") && isLoopbackName(hostOnly(hostport)) {
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
	return isLoopbackName(h) || p.allowedHost(strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), "."))
}

// hostRefusal is the message of the 403 that checkHost's refusal gets: it
// names the Host, the loopback address the request arrived on and the
// address the server listens on, if it was given one that differs (such
// as 0.0.0.0:8080 or :8080).
func hostRefusal(r *http.Request) string {
	var b strings.Builder
	b.WriteString("Forbidden: Host ")
	b.WriteString(strconv.Quote(shorten(r.Host)))
	b.WriteString(" is not a loopback name, and the request arrived on the loopback address ")
	local := "(unknown)"
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		local = addr.String()
	}
	b.WriteString(local)
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.Addr != "" && srv.Addr != local {
		b.WriteString(" of a server listening on ")
		b.WriteString(srv.Addr)
	}
	b.WriteString(" (DNS rebinding protection: list the name, or *.domain, in HandlerOptions.AllowedHosts)")
	return b.String()
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
	switch host {
	case "127.0.0.1", "localhost", "[::1]": // what local clients send, at a glance
		return true
	}
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
