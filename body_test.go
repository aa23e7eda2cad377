package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

// slowBodyAttack opens n connections to url that each declare a body of
// declared bytes and send only its first byte, and returns them once the
// handler has started on every request.
func slowBodyAttack(t *testing.T, addr string, entered *atomic.Int64, n, declared int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: %d\r\n\r\n{", addr, declared)
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if _, err := c.Write([]byte(head)); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	if !eventually(10*time.Second, func() bool { return entered.Load() >= int64(n) }) {
		t.Fatalf("%d of %d requests reached the handler", entered.Load(), n)
	}
	return conns
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// countEntered wraps h, counting the requests that reached it.
func countEntered(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	})
}

// TestSlowBodyMemory is the slow-body attack scaled down: 200 connections
// declare 4 MiB bodies and trickle bytes. What the handler holds must be
// bounded by what arrived, not by what was declared.
func TestSlowBodyMemory(t *testing.T) {
	var entered atomic.Int64
	h := mcp.NewHandler(mcp.NewServer(nil, mcp.AllowAll(), nil), nil)
	srv := httptest.NewServer(countEntered(h, &entered))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	const n, declared = 200, 4 << 20
	before := heapAlloc()
	conns := slowBodyAttack(t, addr, &entered, n, declared)
	defer closeAll(conns)
	for range 3 {
		for _, c := range conns {
			_, _ = c.Write([]byte(" "))
		}
	}
	during := heapAlloc()
	t.Logf("heap before %.1f MiB, with %d connections declaring %d MiB each: %.1f MiB",
		mib(before), n, declared>>20, mib(during))
	if during > 64<<20 {
		t.Errorf("heap %.1f MiB under the slow-body attack, want < 64 MiB", mib(during))
	}
}

// TestSlowBodyDeadline: a body that has not arrived within BodyTimeout is
// answered 408 and its connection closed.
func TestSlowBodyDeadline(t *testing.T) {
	t.Parallel()
	var entered atomic.Int64
	h := mcp.NewHandler(mcp.NewServer(nil, mcp.AllowAll(), nil), &mcp.HandlerOptions{BodyTimeout: 300 * time.Millisecond})
	srv := httptest.NewServer(countEntered(h, &entered))
	defer srv.Close()
	conns := slowBodyAttack(t, strings.TrimPrefix(srv.URL, "http://"), &entered, 20, 1<<20)
	defer closeAll(conns)
	expectTimedOut(t, conns, "BodyTimeout")
}

// expectTimedOut checks that every connection of a slow-body attack is
// answered 408 naming the bound (option), within about the bound, and
// closed.
func expectTimedOut(t *testing.T, conns []net.Conn, option string) {
	t.Helper()
	start := time.Now()
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), option) {
			t.Fatalf("connection %d: %d %s, want 408 naming %s", i, resp.StatusCode, body, option)
		}
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Fatalf("connection %d: still open after the 408 (read %d, %v)", i, n, err)
		}
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("slow bodies answered after %v, want about 300ms", d)
	}
}

// bodyEcho answers every body with itself, to see what the Handler read.
type bodyEcho struct{ *mcp.Server }

func (bodyEcho) Handle(_ context.Context, _ mcp.Caller, body []byte) (int, []byte) {
	return http.StatusOK, body
}

// TestBodyReadExactly: bodies of every size around the read chunk and the
// limit arrive whole, with and without Content-Length.
func TestBodyReadExactly(t *testing.T) {
	const limit = 100 << 10
	srv := httptest.NewServer(mcp.NewHandler(bodyEcho{mcp.NewServer(nil, nil, nil)}, &mcp.HandlerOptions{MaxBodyBytes: limit}))
	defer srv.Close()
	for _, size := range []int{0, 1, 100, 16<<10 - 1, 16 << 10, 16<<10 + 1, 64 << 10, limit - 1, limit, limit + 1} {
		for _, chunked := range []bool{false, true} {
			body := make([]byte, size)
			for i := range body {
				body[i] = byte('a' + i%26)
			}
			var r io.Reader = bytes.NewReader(body)
			if chunked {
				r = io.MultiReader(r) // hides the length: sent chunked
			}
			req, _ := http.NewRequest(http.MethodPost, srv.URL, r)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if size > limit {
				if resp.StatusCode != http.StatusRequestEntityTooLarge {
					t.Errorf("size %d chunked=%v: status %d, want 413", size, chunked, resp.StatusCode)
				}
				continue
			}
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, body) {
				t.Errorf("size %d chunked=%v: status %d, %d bytes back", size, chunked, resp.StatusCode, len(got))
			}
		}
	}
}

// TestReadTimeoutKeepsStreams: an http.Server ReadTimeout bounds the
// request's arrival, not its streamed answer: a call that streams progress
// for longer than ReadTimeout completes.
func TestReadTimeoutKeepsStreams(t *testing.T) {
	t.Parallel()
	ts := mcp.NewToolSet()
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "slow", Description: "Takes 600 ms."},
		func(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
			for i := 0; i < 6; i++ {
				_ = req.Progress(float64(i), 6, "")
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(100 * time.Millisecond):
				}
			}
			return mcp.TextResult("done"), nil
		})); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), nil), nil))
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Start()
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":1}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"text":"done"`) {
		t.Fatalf("the stream did not complete: %s", body)
	}
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		c.Close()
	}
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
