package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
)

// StdioOptions configure ServeStdio. The zero value is usable.
type StdioOptions struct {
	// MaxMessageBytes limits one message (one line). A longer line is
	// skipped and answered with a -32700 parse error. Zero or negative
	// means DefaultMaxBodyBytes.
	MaxMessageBytes int
	// MaxConcurrent bounds the requests handled at once
	// (subscriptions/listen streams aside). A request beyond it is answered
	// at once with a -32001 error naming the limit: reading never waits, so
	// cancellations and the end of the input are always seen. Zero or
	// negative means DefaultStdioConcurrent (64).
	MaxConcurrent int
	// MaxListens bounds the subscriptions/listen streams open at once; one
	// more is refused with a -32001 error. Streams do not count against
	// MaxConcurrent, so open streams never keep requests from running. Zero
	// means DefaultStdioListens (16); negative means no cap.
	MaxListens int
	// Logger receives transport events (write failures, messages that could
	// not be framed). It must not write to the output stream. Nil discards.
	Logger *slog.Logger
}

// Defaults of StdioOptions.
const (
	DefaultStdioConcurrent = 64
	DefaultStdioListens    = 16
)

// ServeStdio serves p over the stdio transport: newline-delimited JSON-RPC
// messages read from r, answers and notifications written to w, one per
// line. Only protocol messages are ever written to w; a message that
// contains line breaks (a tool's pretty-printed raw JSON) is compacted first.
//
// Every request is served as caller: the host decides who the local client
// is. Requests run concurrently (up to StdioOptions.MaxConcurrent, and
// StdioOptions.MaxListens subscriptions/listen streams besides; beyond them
// a request is refused at once, never queued), so the notifications of one
// call interleave with other answers; initialize runs alone, and the protocol version it negotiates applies to later requests
// (2026-07-28 requests carry their version in _meta). A
// notifications/cancelled message cancels the named request's context, and
// nothing more is written for that request.
//
// ServeStdio returns nil at the end of r, after the requests in flight have
// been answered (subscriptions/listen streams are cancelled then), ctx.Err()
// when ctx is cancelled, or the first read or write error. After it returns
// nothing more is written to w; a Read blocked in r may still be pending
// (close r to release it).
func ServeStdio(ctx context.Context, p Protocol, caller Caller, r io.Reader, w io.Writer, opts *StdioOptions) error {
	var o StdioOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxBodyBytes
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultStdioConcurrent
	}
	if o.MaxListens == 0 {
		o.MaxListens = DefaultStdioListens
	}
	c := &stdioConn{p: p, caller: caller, w: w, logger: o.Logger, inflight: make(map[*stdioCall]struct{}),
		sem: make(chan struct{}, o.MaxConcurrent), failed: make(chan struct{})}
	if o.MaxListens > 0 {
		c.lsem = make(chan struct{}, o.MaxListens)
	}
	if c.logger == nil {
		c.logger = discardLogger
	}

	lines := make(chan stdioLine)
	readErr := make(chan error, 1)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br, o.MaxMessageBytes)
			if tooLong || len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- stdioLine{line, tooLong}:
				case <-quit:
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()

	for {
		select {
		case <-ctx.Done():
			c.shutdown()
			return ctx.Err()
		case <-c.failed:
			c.shutdown()
			return c.writeErr()
		case err := <-readErr:
			if !errors.Is(err, io.EOF) {
				c.shutdown()
				return err
			}
			c.cancelListens()
			done := make(chan struct{})
			go func() { c.wg.Wait(); close(done) }()
			select {
			case <-done:
				return c.writeErr()
			case <-ctx.Done():
				c.shutdown()
				return ctx.Err()
			}
		case l := <-lines:
			if l.tooLong {
				c.write(nil, appendError(nil, nil, CodeParseError,
					"Parse error: message longer than "+strconv.Itoa(o.MaxMessageBytes)+" bytes", nil), false)
				continue
			}
			c.serve(ctx, l.data)
		}
	}
}

type stdioLine struct {
	data    []byte
	tooLong bool
}

