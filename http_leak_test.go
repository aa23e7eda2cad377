package mcp_test

// Goroutine leak checks for the HTTP transport: after streams the client
// abandons, calls it walks away from, and calls stopped by their deadline,
// the process is back to the goroutines it had before (polled with a
// deadline, no external dependency).

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

// leakBaseline is the goroutine count before a scenario.
type leakBaseline struct{ n int }

func leakSnapshot() leakBaseline { return leakBaseline{runtime.NumGoroutine()} }

// check waits up to 10 s for the goroutine count to come back to the
// baseline, and fails with a dump of every goroutine if it does not.
func (b leakBaseline) check(t *testing.T) {
	t.Helper()
	if !eventually(10*time.Second, func() bool { return runtime.NumGoroutine() <= b.n }) {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%d goroutines, %d before the scenario:\n%s", runtime.NumGoroutine(), b.n, buf)
	}
}

// leakFixture is a loopback server with a tool that reports progress and
// then blocks until its context ends, and a client that opens a new
// connection for every request, so that no idle connection outlives one.
type leakFixture struct {
	url     string
	client  *http.Client
	started chan struct{} // the blocking tool has sent its progress
	ended   chan error    // the blocking tool's context ended with this
	tools   *mcp.ToolSet
}

func newLeakFixture(t *testing.T, opts *mcp.Options) *leakFixture {
	t.Helper()
	f := &leakFixture{started: make(chan struct{}, 1), ended: make(chan error, 1), tools: mcp.NewToolSet()}
	err := f.tools.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "block", Description: "Progress, then wait for the end."},
		func(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
			_ = req.Progress(1, 0, "working")
			f.started <- struct{}{}
			<-ctx.Done()
			f.ended <- ctx.Err()
			return nil, ctx.Err()
		}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mcp.NewHandler(mcp.NewServer(f.tools, mcp.AllowAll(), opts), &mcp.HandlerOptions{KeepAlive: 5 * time.Millisecond}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	f.client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	t.Cleanup(f.client.CloseIdleConnections)
	return f
}

func (f *leakFixture) post(ctx context.Context, t *testing.T, body, accept string, headers map[string]string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return f.client.Do(req)
}

// warm makes one complete request, so that the baseline counts the server's
// own goroutines and nothing of a request.
func (f *leakFixture) warm(t *testing.T) {
	t.Helper()
	resp, err := f.post(context.Background(), t, `{"jsonrpc":"2.0","id":0,"method":"ping"}`, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func (f *leakFixture) waitEnded(t *testing.T, want error) {
	t.Helper()
	select {
	case err := <-f.ended:
		if err != want {
			t.Errorf("the tool's context ended with %v, want %v", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tool's context never ended")
	}
}

const leakBlockCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","_meta":{"progressToken":"p"}}}`

// TestLeakSSECancelled: the client reads the first event of an SSE answer
// (progress, with keep-alives running) and goes away. The tool's context is
// cancelled and every goroutine of the request ends.
func TestLeakSSECancelled(t *testing.T) {
	f := newLeakFixture(t, nil)
	f.warm(t)
	base := leakSnapshot()

	ctx, cancel := context.WithCancel(context.Background())
	resp, err := f.post(ctx, t, leakBlockCall, "application/json, text/event-stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want an SSE stream", ct)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "event: message") {
		t.Fatalf("first line %q, %v", line, err)
	}
	<-f.started
	cancel()
	resp.Body.Close()
	f.waitEnded(t, context.Canceled)
	base.check(t)
}

// TestLeakDisconnectMidCall: a JSON-only client gives up before the answer
// (its timeout fires while the tool runs).
func TestLeakDisconnectMidCall(t *testing.T) {
	f := newLeakFixture(t, nil)
	f.warm(t)
	base := leakSnapshot()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		resp, err := f.post(ctx, t, leakBlockCall, "application/json", nil)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-f.started
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the request should have failed on the client's side")
	}
	f.waitEnded(t, context.Canceled)
	base.check(t)
}

// TestLeakCallTimeout: a tool that hangs until Options.CallTimeout fires;
// the client gets its answer and nothing stays behind.
func TestLeakCallTimeout(t *testing.T) {
	f := newLeakFixture(t, &mcp.Options{CallTimeout: 30 * time.Millisecond})
	f.warm(t)
	base := leakSnapshot()

	for _, accept := range []string{"application/json", "application/json, text/event-stream"} {
		resp, err := f.post(context.Background(), t, leakBlockCall, accept, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !strings.Contains(string(body), `"isError":true`) {
			t.Fatalf("%s: answer %s, %v", accept, body, err)
		}
		<-f.started
		f.waitEnded(t, context.DeadlineExceeded)
	}
	base.check(t)
}

// TestLeakListenClosed: a subscriptions/listen stream the client closes
// after the acknowledgement; its watcher and goroutines go with it. A
// change of the tool list afterwards reaches no one and leaks nothing.
func TestLeakListenClosed(t *testing.T) {
	f := newLeakFixture(t, nil)
	f.warm(t)
	base := leakSnapshot()

	body := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		resp, err := f.post(ctx, t, body, "application/json, text/event-stream",
			map[string]string{"Mcp-Protocol-Version": mcp.Version20260728, "Mcp-Method": "subscriptions/listen"})
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(resp.Body)
		var ack string
		for !strings.Contains(ack, "acknowledged") {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended before the acknowledgement: %v (status %d)", err, resp.StatusCode)
			}
			ack += line
		}
		cancel()
		resp.Body.Close()
	}
	// Changes after the streams closed must find no watcher left.
	for i := 0; i < 3; i++ {
		name := "late" + string(rune('a'+i))
		if err := f.tools.Register(mcp.NewRawTool(mcp.ToolInfo{Name: name}, func(context.Context, *mcp.Request) (*mcp.Result, error) { return nil, nil })); err != nil {
			t.Fatal(err)
		}
	}
	base.check(t)
}
