package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/embedmcp/mcp"
)

// stdioClient drives ServeStdio over pipes.
type stdioClient struct {
	in     *io.PipeWriter
	lines  chan string
	done   chan error
	cancel context.CancelFunc
}

func startStdio(t *testing.T, p mcp.Protocol, opts *mcp.StdioOptions) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &stdioClient{in: inW, lines: make(chan string, 64), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := mcp.ServeStdio(ctx, p, mcp.Caller{Principal: "local"}, inR, outW, opts)
		outW.Close()
		c.done <- err
	}()
	go func() {
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				c.lines <- line
			}
			if err != nil {
				close(c.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		inR.Close()
		outR.Close()
	})
	return c
}

func (c *stdioClient) send(t *testing.T, msg string) {
	t.Helper()
	if _, err := io.WriteString(c.in, msg+"\n"); err != nil {
		t.Fatal(err)
	}
}

// recv returns the next message written, checking it is exactly one line
// of JSON.
func (c *stdioClient) recv(t *testing.T) string {
	t.Helper()
	line := within(t, "a message on stdout", (<-chan string)(c.lines))
	if line == "" {
		t.Fatal("the output ended")
	}
	if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 || strings.Contains(line, "\r") {
		t.Fatalf("not one line: %q", line)
	}
	if !json.Valid([]byte(line)) {
		t.Fatalf("not JSON: %q", line)
	}
	return strings.TrimSuffix(line, "\n")
}

func TestStdioRoundTrip(t *testing.T) {
	p, _ := testProtocol(t, nil)
	c := startStdio(t, p, nil)
	c.send(t, initBody)
	if r := decodeRPC(t, []byte(c.recv(t))); string(r.ID) != "1" || !strings.Contains(string(r.Result), `"2025-06-18"`) {
		t.Fatalf("initialize: %+v", r)
	}
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(t, "")                                                    // blank lines are skipped
	c.send(t, "  \r")                                                // so are lines of white space
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\r") // CRLF
	if r := decodeRPC(t, []byte(c.recv(t))); string(r.ID) != "2" || !strings.Contains(string(r.Result), `"echo"`) {
		t.Fatalf("tools/list: %s", r.Result)
	}
	c.send(t, echoBody)
	r := decodeRPC(t, []byte(c.recv(t)))
	var res struct {
		StructuredContent struct{ Text string } `json:"structuredContent"`
	}
	must(t, json.Unmarshal(r.Result, &res))
	if res.StructuredContent.Text != "héllo \"x\"\n" {
		t.Fatalf("echo: %s", r.Result)
	}
	c.send(t, whoamiBody)
	must(t, json.Unmarshal(decodeRPC(t, []byte(c.recv(t))).Result, &res))
	if res.StructuredContent.Text != "local" {
		t.Fatalf("caller %q, want the configured one", res.StructuredContent.Text)
	}
	c.send(t, `{"jsonrpc":"2.0","id":3,"method"`) // broken JSON
	if r := decodeRPC(t, []byte(c.recv(t))); r.Error == nil || r.Error.Code != mcp.CodeParseError {
		t.Fatalf("broken JSON: %+v", r)
	}
	c.in.Close()
	if err := within(t, "ServeStdio to return at EOF", c.done); err != nil {
		t.Fatalf("at EOF: %v", err)
	}
	if extra, ok := <-c.lines; ok {
		t.Fatalf("unexpected output %q", extra)
	}
}

// TestStdioNegotiatedVersion: the version initialize negotiates applies to
// later requests (from 2025-11-25, invalid arguments are a tool error).
func TestStdioNegotiatedVersion(t *testing.T) {
	p, _ := testProtocol(t, nil)
	badArgs := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}`
	c := startStdio(t, p, nil)
	c.send(t, badArgs)
	if r := decodeRPC(t, []byte(c.recv(t))); r.Error == nil || r.Error.Code != mcp.CodeInvalidParams {
		t.Fatalf("before initialize (2025-03-26 rules): %+v", r)
	}
	c.send(t, strings.Replace(initBody, "2025-06-18", "2025-11-25", 1))
	c.recv(t)
	c.send(t, badArgs)
	if r := decodeRPC(t, []byte(c.recv(t))); r.Error != nil || !strings.Contains(string(r.Result), `"isError":true`) {
		t.Fatalf("after initialize 2025-11-25: %+v %s", r.Error, r.Result)
	}
}

// TestStdioProgressAndCancel: notifications of a running call interleave
// with other answers; a cancelled call's context ends and it gets no answer.
func TestStdioProgressAndCancel(t *testing.T) {
	p, hk := testProtocol(t, nil)
	c := startStdio(t, p, nil)
	c.send(t, slowCall)
	var n notification
	must(t, json.Unmarshal([]byte(c.recv(t)), &n))
	if n.Method != "notifications/progress" || !strings.Contains(string(n.Params), `"progressToken":"tok"`) {
		t.Fatalf("first message: %+v", n)
	}
	must(t, json.Unmarshal([]byte(c.recv(t)), &n))
	if n.Method != "notifications/message" {
		t.Fatalf("second message: %+v", n)
	}
	within(t, "the tool to start", hk.started)
	// Another request is answered while slow runs.
	c.send(t, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if r := decodeRPC(t, []byte(c.recv(t))); string(r.ID) != "9" {
		t.Fatalf("ping: %+v", r)
	}
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call-1","reason":"user"}}`)
	if err := within(t, "the tool's context to end", hk.cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("tool context ended with %v", err)
	}
	c.send(t, `{"jsonrpc":"2.0","id":10,"method":"ping"}`)
	if r := decodeRPC(t, []byte(c.recv(t))); string(r.ID) != "10" {
		t.Fatalf("after the cancellation, got %+v; want only the ping's answer", r)
	}
	c.in.Close()
	if err := within(t, "ServeStdio to return", c.done); err != nil {
		t.Fatal(err)
	}
	if extra, ok := <-c.lines; ok {
		t.Fatalf("a cancelled call was answered: %q", extra)
	}
}