// readLine reads one line, without its line ending, into a new slice. A line
// longer than max is consumed and reported as tooLong, without its data.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		n := len(frag)
		if n > 0 && frag[n-1] == '\n' {
			n--
		}
		if !tooLong {
			if len(line)+n > max {
				tooLong, line = true, nil
			} else {
				line = append(line, frag[:n]...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		return line, tooLong, err
	}
}

// stdioConn is one stdio connection's state: the output, the requests in
// flight and the negotiated version.
type stdioConn struct {
	p      Protocol
	caller Caller
	w      io.Writer
	logger *slog.Logger
	sem    chan struct{} // request slots
	lsem   chan struct{} // subscriptions/listen slots; nil: no cap
	wg     sync.WaitGroup

	wmu    sync.Mutex // guards the output and every call's done flag
	closed bool       // ServeStdio is returning: write nothing more
	werr   error
	failed chan struct{} // closed on the first write error
	wbuf   []byte

	imu      sync.Mutex
	inflight map[*stdioCall]struct{}
	version  string   // negotiated by initialize
	logLevel LogLevel // set by logging/setLevel; "": Options.LogLevel
}

// stdioCall is one request in flight.
type stdioCall struct {
	conn   *stdioConn
	id     []byte
	key    string // canonical id of a request, "" otherwise
	method string
	ctx    context.Context
	cancel context.CancelFunc
	done   bool          // answered or cancelled; guarded by conn.wmu
	sem    chan struct{} // the slot it holds, if any
}

// stdioEnvelope is what the transport reads of a message before the
// Protocol parses it: enough to track and cancel requests.
type stdioEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// serve handles one message: cancellations here, initialize in line, the
// rest concurrently, each request taking a slot (a listen slot for
// subscriptions/listen). It never waits: without a free slot, a request is
// refused with a -32001 error, a notification is dropped, and a message
// that is not a JSON object (a batch aside) is answered in line, which for
// Server is only a parse.
func (c *stdioConn) serve(ctx context.Context, data []byte) {
	var env stdioEnvelope
	isObject := json.Unmarshal(data, &env) == nil
	if !isObject {
		env = stdioEnvelope{} // not an object: the Protocol answers it
	}
	switch env.Method {
	case "notifications/cancelled":
		c.cancelCall(canonicalID(env.Params.RequestID))
		return
	case "initialize", "logging/setLevel":
		// In line: the requests after them are served under what they set.
		c.run(c.track(ctx, &env), data)
		return
	}
	id := validID(env.ID)
	sem, isListen := c.sem, env.Method == "subscriptions/listen" && id != nil
	if isListen {
		sem = c.lsem
	}
	if sem != nil {
		select {
		case sem <- struct{}{}:
		default:
			c.refuse(ctx, data, &env, id, isListen, cap(sem))
			return
		}
	}
	// Track the call before it starts, so that a cancellation or the end
	// of the input that follows it always finds it.
	call := c.track(ctx, &env)
	call.sem = sem
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.run(call, data)
	}()
}

// refuse answers a message there is no slot for.
func (c *stdioConn) refuse(ctx context.Context, data []byte, env *stdioEnvelope, id []byte, isListen bool, limit int) {
	isBatch := bytes.HasPrefix(bytes.TrimLeft(data, " \t\r"), []byte("["))
	switch {
	case isListen:
		c.write(nil, appendError(nil, id, CodeLimitExceeded, "Too many subscriptions/listen streams: "+strconv.Itoa(limit)+
			" are open, the most this connection allows (StdioOptions.MaxListens); cancel one first", nil), false)
	case id != nil || isBatch:
		c.write(nil, appendError(nil, id, CodeLimitExceeded, "Server busy: "+strconv.Itoa(limit)+
			" requests are running, the most this connection allows (StdioOptions.MaxConcurrent); send it again when one has been answered", nil), false)
	case env.Method != "" || len(env.ID) > 0:
		c.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: stdio: message dropped: every request slot is taken",
			slog.String("method", env.Method), slog.Int("slots", limit))
	default:
		c.run(c.track(ctx, env), data) // not a message: the Protocol's parse error, in line
	}
}

// validID returns raw if it is a JSON-RPC id (a string or a number).
func validID(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return nil
	}
	if c := raw[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
		return raw
	}
	return nil
}

// track registers a call in flight with its own cancellable context.
func (c *stdioConn) track(ctx context.Context, env *stdioEnvelope) *stdioCall {
	call := &stdioCall{conn: c, id: env.ID, method: env.Method}
	if env.Method != "" {
		call.key = canonicalID(env.ID)
	}
	call.ctx, call.cancel = context.WithCancel(ctx)
	c.imu.Lock()
	c.inflight[call] = struct{}{}
	c.imu.Unlock()
	return call
}

