package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	name    string
	data    string
	comment bool
}

// readEvent reads the next event (or comment) from an SSE stream, joining
// data lines with "\n" as the SSE specification says.
func readEvent(br *bufio.Reader) (sseEvent, error) {
	var ev sseEvent
	var data []string
	seen := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if !seen {
				continue
			}
			ev.data = strings.Join(data, "\n")
			return ev, nil
		case strings.HasPrefix(line, ":"):
			ev.comment, seen = true, true
		case strings.HasPrefix(line, "event: "):
			ev.name, seen = strings.TrimPrefix(line, "event: "), true
		case strings.HasPrefix(line, "data: "):
			data, seen = append(data, strings.TrimPrefix(line, "data: ")), true
		case strings.HasPrefix(line, "data:"):
			data, seen = append(data, strings.TrimPrefix(line, "data:")), true
		default:
			return ev, errors.New("unexpected SSE line " + line)
		}
	}
}

// notification is a decoded JSON-RPC notification.
type notification struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	ID      json.RawMessage `json:"id"`
}

// within fails the test if ch yields nothing for a long time: a guard
// against hangs (a stream that is not flushed), not a timing assertion.
func within[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

const slowCall = `{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"tok"}}}`

// testStreaming checks that each notification is flushed while the tool is
// still running: the tool waits until the test has read its first event.
func testStreaming(t *testing.T, srv *httptest.Server, hk *hooks) {
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(slowCall))
	must(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.Version20251125)
	resp, err := srv.Client().Do(req)
	must(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Errorf("stream headers: %v", resp.Header)
	}
	br := bufio.NewReader(resp.Body)
	events := make(chan sseEvent)
	errs := make(chan error, 1)
	go func() {
		for {
			ev, err := readEvent(br)
			if err != nil {
				errs <- err
				close(events)
				return
			}
			if !ev.comment {
				events <- ev
			}
		}
	}()

	first := within(t, "the first progress event before the tool finishes", events)
	var n notification
	must(t, json.Unmarshal([]byte(first.data), &n))
	if first.name != "message" || n.JSONRPC != "2.0" || n.Method != "notifications/progress" || n.ID != nil ||
		string(n.Params) != `{"progressToken":"tok","progress":1,"total":2,"message":"started"}` {
		t.Fatalf("first event: %+v %s", first, n.Params)
	}
	second := within(t, "the log event", events)
	must(t, json.Unmarshal([]byte(second.data), &n))
	if n.Method != "notifications/message" || !strings.Contains(string(n.Params), `"working"`) {
		t.Fatalf("second event: %s", second.data)
	}
	<-hk.started
	close(hk.release)
	third := within(t, "the last progress event", events)
	must(t, json.Unmarshal([]byte(third.data), &n))
	if n.Method != "notifications/progress" || !strings.Contains(string(n.Params), `"progress":2`) {
		t.Fatalf("third event: %s", third.data)
	}
	final := within(t, "the response event", events)
	r := decodeRPC(t, []byte(final.data))
	if string(r.ID) != `"call-1"` || !strings.Contains(string(r.Result), `"done"`) {
		t.Fatalf("final event: %s", final.data)
	}
	if err := within(t, "the end of the stream", errs); !errors.Is(err, io.EOF) {
		t.Fatalf("after the response: %v, want EOF", err)
	}
}

func TestSSEStreamHTTP1(t *testing.T) {
	p, hk := testProtocol(t, nil)
	srv := httptest.NewServer(mcp.NewHandler(p, nil))
	defer srv.Close()
	testStreaming(t, srv, hk)
}

func TestSSEStreamHTTP2(t *testing.T) {
	p, hk := testProtocol(t, nil)
	var proto string
	h := mcp.NewHandler(p, nil)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto = r.Proto
		h.ServeHTTP(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	testStreaming(t, srv, hk)
	if proto != "HTTP/2.0" {
		t.Fatalf("served over %s, want HTTP/2.0", proto)
	}
}

// TestSSEDroppedWithoutAccept: a client that does not accept SSE gets JSON;
// the tool's notifications are dropped.
func TestSSEDroppedWithoutAccept(t *testing.T) {
	p, hk := testProtocol(t, nil)
	close(hk.release)
	r := newPost(slowCall)
	r.Header.Set("Accept", "application/json")
	w := serve(mcp.NewHandler(p, nil), r)
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %q %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if r := decodeRPC(t, w.Body.Bytes()); !strings.Contains(string(r.Result), `"done"`) {
		t.Fatalf("result %s", r.Result)
	}
}

// TestSSEOnlyAccept: a client that accepts only SSE gets its answer as a
// one-event stream, even without notifications.
func TestSSEOnlyAccept(t *testing.T) {
	p, _ := testProtocol(t, nil)
	r := newPost(echoBody)
	r.Header.Set("Accept", "text/event-stream")
	w := serve(mcp.NewHandler(p, nil), r)
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %q", w.Code, w.Header().Get("Content-Type"))
	}
	ev, err := readEvent(bufio.NewReader(w.Body))
	must(t, err)
	if r := decodeRPC(t, []byte(ev.data)); string(r.ID) != "7" {
		t.Fatalf("event %+v", ev)
	}
}