// TestStdioEOFWaits: at EOF the calls in flight are still answered.
func TestStdioEOFWaits(t *testing.T) {
	p, hk := testProtocol(t, nil)
	c := startStdio(t, p, nil)
	c.send(t, slowCall)
	c.recv(t)
	c.recv(t)
	within(t, "the tool to start", hk.started)
	c.in.Close()
	close(hk.release)
	c.recv(t) // the last progress
	if r := decodeRPC(t, []byte(c.recv(t))); string(r.ID) != `"call-1"` {
		t.Fatalf("final answer: %+v", r)
	}
	if err := within(t, "ServeStdio to return", c.done); err != nil {
		t.Fatal(err)
	}
}

// TestStdioContextCancel: cancelling ctx returns ctx.Err() while a Read is
// blocked, and cancels the calls in flight.
func TestStdioContextCancel(t *testing.T) {
	p, hk := testProtocol(t, nil)
	c := startStdio(t, p, nil)
	c.send(t, slowCall)
	within(t, "the tool to start", hk.started)
	c.cancel()
	if err := within(t, "ServeStdio to return", c.done); !errors.Is(err, context.Canceled) {
		t.Fatalf("returned %v, want context.Canceled", err)
	}
	if err := within(t, "the tool's context to end", hk.cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("tool context ended with %v", err)
	}
}

// TestStdioFraming: a message over the limit is answered with a parse error
// and skipped; messages with line breaks are written on one line.
func TestStdioFraming(t *testing.T) {
	p, _ := testProtocol(t, nil)
	c := startStdio(t, p, &mcp.StdioOptions{MaxMessageBytes: 128})
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 200)+`"}}`)
	if r := decodeRPC(t, []byte(c.recv(t))); r.Error == nil || r.Error.Code != mcp.CodeParseError || !strings.Contains(r.Error.Message, "128") {
		t.Fatalf("long line: %+v", r)
	}
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pretty"}}`)
	var n notification
	must(t, json.Unmarshal([]byte(c.recv(t)), &n))
	if n.Method != "notifications/message" || !strings.Contains(string(n.Params), `{"line":"two"}`) {
		t.Fatalf("log: %s", n.Params)
	}
	r := decodeRPC(t, []byte(c.recv(t)))
	if !strings.Contains(string(r.Result), `"structuredContent":{"a":[1,2]}`) || !strings.Contains(string(r.Result), `"a\nb"`) {
		t.Fatalf("result: %s", r.Result)
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestStdioWriteError(t *testing.T) {
	p, _ := testProtocol(t, nil)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	err := mcp.ServeStdio(context.Background(), p, mcp.Caller{}, in, errWriter{}, nil)
	if err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("ServeStdio = %v, want the write error", err)
	}
}

// TestStdioConcurrentOutput: many concurrent calls, each answered once, on
// whole lines.
func TestStdioConcurrentOutput(t *testing.T) {
	p, _ := testProtocol(t, nil)
	var in bytes.Buffer
	const n = 200
	for i := range n {
		in.WriteString(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("y", i) + `"}}}` + "\n")
	}
	var out syncBuffer
	if err := mcp.ServeStdio(context.Background(), p, mcp.Caller{}, &in, &out, &mcp.StdioOptions{MaxConcurrent: 8}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		r := decodeRPC(t, []byte(line))
		if seen[string(r.ID)] {
			t.Fatalf("id %s answered twice", r.ID)
		}
		seen[string(r.ID)] = true
	}
	if len(seen) != n {
		t.Fatalf("%d answers, want %d", len(seen), n)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStdioListenEndsAtEOF: an open subscriptions/listen stream does not
// keep ServeStdio running after the input ends.
func TestStdioListenEndsAtEOF(t *testing.T) {
	p, _ := testProtocol(t, nil)
	c := startStdio(t, p, nil)
	c.send(t, listenBody)
	var n notification
	must(t, json.Unmarshal([]byte(c.recv(t)), &n))
	if n.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %+v", n)
	}
	c.in.Close()
	if r := decodeRPC(t, []byte(c.recv(t))); string(r.ID) != `"sub"` {
		t.Fatalf("listen's final answer: %+v", r)
	}
	if err := within(t, "ServeStdio to return", c.done); err != nil {
		t.Fatal(err)
	}
}
