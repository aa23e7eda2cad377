package main

import (
	"net"
	"net/netip"
)

// callerGrants are the grants of a caller without a token: every grant on
// a loopback listener, which only local processes reach, and demo.* alone
// on any other, since diagnostics.* shows the process's insides (its
// goroutines, profiles, logs and build) and lets a caller stop the world
// for a goroutine dump. With -token there are no anonymous callers.
func callerGrants(cfg config) []string {
	if cfg.exposed {
		return []string{"demo.*"}
	}
	return grants
}

// grantsNote says at start who may use what.
func grantsNote(cfg config) string {
	switch {
	case cfg.token != "":
		return "callers with the -token bearer token get diagnostics.* and demo.*; others are refused (401)"
	case cfg.exposed:
		return "the listener is not on a loopback address and there is no -token: anonymous callers get demo.* only, " +
			"not diagnostics.* (code, goroutines, profiles, logs); pass -token to use those remotely"
	}
	return "anonymous callers get diagnostics.* and demo.*: the listener is on a loopback address, which only local processes reach"
}

// isLoopback reports whether addr is a loopback address (127.0.0.0/8,
// ::1). An unspecified address (0.0.0.0, ::) is not: it listens on every
// interface.
func isLoopback(addr net.Addr) bool {
	if tcp, ok := addr.(*net.TCPAddr); ok {
		ip, ok := netip.AddrFromSlice(tcp.IP)
		return ok && ip.Unmap().IsLoopback()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
