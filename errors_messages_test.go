package mcp

import (
	"context"
	"strings"
	"testing"
)

// TestMessagesAModelCanActOn: every class of bad input is answered with a
// message that says what was wrong and where, and never echoes the input
// unbounded: range, type, null, an integer-valued float accepted as an
// integer, a value the Go type cannot hold, an unknown member, the parse
// bound that was hit and where, the duplicate member's name.
func TestMessagesAModelCanActOn(t *testing.T) {
	type query struct {
		Query string `json:"query"`
		Limit int    `json:"limit,omitempty"`
		Small uint8  `json:"small,omitempty"`
	}
	var got query
	ts := NewToolSet()
	schema := mustSchema(t, `{"type":"object","properties":{
		"query":{"type":"string","maxLength":1000},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"small":{"type":"integer"}},
		"required":["query"],"additionalProperties":false}`)
	if _, err := AddTool(ts, ToolInfo{Name: "search", InputSchema: schema}, func(_ context.Context, _ *Request, q query) (query, error) {
		got = q
		return q, nil
	}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	huge := strings.Repeat("x", 70<<10)
	const prefix = `invalid arguments for tool "search": `
	tests := []struct {
		name, args string
		code       int    // 0: the call succeeds
		msg        string // the whole message
	}{
		{"range", `{"query":"a","limit":0}`, CodeInvalidParams, prefix + "argument /limit: must be at least 1, got 0"},
		{"type", `{"query":5}`, CodeInvalidParams, prefix + "argument /query: expected string, got integer 5"},
		{"null", `{"query":null}`, CodeInvalidParams, prefix + "argument /query: expected string, got null"},
		{"integer-valued float", `{"query":"a","limit":1.0}`, 0, ""},
		{"beyond the Go type", `{"query":"a","small":300}`, CodeInvalidParams, prefix + "argument /small: integer 300 is out of range 0..255"},
		{"unknown member", `{"query":"a","lmit":3}`, CodeInvalidParams, prefix + `arguments: unexpected property "lmit" (the schema allows "limit", "query", "small")`},
		{"missing member", `{"limit":3}`, CodeInvalidParams, prefix + `arguments: missing required property "query"`},
		{"long value", `{"query":"` + strings.Repeat("y", 5000) + `"}`, CodeInvalidParams, prefix + "argument /query: must be at most 1000 characters long, got 5000"},
		{"parse bound", `{"query":"` + huge + `"}`, CodeParseError, "Parse error: string longer than 65 536 bytes at /params/arguments/query"},
		{"duplicate member", `{"query":"a","limit":1,"limit":2}`, CodeInvalidRequest, `Invalid request: duplicate member "limit" at /params/arguments`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = query{}
			status, r, _ := callTool(t, s, versionCtx(Version20250618), `{"name":"search","arguments":`+tt.args+`}`)
			if tt.code == 0 {
				if r.Error != nil || got.Limit != 1 {
					t.Errorf("%s: %+v, the tool got %+v", tt.name, r.Error, got)
				}
				return
			}
			if r.Error == nil || r.Error.Code != tt.code || r.Error.Message != tt.msg {
				t.Errorf("%s: %d %+v\nwant %d %q", tt.name, status, r.Error, tt.code, tt.msg)
			}
			if r.Error != nil && len(r.Error.Message) > 300 {
				t.Errorf("%s: a %d-byte message", tt.name, len(r.Error.Message))
			}
		})
	}
}
