package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
)

// message is one parsed JSON-RPC request on its way through the Server:
// what the parser, the transport and the revision rules found.
type message struct {
	id      []byte // raw id; nil for a notification
	method  string
	params  map[string]any
	argsRaw []byte
	// progressRaw is params._meta.progressToken as sent, echoed byte for
	// byte in notifications/progress.
	progressRaw []byte
	caller      Caller
	tr          transport
	meta        map[string]any // params._meta, checked by selectRevision
	rev         revision       // the revision whose rules apply, chosen by selectRevision
	isError     bool           // answered with an isError tools/call result
	tool        Tool           // the tool of a tools/call, once looked up and authorized
}

// answer dispatches m and says how it was answered: the innermost
// MessageHandler.
func (s *Server) answer(ctx context.Context, m *message) Outcome {
	res, err := s.dispatch(ctx, m)
	if err != nil {
		return Outcome{Err: s.rpcError(ctx, err)}
	}
	return Outcome{response: res, IsError: m.isError}
}

// dispatch runs one method and returns the complete response (see
// message.respond). Errors are *Error, *ArgumentError, *UnknownToolError or
// internal errors; rpcError maps them to codes. server/discover is served
// under every revision, so that probing clients learn the versions; 2026-07-28 has
// no initialize, ping or logging/setLevel, and only it has
// subscriptions/listen. (A switch, not a table of functions: the message
// stays on the stack.)
func (s *Server) dispatch(ctx context.Context, m *message) ([]byte, error) {
	switch m.method {
	case "tools/call":
		return s.callTool(ctx, m)
	case "tools/list":
		return s.listTools(ctx, m)
	case "server/discover":
		return s.discover(ctx, m)
	case "resources/read", "resources/list", "resources/templates/list":
		if s.servesViews() {
			return s.resourceMethod(ctx, m)
		}
	}
	if m.rev.perRequest {
		switch m.method {
		case "subscriptions/listen":
			return s.listen(ctx, m)
		case "tasks/get", "tasks/update", "tasks/cancel":
			if s.tasks != nil {
				return s.taskMethod(ctx, m)
			}
		}
	} else {
		switch m.method {
		case "initialize":
			return s.initialize(ctx, m)
		case "ping":
			return s.ping(ctx, m)
		case "logging/setLevel":
			return s.setLevel(ctx, m)
		}
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found"}
}

// rpcError maps an error from dispatch to the JSON-RPC error sent.
func (s *Server) rpcError(ctx context.Context, err error) *Error {
	var rpc *Error
	var ae *ArgumentError
	var unknown *UnknownToolError
	switch {
	case errors.As(err, &rpc):
		return rpc
	case errors.As(err, &ae):
		return &Error{Code: CodeInvalidParams, Message: ae.Error(), Data: argumentData(ae)}
	case errors.As(err, &unknown):
		return &Error{Code: CodeInvalidParams, Message: unknownToolMessage(unknown.Name), Data: unknownToolData(unknown.Name)}
	}
	s.logger.LogAttrs(ctx, slog.LevelError, "mcp: internal error", slog.String("error", err.Error()))
	return &Error{Code: CodeInternalError, Message: "Internal error"}
}

// unknownToolMessage says, for a model, that a tool does not exist.
func unknownToolMessage(name string) string {
	switch {
	case name == "":
		return "Unknown tool: the name is empty"
	case ValidToolName(name):
		return "Unknown tool: " + name
	}
	return "Unknown tool: " + quoteName(name) + " is not a valid tool name"
}

func invalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}

// initialize answers the handshake of the revisions before 2026-07-28. It is stateless: the answer
// depends on the request only.
func (s *Server) initialize(_ context.Context, m *message) ([]byte, error) {
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
	for _, v := range s.handshakeVersions {
		if v == requested {
			version = v
		}
	}
	if version == "" {
		if len(s.handshakeVersions) == 0 {
			return nil, &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version: this server does not use initialize",
				Data: map[string]any{"supported": s.versions, "requested": shorten(requested)}}
		}
		version = s.handshakeVersions[len(s.handshakeVersions)-1]
	}
	b := appendInitializeResult(nil, &initializeResult{Version: version, ServerInfo: s.infoRaw, Instructions: s.opts.Instructions,
		Resources: s.servesViews()})
	return m.respond(b), nil
}

