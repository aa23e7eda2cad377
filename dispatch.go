package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
)

// dispatch runs one method. Errors are *Error, *ArgumentError,
// ErrUnknownTool or internal errors; rpcError maps them to codes.
func (s *Server) dispatch(ctx context.Context, caller Caller, m *message) ([]byte, error) {
	switch m.method {
	case "initialize":
		return s.initialize(m)
	case "ping":
		return []byte("{}"), nil
	case "logging/setLevel":
		return s.setLevel(m)
	case "tools/list":
		return s.listTools(ctx, caller, m)
	case "tools/call":
		return s.callTool(ctx, caller, m)
	case "server/discover":
		// Served in every era, so that probing clients learn the versions.
		return s.discover(), nil
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found"}
}

func invalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}

// initialize answers the legacy handshake. It is stateless: the answer
// depends on the request only.
func (s *Server) initialize(m *message) ([]byte, error) {
	requested, ok := m.params["protocolVersion"].(string)
	if !ok {
		return nil, invalidParams("protocolVersion must be a string")
	}
	if _, ok := m.params["capabilities"].(map[string]any); !ok {
		return nil, invalidParams("capabilities must be an object")
	}
	client, ok := m.params["clientInfo"].(map[string]any)
	if !ok {
		return nil, invalidParams("clientInfo must be an object")
	}
	if _, ok := client["name"].(string); !ok {
		return nil, invalidParams("clientInfo.name must be a string")
	}
	if _, ok := client["version"].(string); !ok {
		return nil, invalidParams("clientInfo.version must be a string")
	}
	version := ""
	for _, v := range s.legacy {
		if v == requested {
			version = v
		}
	}
	if version == "" {
		if len(s.legacy) == 0 {
			return nil, &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version: this server does not use initialize",
				Data: map[string]any{"supported": s.opts.Versions, "requested": requested}}
		}
		version = s.legacy[len(s.legacy)-1]
	}
	b := []byte(`{"protocolVersion":`)
	b = appendString(b, version)
	b = append(b, `,"capabilities":{"logging":{},"tools":{"listChanged":false}},"serverInfo":`...)
	b = append(b, s.infoRaw...)
	if s.opts.Instructions != "" {
		b = append(b, `,"instructions":`...)
		b = appendString(b, s.opts.Instructions)
	}
	return append(b, '}'), nil
}

// setLevel accepts logging/setLevel. Being stateless, the server keeps
// nothing: the level that applies to a request is the one on the request,
// or the configured default.
func (s *Server) setLevel(m *message) ([]byte, error) {
	l, _ := m.params["level"].(string)
	if !LogLevel(l).Valid() {
		return nil, invalidParams("level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	return []byte("{}"), nil
}

const cursorPrefix = "after:"

// listTools answers tools/list, a page at a time when PageSize is set. The
// cursor is opaque to clients: the name of the last tool of the previous
// page, so that any replica can continue a listing.
func (s *Server) listTools(ctx context.Context, caller Caller, m *message) ([]byte, error) {
	after := ""
	if c, has := m.params["cursor"]; has {
		cs, ok := c.(string)
		if !ok {
			return nil, invalidParams("cursor must be a string")
		}
		raw, err := base64.RawURLEncoding.DecodeString(cs)
		if err != nil || len(raw) <= len(cursorPrefix) || string(raw[:len(cursorPrefix)]) != cursorPrefix || !ValidToolName(string(raw[len(cursorPrefix):])) {
			return nil, invalidParams("invalid cursor %q", cs)
		}
		after = string(raw[len(cursorPrefix):])
	}
	ctx = ContextWithCaller(ctx, caller)
	bp := scratchBufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooledScratch {
			scratchBufs.Put(bp)
		}
	}()
	b := append((*bp)[:0], `{"tools":[`...)
	n, last, more := 0, "", false
	emit := func(name string, desc []byte) bool {
		if after != "" && name <= after {
			return true
		}
		if s.opts.PageSize > 0 && n == s.opts.PageSize {
			more = true
			return false
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, desc...)
		n++
		last = name
		return true
	}
	if ts, ok := s.reg.(*ToolSet); ok {
		for _, e := range ts.permitted(ctx, s.az, caller) {
			if !emit(e.info.Name, e.desc) {
				break
			}
		}
	} else {
		for _, t := range s.reg.List(ctx, s.az, caller) {
			info := t.Info()
			desc, err := describe(info)
			if err != nil {
				return nil, err
			}
			if !emit(info.Name, desc) {
				break
			}
		}
	}
	b = append(b, ']')
	if more {
		b = append(b, `,"nextCursor":`...)
		b = appendString(b, base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix+last)))
	}
	if m.modern {
		b = s.appendCacheable(b)
		b = s.appendModernResult(b, false)
	}
	*bp = b
	return m.respond(b), nil
}

// describe encodes a tool of a Registry other than ToolSet.
func describe(info *ToolInfo) ([]byte, error) {
	var in, out []byte
	var err error
	if info.InputSchema != nil {
		if in, err = rawJSON(info.InputSchema); err != nil {
			return nil, err
		}
	}
	if info.OutputSchema != nil {
		if out, err = rawJSON(info.OutputSchema); err != nil {
			return nil, err
		}
	}
	return encodeInfo(info, in, out)
}

