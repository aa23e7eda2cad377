package mcp

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// DefaultBodyTimeout is the default of HandlerOptions.BodyTimeout.
const DefaultBodyTimeout = 30 * time.Second

// bodyChunkSize is the unit in which request bodies are read: what a
// connection holds is what arrived, rounded up to a chunk, whatever length
// the client declared.
const bodyChunkSize = 16 << 10

var bodyChunks = sync.Pool{New: func() any { b := make([]byte, bodyChunkSize); return &b }}

// errBodyTimeout reports a body that did not arrive within the Handler's
// BodyTimeout.
var errBodyTimeout = errors.New("mcp: request body not received in time")

// readBody reads the request body under the size limit and the body
// deadline. Memory grows with the bytes that arrive, in pooled chunks;
// Content-Length is only used to refuse a body declared too large before
// reading it. The result is a new exact-size slice, never pooled: the
// Protocol may hand slices of it to tools (Request.Arguments), which may
// keep them.
//
// While the body is read the connection has a read deadline of BodyTimeout;
// once it is read, the deadline is cleared: net/http watches the connection
// with a background read while the handler runs and cancels the request's
// context when that read fails, so a deadline left behind would cut off a
// streamed answer. No deadline is set where none is needed: for a request
// without a body, and where the connection's own deadline serves, that of
// an http.Server whose ReadTimeout is at most BodyTimeout (net/http sets it
// for the whole request before the handler runs; serverBound).
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, serverBound bool) ([]byte, error) {
	if r.ContentLength > h.maxBody {
		return nil, &http.MaxBytesError{Limit: h.maxBody}
	}
	deadline := serverBound || (h.bodyTimeout > 0 && r.Body != http.NoBody && setReadDeadline(w, time.Now().Add(h.bodyTimeout)))
	body, err := readChunked(r.Body, h.maxBody)
	if err != nil {
		var ne net.Error
		if errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			err = errBodyTimeout
		}
		// The deadline stays: whatever net/http still reads of this
		// connection fails at once, and the connection is closed.
		return nil, err
	}
	if deadline {
		setReadDeadline(w, time.Time{})
	}
	return body, nil
}

// serverReadBound reports whether the http.Server serving r bounds the
// arrival of its body within d on its own: its ReadTimeout, set as the
// connection's read deadline for the whole request when its headers were
// read, is at most d.
func serverReadBound(r *http.Request, d time.Duration) (bound time.Duration, ok bool) {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil || srv.ReadTimeout <= 0 || srv.ReadTimeout > d {
		return 0, false
	}
	return srv.ReadTimeout, true
}

// setReadDeadline sets the read deadline of w's connection, as
// http.ResponseController does (unwrapping middleware), without its
// allocations. It reports whether w supports read deadlines; where it does
// not (httptest.ResponseRecorder), http.Server's timeouts apply.
func setReadDeadline(w http.ResponseWriter, t time.Time) bool {
	for {
		switch x := w.(type) {
		case interface{ SetReadDeadline(time.Time) error }:
			return x.SetReadDeadline(t) == nil
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return false
		}
	}
}

// setWriteDeadline is setReadDeadline for the write deadline. It reports
// whether w supports write deadlines at all (a failure to set one, on a
// connection already gone, still counts as support).
func setWriteDeadline(w http.ResponseWriter, t time.Time) bool {
	for {
		switch x := w.(type) {
		case interface{ SetWriteDeadline(time.Time) error }:
			_ = x.SetWriteDeadline(t)
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return false
		}
	}
}

// flushWriter flushes w as http.ResponseController.Flush does, without its
// allocations; http.ErrNotSupported when nothing in the chain flushes.
func flushWriter(w http.ResponseWriter) error {
	for {
		switch x := w.(type) {
		case interface{ FlushError() error }:
			return x.FlushError()
		case http.Flusher:
			x.Flush()
			return nil
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return http.ErrNotSupported
		}
	}
}

// readChunked reads src to its end into pooled chunks and returns a copy
// of exactly the bytes read; more than limit bytes is an
// *http.MaxBytesError.
func readChunked(src io.Reader, limit int64) ([]byte, error) {
	var full [8]*[]byte // the first 128 KiB without allocating the list
	chunks := full[:0]
	cur := bodyChunks.Get().(*[]byte)
	defer func() {
		bodyChunks.Put(cur)
		for _, c := range chunks {
			bodyChunks.Put(c)
		}
	}()
	n := 0
	for {
		m, err := src.Read((*cur)[n:])
		n += m
		if int64(len(chunks))*bodyChunkSize+int64(n) > limit {
			return nil, &http.MaxBytesError{Limit: limit}
		}
		if n == len(*cur) {
			chunks = append(chunks, cur)
			cur, n = bodyChunks.Get().(*[]byte), 0
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, len(chunks)*bodyChunkSize+n)
	for _, c := range chunks {
		out = append(out, *c...)
	}
	return append(out, (*cur)[:n]...), nil
}
