package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

// listenServer serves an echo tool over a Handler with opts.
func listenServer(t *testing.T, opts *mcp.HandlerOptions) (*httptest.Server, *mcp.Handler) {
	t.Helper()
	ts := mcp.NewToolSet()
	type text struct {
		Text string `json:"text"`
	}
	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo."},
		func(_ context.Context, _ *mcp.Request, in text) (text, error) { return in, nil })
	must(t, err)
	h := mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), nil), opts)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.RegisterOnShutdown(func() { h.Close() })
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, h
}

// postListen sends a subscriptions/listen request with the method header
// given (2026-07-28 requires it to match the body).
func postListen(ctx context.Context, t *testing.T, url, methodHeader string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(listenBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.Version20260728)
	req.Header.Set("Mcp-Method", methodHeader)
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	return resp
}

// openListen opens a stream and reads up to its acknowledgement.
func openListen(ctx context.Context, t *testing.T, url string) (*http.Response, *bufio.Reader) {
	t.Helper()
	resp := postListen(ctx, t, url, "subscriptions/listen")
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("listen: %d %s", resp.StatusCode, b)
	}
	br := bufio.NewReader(resp.Body)
	ev, err := readEvent(br)
	if err != nil || !strings.Contains(ev.data, "notifications/subscriptions/acknowledged") {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	return resp, br
}

// readCompletion reads events up to the listen's final response and checks
// it is the completion result of request "sub".
func readCompletion(t *testing.T, br *bufio.Reader) {
	t.Helper()
	for {
		ev, err := readEvent(br)
		if err != nil {
			t.Fatalf("the stream ended without its completion result: %v", err)
		}
		if ev.comment {
			continue
		}
		var n notification
		must(t, json.Unmarshal([]byte(ev.data), &n))
		if n.Method != "" {
			continue
		}
		if string(n.ID) != `"sub"` || !strings.Contains(ev.data, `"resultType":"complete"`) {
			t.Fatalf("final event %s, want the completion result of \"sub\"", ev.data)
		}
		return
	}
}

func echoPost(t *testing.T, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestListenCap: more streams than MaxListenStreams; those beyond MaxListenStreams are refused with 503,
// Retry-After and a JSON-RPC error naming the limit; the streams held do
// not keep echo from answering; a stream that ends frees its slot; a
// listen cannot dodge the cap by naming another method in its header.
func TestListenCap(t *testing.T) {
	const max = 16
	srv, _ := listenServer(t, &mcp.HandlerOptions{MaxListenStreams: max})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	firstCtx, first := context.WithCancel(ctx)
	defer first()
	for i := 0; i < max; i++ {
		sctx := ctx
		if i == 0 {
			sctx = firstCtx
		}
		resp, _ := openListen(sctx, t, srv.URL)
		defer resp.Body.Close()
	}
	const over = 16
	for i := 0; i < over; i++ {
		resp := postListen(ctx, t, srv.URL, "subscriptions/listen")
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		must(t, json.Unmarshal(b, &e))
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			e.Error.Code != mcp.CodeLimitExceeded || string(e.ID) != `"sub"` || !strings.Contains(e.Error.Message, "MaxListenStreams") {
			t.Fatalf("listen %d past the cap: %d Retry-After %q %s", max+i+1, resp.StatusCode, resp.Header.Get("Retry-After"), b)
		}
	}
	// A listen whose header names another method is refused by the
	// revision rules; it cannot open a stream outside the cap.
	resp := postListen(ctx, t, srv.URL, "tools/list")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "-32020") {
		t.Fatalf("listen under another method header: %d %s", resp.StatusCode, b)
	}

	start := time.Now()
	status, body := echoPost(t, srv.URL)
	if status != 200 || !strings.Contains(body, "still here") {
		t.Fatalf("echo with the streams at their cap: %d %s", status, body)
	}
	t.Logf("echo answered in %v with %d streams open and %d refused", time.Since(start), max, over)

	// A stream that ends gives its slot back.
	first()
	if !eventually(10*time.Second, func() bool {
		resp := postListen(ctx, t, srv.URL, "subscriptions/listen")
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}) {
		t.Fatal("the slot of a closed stream was not given back")
	}
}

// TestListenLifetime: a stream ends after ListenLifetime with its
// completion result.
func TestListenLifetime(t *testing.T) {
	srv, _ := listenServer(t, &mcp.HandlerOptions{ListenLifetime: 200 * time.Millisecond})
	start := time.Now()
	resp, br := openListen(context.Background(), t, srv.URL)
	defer resp.Body.Close()
	readCompletion(t, br)
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("the stream ended after %v, before its lifetime", d)
	}
}

// TestShutdownEndsListens: with Close registered for Shutdown, Shutdown
// returns at once although listen streams are open, and each stream ends
// with its completion result. Without it, Shutdown waits for its deadline.
func TestShutdownEndsListens(t *testing.T) {
	srv, _ := listenServer(t, nil)
	var readers []*bufio.Reader
	for i := 0; i < 3; i++ {
		resp, br := openListen(context.Background(), t, srv.URL)
		defer resp.Body.Close()
		readers = append(readers, br)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v after %v", err, time.Since(start))
	}
	t.Logf("Shutdown returned after %v with 3 listen streams open", time.Since(start))
	for _, br := range readers {
		readCompletion(t, br)
	}
}

// TestCloseRefusesListens: after Close, a new listen is refused with 503
// and ordinary requests are served.
func TestCloseRefusesListens(t *testing.T) {
	srv, h := listenServer(t, nil)
	must(t, h.Close())
	resp := postListen(context.Background(), t, srv.URL, "subscriptions/listen")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "shutting down") {
		t.Fatalf("listen after Close: %d %s", resp.StatusCode, b)
	}
	if status, body := echoPost(t, srv.URL); status != 200 || !strings.Contains(body, "still here") {
		t.Fatalf("echo after Close: %d %s", status, body)
	}
}
