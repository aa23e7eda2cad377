package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"testing/slogtest"
)

// TestLogHandlerSlogtest runs testing/slogtest over LogHandler: what reaches
// the client as notifications/message data is a faithful slog record.
func TestLogHandlerSlogtest(t *testing.T) {
	var msgs []json.RawMessage
	req := &Request{c: callState{notes: &notifier{level: LevelDebug, send: func(method string, params json.RawMessage) error {
		if method != "notifications/message" {
			t.Errorf("method %q", method)
		}
		msgs = append(msgs, params)
		return nil
	}}}}
	results := func() []map[string]any {
		var out []map[string]any
		for _, p := range msgs {
			var n struct {
				Level  string         `json:"level"`
				Logger string         `json:"logger"`
				Data   map[string]any `json:"data"`
			}
			if err := json.Unmarshal(p, &n); err != nil {
				t.Fatal(err)
			}
			if n.Logger != "tests" || !LogLevel(n.Level).Valid() {
				t.Errorf("notification %s", p)
			}
			out = append(out, n.Data)
		}
		return out
	}
	if err := slogtest.TestHandler(NewLogHandler(req, "tests"), results); err != nil {
		t.Error(err)
	}
}

// TestLogHandlerLevels: records below the request's level are not sent (and
// not even encoded); the level each is sent at follows the mapping; without
// a stream nothing is enabled.
func TestLogHandlerLevels(t *testing.T) {
	var sent []string
	req := &Request{c: callState{notes: &notifier{level: LevelWarning, send: func(_ string, params json.RawMessage) error {
		var n struct{ Level, Logger string }
		_ = json.Unmarshal(params, &n)
		sent = append(sent, n.Level)
		return nil
	}}}}
	log := slog.New(NewLogHandler(req, ""))
	for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelInfo + 2, slog.LevelWarn, slog.LevelError, slog.LevelError + 4, slog.LevelError + 8, slog.LevelError + 12, slog.LevelError + 40} {
		log.Log(context.Background(), l, "m")
	}
	if got := strings.Join(sent, ","); got != "warning,error,critical,alert,emergency,emergency" {
		t.Errorf("sent at %s", got)
	}
	if NewLogHandler(&Request{}, "").Enabled(context.Background(), slog.LevelError+12) {
		t.Error("enabled without a stream")
	}
}

// TestLogHandlerThroughServer: a typed tool logs with slog; the client
// receives the records at or above the level the request named (2026-07-28).
func TestLogHandlerThroughServer(t *testing.T) {
	ts := NewToolSet()
	if _, err := AddTool(ts, ToolInfo{Name: "work"}, func(_ context.Context, req *Request, _ struct{}) (struct{}, error) {
		log := slog.New(NewLogHandler(req, "work")).With("job", 7)
		log.Debug("detail")
		log.Info("started", "step", 1)
		log.Warn("slow")
		return struct{}{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	var got []string
	ex := &Exchange{Notify: func(_ string, params json.RawMessage) error {
		got = append(got, string(params))
		return nil
	}}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}`
	if status, resp := s.Handle(ContextWithExchange(context.Background(), ex), Caller{}, []byte(body)); status != 200 {
		t.Fatalf("%d %s", status, resp)
	}
	if len(got) != 2 || !strings.Contains(got[0], `"level":"info","logger":"work","data":{`) ||
		!strings.Contains(got[0], `"msg":"started","job":7,"step":1}`) || !strings.Contains(got[1], `"level":"warning"`) {
		t.Errorf("notifications:\n%s", strings.Join(got, "\n"))
	}
}
