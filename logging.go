package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"slices"
)

// LogLevel is an MCP log level (the syslog severities).
type LogLevel string

// The MCP log levels, least to most severe.
const (
	LevelDebug     LogLevel = "debug"
	LevelInfo      LogLevel = "info"
	LevelNotice    LogLevel = "notice"
	LevelWarning   LogLevel = "warning"
	LevelError     LogLevel = "error"
	LevelCritical  LogLevel = "critical"
	LevelAlert     LogLevel = "alert"
	LevelEmergency LogLevel = "emergency"
)

// severity orders levels; 0 means not a level.
func (l LogLevel) severity() int {
	switch l {
	case LevelDebug:
		return 1
	case LevelInfo:
		return 2
	case LevelNotice:
		return 3
	case LevelWarning:
		return 4
	case LevelError:
		return 5
	case LevelCritical:
		return 6
	case LevelAlert:
		return 7
	case LevelEmergency:
		return 8
	}
	return 0
}

// Valid reports whether l is one of the MCP log levels.
func (l LogLevel) Valid() bool { return l.severity() > 0 }

// notifier sends one request's notifications.
type notifier struct {
	send  func(method string, params json.RawMessage) error
	token []byte   // raw progressToken, nil when the request has none
	level LogLevel // least severe level sent; "" sends none
}

// LogHandler is a slog.Handler that sends a tool's log records to the
// client of the request, as notifications/message, when the request's log
// level lets them through (the level the request names under 2026-07-28,
// or Options.LogLevel before); other records cost nothing. Each record's
// data is the JSON object slog.JSONHandler would write for it (time,
// level, msg and the attributes, groups nested). Levels map to MCP's: below
// Info debug, Info and Info+1 info, Info+2 and Info+3 notice, Warn warning,
// Error error, Error+4 critical, Error+8 alert, Error+12 and above
// emergency. Use it for the logging of one call:
//
//	log := slog.New(mcp.NewLogHandler(req, "search"))
//	log.Info("index loaded", "entries", n)
type LogHandler struct {
	req    *Request
	logger string
	ops    []logOp // WithAttrs and WithGroup, in order
}

// logOp is one WithAttrs (attrs) or WithGroup (group) call.
type logOp struct {
	attrs []slog.Attr
	group string
}

// NewLogHandler returns a LogHandler for req's client; logger names the
// source in each message ("" for none).
func NewLogHandler(req *Request, logger string) *LogHandler {
	return &LogHandler{req: req, logger: logger}
}

// mcpLevel maps a slog level to the MCP log level it is sent at.
func mcpLevel(l slog.Level) LogLevel {
	switch {
	case l < slog.LevelInfo:
		return LevelDebug
	case l < slog.LevelInfo+2:
		return LevelInfo
	case l < slog.LevelWarn:
		return LevelNotice
	case l < slog.LevelError:
		return LevelWarning
	case l < slog.LevelError+4:
		return LevelError
	case l < slog.LevelError+8:
		return LevelCritical
	case l < slog.LevelError+12:
		return LevelAlert
	}
	return LevelEmergency
}

// Enabled implements slog.Handler.
func (h *LogHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.req != nil && h.req.logs(mcpLevel(l))
}

// Handle implements slog.Handler: it encodes r as slog.JSONHandler does and
// sends it.
func (h *LogHandler) Handle(ctx context.Context, r slog.Record) error {
	if !h.Enabled(ctx, r.Level) {
		return nil
	}
	var buf bytes.Buffer
	var jh slog.Handler = slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.Level(math.MinInt)})
	for _, op := range h.ops {
		if op.attrs != nil {
			jh = jh.WithAttrs(op.attrs)
		} else {
			jh = jh.WithGroup(op.group)
		}
	}
	if err := jh.Handle(ctx, r); err != nil {
		return err
	}
	return h.req.Log(mcpLevel(r.Level), h.logger, json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")))
}

// WithAttrs implements slog.Handler.
func (h *LogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return h.with(logOp{attrs: slices.Clone(attrs)})
}

// WithGroup implements slog.Handler.
func (h *LogHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.with(logOp{group: name})
}

func (h *LogHandler) with(op logOp) *LogHandler {
	return &LogHandler{req: h.req, logger: h.logger, ops: append(slices.Clip(h.ops), op)}
}