func (s *Server) ping(_ context.Context, m *message) ([]byte, error) {
	return m.respond(appendEmptyResult(nil)), nil
}

// setLevel accepts logging/setLevel. Being stateless, the server keeps
// nothing: the level that applies to a request is the one on the request,
// the one a logging/setLevel set on its stdio connection (ServeStdio
// remembers it), or the configured default.
func (s *Server) setLevel(_ context.Context, m *message) ([]byte, error) {
	l, _ := m.params["level"].(string)
	if !LogLevel(l).Valid() {
		return nil, invalidParams("level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	return m.respond(appendEmptyResult(nil)), nil
}

const cursorPrefix = "after:"

// listTools answers tools/list, a page at a time when PageSize is set. The
// cursor is opaque to clients: the name of the last tool of the previous
// page, so that any replica can continue a listing.
func (s *Server) listTools(ctx context.Context, m *message) ([]byte, error) {
	after := ""
	if c, has := m.params["cursor"]; has {
		cs, ok := c.(string)
		if !ok {
			return nil, invalidParams("cursor must be a string")
		}
		raw, err := base64.RawURLEncoding.DecodeString(cs)
		if err != nil || len(raw) <= len(cursorPrefix) || string(raw[:len(cursorPrefix)]) != cursorPrefix || !ValidToolName(string(raw[len(cursorPrefix):])) {
			return nil, invalidParams("invalid cursor %s", quoteName(cs))
		}
		after = string(raw[len(cursorPrefix):])
	}
	caller := m.caller // a copy: the message stays on the stack
	sc := scope{caller: &caller, az: s.az}
	ctx = context.WithValue(ctx, scopeKey{}, &sc)
	bp := scratchBufs.Get().(*[]byte)
	defer putScratch(bp)
	// The loop's state is one value: the body of a range over a Registry's
	// iterator is a closure, and what it writes moves to the heap.
	st := &struct {
		b        []byte
		n        int
		last     string
		more     bool
		pageSize int
		after    string
		// hideAppOnly: a 2026-07-28 client that does not render views
		// is not shown the tools only views call.
		hideAppOnly bool
		caller      Caller
		reg         Registry
		az          Authorizer
		tools       *toolCache
		logger      *slog.Logger
	}{b: appendToolsListStart((*bp)[:0]), pageSize: s.opts.PageSize, after: after, caller: caller,
		reg: s.reg, az: s.az, tools: &s.tools, logger: s.logger,
		hideAppOnly: m.rev.perRequest && !declaresExtension(m.meta, UIExtension)}
	for t := range st.reg.All() {
		c, err := st.tools.get(t, st.reg)
		if err != nil {
			st.logger.LogAttrs(ctx, slog.LevelError, "mcp: tool not listed", slog.String("error", err.Error()))
			continue
		}
		name := c.info.Name
		if st.after != "" && name <= st.after {
			continue
		}
		if (st.hideAppOnly && c.info.Visibility.appOnly()) || !allowed(ctx, st.az, st.caller, c.info.Permission) {
			continue
		}
		if st.pageSize > 0 && st.n == st.pageSize {
			st.more = true
			break
		}
		if st.n > 0 {
			st.b = append(st.b, ',')
		}
		st.b = append(st.b, c.desc...)
		st.n++
		st.last = name
	}
	b, more, last := st.b, st.more, st.last
	next := ""
	if more {
		next = base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + last))
	}
	b = appendToolsListEnd(b, next)
	if m.rev.perRequest {
		b = s.appendCacheable(b)
		b = s.appendCompleteResult(b, false)
	}
	*bp = b
	return m.respond(b), nil
}

// respond copies a result object, without its closing brace, into the
// complete JSON-RPC response (wireResponse), in one exact-size buffer.
func (m *message) respond(result []byte) []byte { return wireResponse(m.id, result) }
