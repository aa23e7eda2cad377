package otelmcp

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// proxies are the trusted reverse proxies of Options.TrustedProxies.
type proxies []netip.Prefix

// parseProxies parses Options.TrustedProxies: addresses ("10.0.0.7",
// "::1") and networks ("10.0.0.0/8"). It returns the valid ones and an
// error naming the others.
func parseProxies(list []string) (proxies, error) {
	var out proxies
	var bad []string
	for _, s := range list {
		s = strings.TrimSpace(s)
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(s); err == nil {
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		bad = append(bad, strconv.Quote(bounded(s, 64)))
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("otelmcp: Options.TrustedProxies: %s not an IP address or CIDR network (such as 10.0.0.7 or 10.0.0.0/8); ignored",
			strings.Join(bad, ", "))
	}
	return out, nil
}

// trusts reports whether addr is a trusted proxy.
func (ps proxies) trusts(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range ps {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// parseHop parses one X-Forwarded-For entry: an IP, maybe with a port,
// maybe in brackets.
func parseHop(h string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(h); err == nil {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(h); err == nil {
		return ap.Addr(), true
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")); err == nil {
		return a, true
	}
	return netip.Addr{}, false
}

// clientAddress is client.address and client.port: the peer of the
// connection, unless that peer is a trusted proxy; then the rightmost
// address of X-Forwarded-For that is not a trusted proxy (the port is
// then unknown). Proxies append the address they received the request
// from, so the hops right of the first untrusted one are the only ones
// that can be believed; whatever a client writes in the header itself
// stays left of them.
func clientAddress(r *http.Request, trusted proxies) (string, int) {
	host, port, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return bounded(r.RemoteAddr, maxValue), 0
	}
	p, _ := strconv.Atoi(port)
	peer, err := netip.ParseAddr(host)
	if len(trusted) == 0 || err != nil || !trusted.trusts(peer) {
		return host, p
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		for h := range strings.SplitSeq(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hops = append(hops, h)
			}
		}
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			return bounded(hops[i], maxValue), 0 // what the last trusted proxy received it from, unparsed
		}
		if !trusted.trusts(a) {
			return a.Unmap().String(), 0
		}
	}
	if len(hops) > 0 {
		// Every hop is a trusted proxy: the first of them is the client.
		a, _ := parseHop(hops[0])
		return a.Unmap().String(), 0
	}
	return host, p
}