// callTool answers tools/call.
func (s *Server) callTool(ctx context.Context, caller Caller, m *message) ([]byte, error) {
	name, ok := m.params["name"].(string)
	if !ok {
		return nil, invalidParams("name must be a string")
	}
	req := &Request{Caller: caller, ProtocolVersion: m.version, Name: name, Arguments: m.argsRaw}
	if a, has := m.params["arguments"]; has {
		if _, ok := a.(map[string]any); !ok {
			return nil, invalidParams("arguments must be an object")
		}
		req.args = a
	} else {
		req.Arguments = []byte("{}")
		req.args = map[string]any{}
	}
	req.Meta, _ = m.params["_meta"].(map[string]any)
	if m.modern {
		if err := s.readRetry(req, m.params); err != nil {
			return nil, err
		}
	}
	req.notes = s.notifierFor(ctx, m, req.Meta)
	// The request's own copy of the caller goes into the context: boxing a
	// pointer that is already on the heap costs nothing.
	ctx = context.WithValue(ctx, callerKey{}, &req.Caller)
	if m.modern {
		if err := s.checkToolHeaders(ctx, caller, name, req.args); err != nil {
			return nil, err
		}
	}
	if s.opts.CallTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.CallTimeout)
		defer cancel()
	}
	res, err := s.reg.Call(ctx, s.az, req)
	if err == nil && res == nil {
		res = &Result{}
	}
	if _, isToolSet := s.reg.(*ToolSet); err == nil && !isToolSet && res != nil && res.StructuredContent != nil {
		// ToolSet checks what its tools return; other registries may not.
		if _, cerr := appendCheckedJSON(nil, res.StructuredContent); cerr != nil {
			err = fmt.Errorf("%w: tool %q: structuredContent: %v", ErrInvalidOutput, name, cerr)
		}
	}
	if err == nil && m.modern {
		res = s.withServerInfo(res)
	}
	var need *InputRequired
	if errors.As(err, &need) {
		if m.modern {
			return s.inputRequired(req, need, m)
		}
		res, err = ErrorResult(fmt.Sprintf("%v; protocol %s cannot carry such requests: use 2026-07-28", need, m.version)), nil
	}
	if err != nil {
		var ae *ArgumentError
		if errors.As(err, &ae) && m.version >= Version20251125 {
			// SEP-1303: invalid arguments are a tool execution error the
			// model can correct.
			res, err = ErrorResult(ae.Error()), nil
		} else {
			return nil, err
		}
	}
	bp := scratchBufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooledScratch {
			scratchBufs.Put(bp)
		}
	}()
	b, err := appendResult((*bp)[:0], res)
	*bp = b
	if err != nil {
		return nil, fmt.Errorf("tool %q: encoding the result: %w", name, err)
	}
	if s.maxRes > 0 && len(b) > s.maxRes {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: tool result over the size cap",
			slog.String("tool", name), slog.Int("bytes", len(b)), slog.Int("cap", s.maxRes))
		b, _ = appendResult(b[:0], ErrorResult(fmt.Sprintf("%v: %s returned %d bytes, more than the server's cap of %d bytes; ask for less (narrower query, smaller page)",
			ErrResultTooLarge, name, len(b), s.maxRes)))
		*bp = b
	}
	if m.modern {
		b = s.appendModernResult(b, len(res.Meta) > 0)
		*bp = b
	}
	// One exact-size copy: the whole response when the request has an id
	// (Handle), the bare result otherwise (Dispatch).
	return m.respond(b), nil
}

// scratchBufs holds the buffers results are encoded into before their one
// exact-size copy; buffers grown past maxPooledScratch are dropped.
var scratchBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledScratch = 1 << 20

// respond copies a result (without its closing brace) into an exact-size
// buffer: the complete JSON-RPC response when m has an id, marking m so
// that handleOne sends it as it is; the closed result object otherwise.
func (m *message) respond(result []byte) []byte {
	if m.id == nil {
		out := make([]byte, 0, len(result)+1)
		return append(append(out, result...), '}')
	}
	out := make([]byte, 0, len(result)+len(m.id)+len(responsePrefix)+len(responseMid)+2)
	out = append(out, responsePrefix...)
	out = append(out, m.id...)
	out = append(out, responseMid...)
	out = append(out, result...)
	m.complete = true
	return append(out, "}}"...)
}

const (
	responsePrefix = `{"jsonrpc":"2.0","id":`
	responseMid    = `,"result":`
)

// notifierFor builds the request's notifier from the transport's stream,
// the progress token and the log level that applies.
func (s *Server) notifierFor(ctx context.Context, m *message, meta map[string]any) *notifier {
	ex := exchangeFrom(ctx)
	if ex == nil || ex.Notify == nil {
		return nil
	}
	n := &notifier{send: ex.Notify}
	switch tok := meta["progressToken"].(type) {
	case string:
		n.token = appendString(nil, tok)
	case float64:
		n.token = strconv.AppendFloat(nil, tok, 'g', -1, 64)
	}
	if l, ok := meta[metaLogLevel].(string); ok && LogLevel(l).Valid() {
		n.level = LogLevel(l)
	} else if !m.modern {
		n.level = s.opts.LogLevel
	}
	return n
}
