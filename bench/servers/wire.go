package servers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// ProtocolVersion is the MCP-Protocol-Version every benchmark request sends.
const ProtocolVersion = "2025-06-18"

// SetHeaders sets the headers of a stateless MCP POST: JSON body, both
// answer types accepted, the protocol version. No Origin, no session.
func SetHeaders(h http.Header) {
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{"application/json, text/event-stream"}
	h["Mcp-Protocol-Version"] = []string{ProtocolVersion}
}

// AppendEchoCall appends a tools/call of the echo tool with the given id
// and text. text is written as is: it must not need JSON escaping.
func AppendEchoCall(b []byte, id int64, text string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`...)
	b = append(b, text...)
	return append(b, `"}}}`...)
}

// AppendListCall appends a tools/list request with the given id.
func AppendListCall(b []byte, id int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, `,"method":"tools/list","params":{}}`...)
}

// Response is a JSON-RPC response as the checks decode it.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Tools             []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// DecodeResponse decodes a JSON response body, or the last data line of a
// text/event-stream body, and checks its id.
func DecodeResponse(body []byte, id int64) (*Response, error) {
	if bytes.HasPrefix(body, []byte("event:")) || bytes.HasPrefix(body, []byte("data:")) {
		var last []byte
		for _, line := range bytes.Split(body, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				last = bytes.TrimSpace(d)
			}
		}
		body = last
	}
	var r Response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decoding the response: %v; body %.200q", err, body)
	}
	if r.JSONRPC != "2.0" {
		return nil, fmt.Errorf("jsonrpc is %q, want \"2.0\"", r.JSONRPC)
	}
	if want := strconv.FormatInt(id, 10); string(r.ID) != want {
		return nil, fmt.Errorf("id is %s, want %s", r.ID, want)
	}
	return &r, nil
}

// CheckEcho checks that body is the successful echo result of the call
// with id and text: structuredContent {"text": text} and one text content
// block holding that object as JSON.
func CheckEcho(body []byte, id int64, text string) error {
	r, err := DecodeResponse(body, id)
	if err != nil {
		return err
	}
	if r.Error != nil {
		return fmt.Errorf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	if r.Result == nil {
		return fmt.Errorf("no result: %.200q", body)
	}
	if r.Result.IsError {
		return fmt.Errorf("isError result: %+v", r.Result.Content)
	}
	var sc EchoOut
	if err := json.Unmarshal(r.Result.StructuredContent, &sc); err != nil {
		return fmt.Errorf("structuredContent %.100q: %v", r.Result.StructuredContent, err)
	}
	if sc.Text != text {
		return fmt.Errorf("structuredContent.text is %.60q (%d bytes), want %.60q (%d bytes)", sc.Text, len(sc.Text), text, len(text))
	}
	if len(r.Result.Content) != 1 || r.Result.Content[0].Type != "text" {
		return fmt.Errorf("content is %+v, want one text block", r.Result.Content)
	}
	var copied EchoOut
	if err := json.Unmarshal([]byte(r.Result.Content[0].Text), &copied); err != nil || copied.Text != text {
		return fmt.Errorf("content text %.100q is not the JSON of the result (%v)", r.Result.Content[0].Text, err)
	}
	return nil
}

// CheckList checks that body is a tools/list result with n tools, each
// with an input and an output schema, the echo tool among them.
func CheckList(body []byte, id int64, n int) error {
	r, err := DecodeResponse(body, id)
	if err != nil {
		return err
	}
	if r.Error != nil {
		return fmt.Errorf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	if r.Result == nil || len(r.Result.Tools) != n {
		got := -1
		if r.Result != nil {
			got = len(r.Result.Tools)
		}
		return fmt.Errorf("%d tools listed, want %d", got, n)
	}
	echo := false
	for _, t := range r.Result.Tools {
		if len(t.InputSchema) == 0 || len(t.OutputSchema) == 0 {
			return fmt.Errorf("tool %q lacks a schema", t.Name)
		}
		echo = echo || t.Name == EchoName
	}
	if !echo {
		return fmt.Errorf("the echo tool is not listed")
	}
	return nil
}
