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
// streamed answer.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > h.maxBody {
		return nil, &http.MaxBytesError{Limit: h.maxBody}
	}
	deadline := h.bodyTimeout > 0 && setReadDeadline(w, time.Now().Add(h.bodyTimeout))
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
