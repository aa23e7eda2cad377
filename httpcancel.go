package mcp

import (
	"context"
	"net"
	"strconv"
	"sync"
)

// httpCalls are the tools/call requests running under a handshake
// revision (up to 2025-11-25) over HTTP, so that a notifications/cancelled
// posted on another HTTP request stops the one it names: in those
// revisions a client that disconnects has not cancelled (it may resume),
// and the notification is how a client says it gave up (the Python SDK
// sends it and keeps reading the stream). Without sessions a request is
// known by its caller's principal, the client's host and its JSON-RPC id.
// A notification naming no running call, or more than one (two clients on
// one host, with one principal, using the same id), cancels nothing: the
// spec lets a receiver ignore a cancellation it cannot attribute. Under
// 2026-07-28 closing the request's stream is the cancellation, and stdio
// tracks its calls itself (stdioConn).
type httpCalls struct {
	mu    sync.Mutex
	calls map[httpCallKey][]*httpCall
}

type httpCallKey struct{ principal, host, id string }

type httpCall struct{ cancel context.CancelFunc }

// httpCallKeyOf is the key of m, a request or a notifications/cancelled
// (whose params.requestId is then id), over HTTP.
func httpCallKeyOf(m *message, id string) httpCallKey {
	k := httpCallKey{principal: m.caller.Principal, host: m.tr.remote, id: id}
	if host, _, err := net.SplitHostPort(k.host); err == nil {
		k.host = host
	}
	return k
}

// track returns ctx, cancelled by a notifications/cancelled naming m, and
// the function that forgets m when it is answered.
func (c *httpCalls) track(ctx context.Context, m *message) (context.Context, func()) {
	id := canonicalID(m.id)
	if id == "" {
		return ctx, func() {}
	}
	key := httpCallKeyOf(m, id)
	ctx, cancel := context.WithCancel(ctx)
	call := &httpCall{cancel: cancel}
	c.mu.Lock()
	if c.calls == nil {
		c.calls = make(map[httpCallKey][]*httpCall)
	}
	c.calls[key] = append(c.calls[key], call)
	c.mu.Unlock()
	return ctx, func() {
		cancel()
		c.mu.Lock()
		defer c.mu.Unlock()
		calls := c.calls[key]
		for i, other := range calls {
			if other == call {
				calls = append(calls[:i:i], calls[i+1:]...)
				break
			}
		}
		if len(calls) == 0 {
			delete(c.calls, key)
		} else {
			c.calls[key] = calls
		}
	}
}

// cancel cancels the call a notifications/cancelled m names, when exactly
// one runs; it reports whether it did.
func (c *httpCalls) cancel(m *message) bool {
	var id string
	switch v := m.params["requestId"].(type) {
	case string:
		id = "s" + v
	case float64:
		id = "n" + strconv.FormatFloat(v, 'g', -1, 64)
	default:
		return false
	}
	key := httpCallKeyOf(m, id)
	c.mu.Lock()
	calls := c.calls[key]
	var call *httpCall
	if len(calls) == 1 {
		call = calls[0]
	}
	c.mu.Unlock()
	if call == nil {
		return false
	}
	call.cancel()
	return true
}
