package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
)

// stream is one HTTP request's answer: JSON by default, turned into an SSE
// stream by the first notification when the client accepts one. Notify may
// be called from any goroutine while Handle runs; after finish, it does
// nothing, so nothing is ever written after ServeHTTP returns.
type stream struct {
	ex        Exchange
	w         http.ResponseWriter
	sseOnly   bool // the client accepts text/event-stream but not JSON
	keepAlive time.Duration

	mu      sync.Mutex
	started bool          // SSE headers sent
	done    bool          // finish was called
	err     error         // the first write error; the client is gone
	stop    chan struct{} // closed by finish; ends the keep-alive loop
	buf     []byte
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
	b := append(s.buf[:0], `{"jsonrpc":"2.0","method":`...)
	b = appendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	b = append(b, '}')
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
				if _, err := s.w.Write([]byte(":\n\n")); err != nil {
					s.err = err
				} else {
					s.flush()
				}
			}
			s.mu.Unlock()
		}
	}
}

// event writes one SSE "message" event carrying data and flushes it. A
// line break inside data (a tool's raw JSON may hold some) starts a new
// "data:" line, which the client joins back with "\n". Called with mu held.
func (s *stream) event(data []byte) error {
	out := make([]byte, 0, len(data)+32)
	out = append(out, "event: message\ndata: "...)
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			out = append(out, "\ndata: "...)
		case '\n':
			out = append(out, "\ndata: "...)
		default:
			out = append(out, c)
		}
	}
	out = append(out, "\n\n"...)
	if _, err := s.w.Write(out); err != nil {
		s.err = err
		return err
	}
	return s.flush()
}

func (s *stream) flush() error {
	err := http.NewResponseController(s.w).Flush()
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.err = err
		return err
	}
	return nil
}

// finish writes Handle's answer: the last event of a stream that started,
// or a JSON body (a one-event stream for clients that accept only SSE).
func (s *stream) finish(status int, resp []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	if s.stop != nil {
		close(s.stop)
	}
	if s.started {
		if len(resp) > 0 && s.err == nil {
			_ = s.event(resp)
		}
		return
	}
	switch {
	case len(resp) == 0:
		s.w.WriteHeader(status)
	case status == http.StatusOK && s.sseOnly:
		s.start(false)
		_ = s.event(resp)
	default:
		writeJSON(s.w, status, resp)
	}
}
