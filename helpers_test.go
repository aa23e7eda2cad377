package mcp_test

import "time"

// eventually calls cond every few milliseconds until it reports true, and
// reports whether it did within d. What the tests wait for this way is
// outside the process's control (a socket, the kernel, the runtime's
// goroutine count); what the library does alone is waited for with
// testing/synctest.
func eventually(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return cond()
		}
	}
	return true
}

// advance moves the fake clock of the synctest bubble it is called in by
// d, once every other goroutine of the bubble is blocked: leases, time to
// live and heartbeats pass at once.
func advance(d time.Duration) { time.Sleep(d) }
