package mcp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestErrorIsFromTheWire: an *mcp.Error decoded from the Server's answer
// matches ErrUnknownTool or ErrInvalidArguments by its data, in every
// revision that answers with a JSON-RPC error; an -32602 without that data
// (a bad cursor, another code, a message that merely says so) matches
// neither.
func TestErrorIsFromTheWire(t *testing.T) {
	p, _ := testProtocol(t, nil)
	decode := func(body string) *mcp.Error {
		t.Helper()
		_, resp := p.Handle(t.Context(), mcp.Caller{Principal: "t", Grants: []string{"*"}}, []byte(body))
		var r struct{ Error *mcp.Error }
		if err := json.Unmarshal(resp, &r); err != nil || r.Error == nil {
			t.Fatalf("%s: no error in %s (%v)", body, resp, err)
		}
		return r.Error
	}
	unknown := decode(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nosuch","arguments":{}}}`)
	if !errors.Is(unknown, mcp.ErrUnknownTool) || errors.Is(unknown, mcp.ErrInvalidArguments) {
		t.Errorf("unknown tool %+v: Is(ErrUnknownTool) %v, Is(ErrInvalidArguments) %v", unknown,
			errors.Is(unknown, mcp.ErrUnknownTool), errors.Is(unknown, mcp.ErrInvalidArguments))
	}
	bad := decode(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}`)
	if !errors.Is(bad, mcp.ErrInvalidArguments) || errors.Is(bad, mcp.ErrUnknownTool) {
		t.Errorf("invalid arguments %+v: Is(ErrInvalidArguments) %v", bad, errors.Is(bad, mcp.ErrInvalidArguments))
	}
	if d, _ := bad.Data.(map[string]any); d["tool"] != "echo" || d["path"] != "/text" {
		t.Errorf("data of invalid arguments = %v, want tool echo, path /text", bad.Data)
	}
	cursor := decode(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"!!"}}`)
	if cursor.Code != mcp.CodeInvalidParams || errors.Is(cursor, mcp.ErrUnknownTool) || errors.Is(cursor, mcp.ErrInvalidArguments) {
		t.Errorf("bad cursor %+v matches a tool error", cursor)
	}
	// A name that is no valid tool name is not repeated in the data.
	long := decode(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + strings.Repeat("x", 300) + `"}}`)
	if d, _ := long.Data.(map[string]any); d["reason"] != mcp.ReasonUnknownTool || d["tool"] != nil {
		t.Errorf("data of an invalid name = %v", long.Data)
	}
	for _, e := range []*mcp.Error{
		{Code: mcp.CodeInvalidParams, Message: "Unknown tool: x"},
		{Code: mcp.CodeInternalError, Data: mcp.ErrorData{Reason: mcp.ReasonUnknownTool}},
		{Code: mcp.CodeInvalidParams, Data: map[string]any{"reason": 1}},
		{Code: mcp.CodeInvalidParams, Data: (*mcp.ErrorData)(nil)},
	} {
		if errors.Is(e, mcp.ErrUnknownTool) || errors.Is(e, mcp.ErrInvalidArguments) {
			t.Errorf("%+v matches a tool error", e)
		}
	}
	if !errors.Is(fmt.Errorf("wrapped: %w", &mcp.Error{Code: mcp.CodeInvalidParams, Data: &mcp.ErrorData{Reason: mcp.ReasonInvalidArguments}}), mcp.ErrInvalidArguments) {
		t.Error("a wrapped *Error with ErrorData does not match ErrInvalidArguments")
	}
}
