package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestStdioSetLevel: over stdio the connection is the session
// logging/setLevel sets a level for: the calls after it send log
// messages at that level and above only; a refused level changes nothing.
func TestStdioSetLevel(t *testing.T) {
	ts := mcp.NewToolSet()
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "chatty", Description: "Logs at info and at error."},
		func(_ context.Context, req *mcp.Request, _ struct{}) (struct{}, error) {
			_ = req.Log(mcp.LevelInfo, "chatty", "an info")
			_ = req.Log(mcp.LevelError, "chatty", "an error")
			return struct{}{}, nil
		}); err != nil {
		t.Fatal(err)
	}
	c := startStdio(t, mcp.NewServer(ts, mcp.AllowAll(), nil), nil)
	c.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.recv(t)
	// logs calls chatty and returns the levels of the log messages sent
	// before its answer.
	logs := func(id string) []string {
		t.Helper()
		c.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"chatty","arguments":{}}}`)
		var levels []string
		for {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Level string `json:"level"`
				} `json:"params"`
			}
			must(t, json.Unmarshal([]byte(c.recv(t)), &msg))
			if msg.Method != "notifications/message" {
				if string(msg.ID) != id {
					t.Fatalf("answer to %s, want %s", msg.ID, id)
				}
				return levels
			}
			levels = append(levels, msg.Params.Level)
		}
	}
	setLevel := func(id, level string) string {
		c.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"logging/setLevel","params":{"level":"`+level+`"}}`)
		return c.recv(t)
	}
	check := func(got []string, want ...string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("log messages %v, want %v", got, want)
		}
	}
	check(logs("1"), "info", "error") // Options.LogLevel: info
	setLevel("2", "error")
	check(logs("3"), "error")
	if answer := setLevel("4", "loud"); decodeRPC(t, []byte(answer)).Error == nil {
		t.Fatalf("logging/setLevel loud: %s, want an error", answer)
	}
	check(logs("5"), "error")
	setLevel("6", "debug")
	check(logs("7"), "info", "error")
}
