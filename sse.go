package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// stream is one HTTP request's answer: JSON by default, turned into an SSE
// stream by the first notification when the client accepts one. Notify may
// be called from any goroutine while Handle runs; after finish, it does
// nothing, so nothing is ever written after ServeHTTP returns.
type stream struct {
	ex           Exchange
	ctx          exchangeContext // the request's context, carrying ex
	w            http.ResponseWriter
	sseOnly      bool // the client accepts text/event-stream but not JSON
	keepAlive    time.Duration
	writeTimeout time.Duration // of each write; zero or negative: none
	budget       *writeBudget  // the Handler's bytes being written
	body         []byte        // the request, for the id of a refusal

	mu      sync.Mutex
	started bool          // SSE headers sent
	done    bool          // finish was called
	err     error         // the first write error; the client is gone
	stop    chan struct{} // closed by finish; ends the keep-alive loop
	buf     []byte
	clen    [1]string // the Content-Length header's value
}

var (
	hdrEventStream = []string{"text/event-stream"}
	hdrNoCache     = []string{"no-cache"}
	hdrNo          = []string{"no"}
)

// notify is the Exchange's Notify: it sends one notification as an SSE
// event and flushes it.
func (s *stream) notify(method string, params json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	if !s.started {
		s.start(true)
	}
	b := appendNotification(s.buf[:0], method, params)
	s.buf = b
	return s.event(b)
}

// start sends the SSE response header. Called with mu held.
func (s *stream) start(keepAlive bool) {
	s.started = true
	hdr := s.w.Header()
	hdr["Content-Type"] = hdrEventStream
	hdr["Cache-Control"] = hdrNoCache
	hdr["X-Accel-Buffering"] = hdrNo
	delete(hdr, "Content-Length")
	s.w.WriteHeader(http.StatusOK)
	if keepAlive && s.keepAlive > 0 {
		s.stop = make(chan struct{})
		go s.keepAliveLoop(s.stop)
	}
}

// keepAliveLoop sends an SSE comment whenever the stream has been quiet for
// a keep-alive interval, until stop is closed.
func (s *stream) keepAliveLoop(stop chan struct{}) {
	t := time.NewTicker(s.keepAlive)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.mu.Lock()
			if !s.done && s.err == nil {
				s.deadline()
				if s.put([]byte(":\n\n")) {
					s.flush()
				}
			}
			s.mu.Unlock()
		}
	}
}

// event writes one SSE "message" event carrying data and flushes it,
// under one write deadline and counted in the Handler's budget of bytes
// being written (errPendingBudget when it does not fit). A line break
// inside data (a tool's raw JSON may hold some) starts a new "data:" line,
// which the client joins back with "\n". data is written as it is, in
// pieces, not copied. Called with mu held.
func (s *stream) event(data []byte) error {
	if !s.budget.take(len(data)) {
		return errPendingBudget
	}
	defer s.budget.give(len(data))
	return s.writeEvent(data)
}

// writeEvent writes an event whose bytes the budget already counts.
// Called with mu held.
func (s *stream) writeEvent(data []byte) error {
	s.deadline()
	if !s.put(eventPrefix) {
		return s.err
	}
	start := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c != '\r' && c != '\n' {
			continue
		}
		if !s.put(data[start:i]) {
			return s.err
		}
		if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		if !s.put(eventNewLine) {
			return s.err
		}
		start = i + 1
	}
	if !s.put(data[start:]) || !s.put(eventEnd) {
		return s.err
	}
	return s.flush()
}

// selfLengthMax is the largest JSON answer left without a Content-Length
// header: net/http buffers an answer of up to 2 KiB whole (its
// bufferBeforeChunkingSize) and, the handler done, sends it with the
// Content-Length it counted. A longer one gets the header from finish, so
// that it is not sent chunked.
const selfLengthMax = 2048

var (
	eventPrefix  = []byte("event: message\ndata: ")
	eventNewLine = []byte("\ndata: ")
	eventEnd     = []byte("\n\n")
)

// put writes b, and reports whether it was written; a failed write (the
// client is gone, or stopped reading past the write deadline) ends the
// stream. Called with mu held.
func (s *stream) put(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	if _, err := s.w.Write(b); err != nil {
		s.err = err
		return false
	}
	return true
}

func (s *stream) flush() error {
	err := flushWriter(s.w)
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.err = err
		return err
	}
	return nil
}

// release drops what the stream holds of the request once it is answered.
// The request's context lives in the stream (ctx), and a task the request
// started runs on under a context made from it: the task must keep none of
// the body, the response writer, the request or its headers alive (nor,
// through a Middleware's Message, the parsed message). Nothing reads the
// stream's Exchange once the request is answered: a task's context carries
// an Exchange of its own.
func (s *stream) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w, s.body, s.buf, s.budget = nil, nil, nil, nil
	s.ex = Exchange{ProtocolVersion: s.ex.ProtocolVersion, Transport: s.ex.Transport}
}

// finish writes Handle's answer: the last event of a stream that started,
// or a JSON body (a one-event stream for clients that accept only SSE).
// Each answer is written under one write deadline, set just before it: an
// event is flushed under its own, and what a JSON answer leaves buffered
// net/http writes once the handler returns, still under it (net/http
// clears the connection's write deadline only after that).
// An answer beyond the Handler's budget of bytes being written is replaced
// by a -32001 error: 503 with Retry-After, or, on a stream already
// started, its last event.
func (s *stream) finish(status int, resp []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	if s.stop != nil {
		close(s.stop)
	}
	if s.started {
		if len(resp) > 0 && s.err == nil {
			if err := s.event(resp); errors.Is(err, errPendingBudget) {
				_ = s.event(appendError(nil, requestID(s.body), CodeLimitExceeded, s.budget.message(), nil))
			}
		}
		return
	}
	if len(resp) == 0 {
		s.deadline() // for the header net/http writes once the handler returns
		s.w.WriteHeader(status)
		return
	}
	if !s.budget.take(len(resp)) {
		hdr := s.w.Header()
		hdr.Set("Retry-After", strconv.Itoa(pendingRetryAfter))
		s.deadline()
		writeJSON(s.w, http.StatusServiceUnavailable,
			appendError(nil, requestID(s.body), CodeLimitExceeded, s.budget.message(), nil))
		return
	}
	defer s.budget.give(len(resp))
	if status == http.StatusOK && s.sseOnly {
		s.start(false)
		_ = s.writeEvent(resp)
		return
	}
	hdr := s.w.Header()
	hdr["Content-Type"] = hdrJSON
	if len(resp) > selfLengthMax {
		s.clen[0] = strconv.Itoa(len(resp))
		hdr["Content-Length"] = s.clen[:]
	}
	s.w.WriteHeader(status)
	s.deadline()
	s.put(resp)
}
