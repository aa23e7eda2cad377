package mcp_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

// serveOn serves h on a new loopback http.Server with no RegisterOnShutdown
// of its own and returns its URL.
func serveOn(t *testing.T, h http.Handler) (*http.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return srv, "http://" + ln.Addr().String()
}

// TestShutdownWithoutClose: a Handler whose host registered nothing with
// its http.Server still lets Shutdown return at once with listen streams
// open (the first stream registered the Handler with the server), each
// stream ends with its completion result, and a second server sharing the
// Handler keeps its stream and opens new ones.
func TestShutdownWithoutClose(t *testing.T) {
	ts := mcp.NewToolSet()
	h := mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), nil), nil)
	first, firstURL := serveOn(t, h)
	_, secondURL := serveOn(t, h)

	var readers []*bufio.Reader
	for range 3 {
		resp, br := openListen(context.Background(), t, firstURL)
		defer resp.Body.Close()
		readers = append(readers, br)
	}
	other, otherBr := openListen(context.Background(), t, secondURL)
	defer other.Body.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := first.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v after %v", err, time.Since(start))
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Shutdown took %v with 3 listen streams open, want well under a second", took)
	}
	for _, br := range readers {
		readCompletion(t, br)
	}

	// The second server's stream is still open: nothing arrives on it
	// until its own Shutdown.
	got := make(chan string, 1)
	go func() {
		for {
			ev, err := readEvent(otherBr)
			if err != nil {
				got <- "ended: " + err.Error()
				return
			}
			if !ev.comment {
				got <- ev.data
				return
			}
		}
	}()
	select {
	case ev := <-got:
		t.Fatalf("the other server's stream got %q when the first server shut down", ev)
	case <-time.After(200 * time.Millisecond):
	}
	resp, _ := openListen(context.Background(), t, secondURL)
	resp.Body.Close()
}

// TestShutdownRefusesListensOnThatServer: the Shutdown of the server a
// stream came through ends it, and a listen arriving through that server
// afterwards is refused with 503, although Close was never called; a
// listen through no server is still served.
func TestShutdownRefusesListensOnThatServer(t *testing.T) {
	h := mcp.NewHandler(mcp.NewServer(mcp.NewToolSet(), mcp.AllowAll(), nil), nil)
	srv := &http.Server{}
	listen := func(ctx context.Context) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(listenBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", mcp.Version20260728)
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	viaSrv := context.WithValue(context.Background(), http.ServerContextKey, srv)
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- listen(viaSrv) }()
	// Shut down once the stream is open (it registered h with srv).
	deadline := time.Now().Add(5 * time.Second)
	for {
		select {
		case rec := <-done:
			t.Fatalf("the stream ended before Shutdown: %d %s", rec.Code, rec.Body)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := srv.Shutdown(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		select {
		case rec := <-done:
			if !strings.Contains(rec.Body.String(), `"resultType":"complete"`) {
				t.Errorf("the stream ended without its completion result: %s", rec.Body)
			}
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("Shutdown did not end the stream")
			}
			continue
		}
		break
	}
	if rec := listen(viaSrv); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "shutting down") {
		t.Errorf("listen through the server after its Shutdown: %d %s", rec.Code, rec.Body)
	}
	// Through no server: served (ended here by the request's context).
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if rec := listen(ctx); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "acknowledged") {
		t.Errorf("listen through no server: %d %s", rec.Code, rec.Body)
	}
}