// TestSSELineBreaks: raw JSON with line breaks (CR, LF, CRLF) from a tool is
// split into several data lines that join back into the same JSON.
func TestSSELineBreaks(t *testing.T) {
	p, _ := testProtocol(t, nil)
	w := serve(mcp.NewHandler(p, nil), newPost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pretty"}}`))
	if w.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("not streamed: %s", w.Body)
	}
	for _, line := range strings.Split(w.Body.String(), "\n") {
		if line != "" && !strings.HasPrefix(line, "data: ") && line != "event: message" {
			t.Fatalf("stray line %q in\n%s", line, w.Body)
		}
	}
	br := bufio.NewReader(w.Body)
	ev, err := readEvent(br)
	must(t, err)
	var n notification
	must(t, json.Unmarshal([]byte(ev.data), &n))
	var params struct{ Data struct{ Line string } }
	must(t, json.Unmarshal(n.Params, &params))
	if params.Data.Line != "two" {
		t.Fatalf("log data %s", n.Params)
	}
	ev, err = readEvent(br)
	must(t, err)
	var res struct {
		Result struct {
			Content           []struct{ Text string }
			StructuredContent struct{ A []int }
		}
	}
	must(t, json.Unmarshal([]byte(ev.data), &res))
	if res.Result.Content[0].Text != "a\nb" || len(res.Result.StructuredContent.A) != 2 {
		t.Fatalf("result %s", ev.data)
	}
}

// TestSSENotifyAfterReturn: a tool that keeps its Request and notifies
// after the answer was written writes nothing.
func TestSSENotifyAfterReturn(t *testing.T) {
	p, hk := testProtocol(t, nil)
	w := serve(mcp.NewHandler(p, nil), newPost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keep","_meta":{"progressToken":1}}}`))
	before := w.Body.String()
	req := <-hk.late
	if err := req.Progress(1, 0, "late"); err != nil {
		t.Fatalf("late Progress: %v", err)
	}
	if err := req.Log(mcp.LevelError, "", "late"); err != nil {
		t.Fatalf("late Log: %v", err)
	}
	if w.Body.String() != before || strings.Contains(before, "late") {
		t.Fatalf("written after the handler returned:\n%s", w.Body)
	}
	if w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("a tool without notifications was streamed")
	}
}

// TestSSEConcurrentNotify: notifications from many goroutines arrive whole.
func TestSSEConcurrentNotify(t *testing.T) {
	ts := mcp.NewToolSet()
	const goroutines, each = 8, 25
	must(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "fan", Description: "Fan out."},
		func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						_ = req.Progress(float64(g*each+i+1), 0, "")
					}
				}()
			}
			wg.Wait()
			return mcp.TextResult("ok"), nil
		})))
	h := mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), nil), nil)
	w := serve(h, newPost(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fan","_meta":{"progressToken":"p"}}}`))
	br := bufio.NewReader(w.Body)
	seen := map[string]bool{}
	for {
		ev, err := readEvent(br)
		if errors.Is(err, io.EOF) {
			break
		}
		must(t, err)
		var n notification
		must(t, json.Unmarshal([]byte(ev.data), &n))
		if n.Method == "" {
			if len(seen) != goroutines*each {
				t.Fatalf("response after %d distinct progress events, want %d", len(seen), goroutines*each)
			}
			continue
		}
		seen[string(n.Params)] = true
	}
	if len(seen) != goroutines*each {
		t.Fatalf("%d distinct progress events, want %d", len(seen), goroutines*each)
	}
}

// TestSSEKeepAlive: a quiet stream gets comment lines.
func TestSSEKeepAlive(t *testing.T) {
	p, hk := testProtocol(t, nil)
	srv := httptest.NewServer(mcp.NewHandler(p, &mcp.HandlerOptions{KeepAlive: 5 * time.Millisecond}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(slowCall))
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	must(t, err)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	got := make(chan bool)
	go func() {
		for {
			ev, err := readEvent(br)
			if err != nil {
				close(got)
				return
			}
			if ev.comment {
				got <- true
				return
			}
		}
	}()
	if !within(t, "a keep-alive comment", got) {
		t.Fatal("stream ended without a keep-alive comment")
	}
	close(hk.release)
}

// TestCancelOnDisconnect: the tool's context ends when the client goes away.
func TestCancelOnDisconnect(t *testing.T) {
	p, hk := testProtocol(t, nil)
	srv := httptest.NewServer(mcp.NewHandler(p, nil))
	defer srv.Close()
	for _, accept := range []string{"application/json", "application/json, text/event-stream"} {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(slowCall))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		done := make(chan error, 1)
		go func() {
			resp, err := srv.Client().Do(req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			done <- err
		}()
		within(t, "the tool to start", hk.started)
		cancel()
		if err := within(t, "the tool's context to end", hk.cancelled); !errors.Is(err, context.Canceled) {
			t.Fatalf("Accept %q: tool context ended with %v, want Canceled", accept, err)
		}
		<-done
	}
}

const listenBody = `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// TestSSEListen: a subscriptions/listen stream delivers change
// notifications as they happen and ends when the client goes away.
func TestSSEListen(t *testing.T) {
	ts := mcp.NewToolSet()
	srv := httptest.NewServer(mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), nil), nil))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(listenBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.Version20260728)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := srv.Client().Do(req)
	must(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	next := func() notification {
		ch := make(chan sseEvent, 1)
		go func() {
			ev, err := readEvent(br)
			if err != nil {
				close(ch)
				return
			}
			ch <- ev
		}()
		ev := within(t, "an event", (<-chan sseEvent)(ch))
		var n notification
		must(t, json.Unmarshal([]byte(ev.data), &n))
		return n
	}
	if n := next(); n.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first event %+v", n)
	}
	must(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "new", Description: "New."},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult(""), nil })))
	if n := next(); n.Method != "notifications/tools/list_changed" {
		t.Fatalf("second event %+v", n)
	}
}