// run passes one message to the Protocol and writes its answer.
func (c *stdioConn) run(call *stdioCall, data []byte) {
	defer call.cancel()
	c.imu.Lock()
	version, level := c.version, c.logLevel
	c.imu.Unlock()

	ex := &Exchange{ProtocolVersion: version, Transport: TransportStdio, Notify: call.notify, logLevel: level}
	status, resp := c.handle(ContextWithExchange(call.ctx, ex), call, data)
	if call.sem != nil {
		<-call.sem // free before the answer is written: an answered request holds no slot
	}

	c.imu.Lock()
	delete(c.inflight, call)
	if call.method == "initialize" && status == 200 {
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(resp, &r) == nil && r.Result.ProtocolVersion != "" {
			c.version = r.Result.ProtocolVersion
		}
	}
	if call.method == "logging/setLevel" && status == 200 {
		// The connection is the session logging/setLevel sets a level
		// for (the Server, stateless, keeps none): once accepted, it
		// applies to the calls that follow.
		var req struct {
			Params struct {
				Level LogLevel `json:"level"`
			} `json:"params"`
		}
		var r struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(data, &req) == nil && req.Params.Level.Valid() && json.Unmarshal(resp, &r) == nil && r.Result != nil {
			c.logLevel = req.Params.Level
		}
	}
	c.imu.Unlock()
	if len(resp) == 0 {
		c.wmu.Lock()
		call.done = true
		c.wmu.Unlock()
		return
	}
	c.write(call, resp, true)
}

// notify is a call's Exchange.Notify.
func (call *stdioCall) notify(method string, params json.RawMessage) error {
	return call.conn.write(call, appendNotification(make([]byte, 0, len(params)+64), method, params), false)
}

// write writes one message as one line, unless the connection is closing or
// the call is done; final marks the call done.
func (c *stdioConn) write(call *stdioCall, msg []byte, final bool) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed || (call != nil && call.done) {
		return nil
	}
	if final {
		call.done = true
	}
	if c.werr != nil {
		return c.werr
	}
	if bytes.ContainsAny(msg, "\r\n") {
		var buf bytes.Buffer
		if err := json.Compact(&buf, msg); err != nil {
			c.logger.LogAttrs(context.Background(), slog.LevelError, "mcp: stdio: message is not valid JSON; not sent",
				slog.String("error", err.Error()))
			if !final {
				return nil
			}
			msg = appendError(nil, call.id, CodeInternalError, "Internal error", nil)
		} else {
			msg = buf.Bytes()
		}
	}
	b := append(c.wbuf[:0], msg...)
	b = append(b, '\n')
	if cap(b) <= 64<<10 {
		c.wbuf = b
	}
	if _, err := c.w.Write(b); err != nil {
		c.werr = err
		close(c.failed)
		c.logger.LogAttrs(context.Background(), slog.LevelError, "mcp: stdio: write failed", slog.String("error", err.Error()))
		return err
	}
	return nil
}

func (c *stdioConn) writeErr() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.werr
}

// cancelCall cancels the requests in flight with the given canonical id
// (one, unless the client reused an id): their contexts end, and nothing
// more is written for them.
func (c *stdioConn) cancelCall(key string) {
	if key == "" {
		return
	}
	c.imu.Lock()
	var calls []*stdioCall
	for call := range c.inflight {
		if call.key == key {
			calls = append(calls, call)
		}
	}
	c.imu.Unlock()
	for _, call := range calls {
		c.wmu.Lock()
		call.done = true
		c.wmu.Unlock()
		call.cancel()
	}
}

// cancelListens ends the subscriptions/listen streams in flight, which
// would otherwise run until the connection ends; their final results are
// still written.
func (c *stdioConn) cancelListens() {
	c.imu.Lock()
	defer c.imu.Unlock()
	for call := range c.inflight {
		if call.method == "subscriptions/listen" {
			call.cancel()
		}
	}
}

// shutdown stops all output and cancels every request in flight.
func (c *stdioConn) shutdown() {
	c.wmu.Lock()
	c.closed = true
	c.wmu.Unlock()
	c.imu.Lock()
	defer c.imu.Unlock()
	for call := range c.inflight {
		call.cancel()
	}
}

// canonicalID returns a map key for a JSON-RPC id (string or number), so
// that 1 and 1.0 name the same request; "" for anything else.
func canonicalID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return "s" + s
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return ""
	}
	return "n" + strconv.FormatFloat(f, 'g', -1, 64)
}

// handle passes one message to the Protocol. A Protocol that panics (Server
// recovers its own) fails that request with -32603, logged once with its
// stack, and the connection goes on.
func (c *stdioConn) handle(ctx context.Context, call *stdioCall, data []byte) (status int, resp []byte) {
	defer func() {
		if r := recover(); r != nil {
			c.logger.LogAttrs(ctx, slog.LevelError, "mcp: stdio: panic while handling a request",
				slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			status, resp = http.StatusInternalServerError, appendError(nil, validID(call.id), CodeInternalError, "Internal error", nil)
		}
	}()
	return c.p.Handle(ctx, c.caller, data)
}
