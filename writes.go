package mcp

import (
	"errors"
	"strconv"
	"sync/atomic"
	"time"
)

// Defaults of the write bounds of a Handler.
const (
	// DefaultWriteTimeout is the default of HandlerOptions.WriteTimeout.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultMaxPendingBytes is the default of
	// HandlerOptions.MaxPendingBytes.
	DefaultMaxPendingBytes = 128 << 20
)

// pendingRetryAfter is the Retry-After of an answer refused for the
// pending-bytes budget, in seconds.
const pendingRetryAfter = 5

// errPendingBudget refuses an event beyond HandlerOptions.MaxPendingBytes.
var errPendingBudget = errors.New("mcp: too many answer bytes waiting to be written (HandlerOptions.MaxPendingBytes)")

// writeBudget counts the answer bytes a Handler is writing at once, so
// that clients that read slowly (or not at all) cannot make it hold more
// than max of them.
type writeBudget struct {
	max  int64 // negative: no budget
	used atomic.Int64
}

// take counts n more bytes, unless that goes over the budget (one answer
// alone always goes, whatever its size).
func (b *writeBudget) take(n int) bool {
	return b.grow(0, n)
}

// grow counts n more bytes of an answer that already holds held of them,
// unless that goes over the budget (one answer alone always goes, whatever
// its size).
func (b *writeBudget) grow(held, n int) bool {
	if b.max < 0 {
		return true
	}
	if now := b.used.Add(int64(n)); now > b.max && now != int64(held+n) {
		b.used.Add(-int64(n))
		return false
	}
	return true
}

// full reports whether the budget is spent: no answer but one alone could
// be counted now.
func (b *writeBudget) full() bool {
	return b.max >= 0 && b.used.Load() >= b.max
}

// give counts n bytes less: they were written, or the write failed.
func (b *writeBudget) give(n int) {
	if b.max >= 0 {
		b.used.Add(-int64(n))
	}
}

// message is the message of an answer refused for the budget.
func (b *writeBudget) message() string {
	return "Server busy: " + strconv.FormatInt(b.max, 10) + " bytes of answers are being built or waiting to be written to slow clients, " +
		"the most this server holds (HandlerOptions.MaxPendingBytes); retry later"
}

// deadline sets the write deadline of the next write to the client. A
// ResponseWriter without deadlines writes without one, and the stream
// stops asking. Called with mu held.
func (s *stream) deadline() {
	if s.writeTimeout > 0 && !setWriteDeadline(s.w, time.Now().Add(s.writeTimeout)) {
		s.writeTimeout = 0
	}
}
