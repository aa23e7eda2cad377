package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// benchBody is a realistic tools/call as a client sends it.
var benchBody = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"The quick brown fox jumps over the lazy dog, twice: the quick brown fox jumps over the lazy dog."},"_meta":{"progressToken":"tok-1"}}}`)

type echoIO struct {
	Text string `json:"text"`
}

func benchEchoServer(b *testing.B) *Server {
	ts := NewToolSet()
	if _, err := AddTool(ts, ToolInfo{Name: "echo", Description: "Echoes its text."}, func(_ context.Context, _ *Request, in echoIO) (echoIO, error) {
		return in, nil
	}); err != nil {
		b.Fatal(err)
	}
	return NewServer(ts, AllowAll(), nil)
}

// BenchmarkHandleEcho measures Server.Handle for a typed echo tool, with
// input and output validation.
func BenchmarkHandleEcho(b *testing.B) {
	s := benchEchoServer(b)
	ctx := context.Background()
	caller := Caller{Principal: "bench"}
	status, resp := s.Handle(ctx, caller, benchBody)
	if status != 200 || len(resp) == 0 {
		b.Fatalf("%d %s", status, resp)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Handle(ctx, caller, benchBody)
	}
}

// The baseline: what a bare handler does with encoding/json for the same
// message and the same response shape.
type baselineRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string         `json:"name"`
		Arguments echoIO         `json:"arguments"`
		Meta      map[string]any `json:"_meta"`
	} `json:"params"`
}

type baselineContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type baselineResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  struct {
		Content           []baselineContent `json:"content"`
		StructuredContent echoIO            `json:"structuredContent"`
	} `json:"result"`
}

func baselineEcho(body []byte) ([]byte, error) {
	var req baselineRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	out := req.Params.Arguments
	text, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	var resp baselineResponse
	resp.JSONRPC, resp.ID = "2.0", req.ID
	resp.Result.Content = []baselineContent{{Type: "text", Text: string(text)}}
	resp.Result.StructuredContent = out
	return json.Marshal(resp)
}

// BenchmarkBaselineEcho is the yardstick for BenchmarkHandleEcho.
func BenchmarkBaselineEcho(b *testing.B) {
	want, err := baselineEcho(benchBody)
	if err != nil {
		b.Fatal(err)
	}
	_, got := benchEchoServer(b).Handle(context.Background(), Caller{}, benchBody)
	if string(got) != string(want) {
		b.Fatalf("the baseline answers differently:\n%s\n%s", want, got)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := baselineEcho(benchBody); err != nil {
			b.Fatal(err)
		}
	}
}

// listServer serves n tools with typed schemas through reg(ts).
func listServer(b *testing.B, n int, wrap func(*ToolSet) Registry) *Server {
	ts := NewToolSet()
	for i := range n {
		if _, err := AddTool(ts, ToolInfo{Name: fmt.Sprintf("tool_%04d", i), Description: "Echoes its text, one of many."},
			func(_ context.Context, _ *Request, in echoIO) (echoIO, error) { return in, nil }); err != nil {
			b.Fatal(err)
		}
	}
	return NewServer(wrap(ts), AllowAll(), nil)
}

// benchmarkList times one tools/list of 1 000 tools.
func benchmarkList(b *testing.B, wrap func(*ToolSet) Registry) {
	s := listServer(b, 1000, wrap)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	status, resp := s.Handle(context.Background(), Caller{}, body)
	if status != 200 || bytes.Count(resp, []byte(`"name":"tool_`)) != 1000 {
		b.Fatalf("%d %.200s", status, resp)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Handle(context.Background(), Caller{}, body)
	}
}

// BenchmarkListToolSet1000 and BenchmarkListWrapper1000 compare tools/list
// of 1 000 tools from a ToolSet and from a one-line wrapper around it: the
// Server serves both by the same path (the wrapper should stay within
// 1.2× of the ToolSet).
func BenchmarkListToolSet1000(b *testing.B) {
	benchmarkList(b, func(ts *ToolSet) Registry { return ts })
}

func BenchmarkListWrapper1000(b *testing.B) {
	benchmarkList(b, func(ts *ToolSet) Registry { return struct{ Registry }{ts} })
}
