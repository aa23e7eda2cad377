package mcp_test

// Bounded writes: a client that stops reading is disconnected at the write
// deadline and what its answer held is released; the answers waiting to be
// written stay within the Handler's budget.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

const bigAnswer = 8 << 20

// smallSendBuffers sets a small send buffer on every connection accepted,
// so that an answer its client does not read blocks the server's write
// instead of waiting in the kernel.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// stallWriter is a ResponseWriter whose writes wait for release: a client
// that reads nothing, whatever the kernel's buffers.
// waiting counts the writers whose first write has begun: their answer is
// encoded and waiting to be written.
type stallWriter struct {
	http.ResponseWriter
	release <-chan struct{}
	waiting *atomic.Int64
	once    *sync.Once
}

func (w stallWriter) Write(b []byte) (int, error) {
	w.once.Do(func() { w.waiting.Add(1) })
	<-w.release
	return w.ResponseWriter.Write(b)
}

func (w stallWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// bigServer serves "big", a tool answering 8 MiB, through a Handler with
// opts; active counts the requests being served, closed the connections
// the server closed. The writes of requests with an X-Stall header wait
// until stall is closed; without stall, the connections' send buffers are
// small, so that a client reading nothing blocks the server's write.
func bigServer(t *testing.T, opts *mcp.HandlerOptions, stall <-chan struct{}) (addr string, active, closed, waiting *atomic.Int64) {
	t.Helper()
	ts := mcp.NewToolSet()
	hostileMust(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "big", Description: "8 MiB."},
		func(context.Context, *mcp.Request) (*mcp.Result, error) {
			return mcp.TextResult(strings.Repeat("x", bigAnswer)), nil
		})))
	h := mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{MaxResultBytes: 2 * bigAnswer}), opts)
	active, closed, waiting = &atomic.Int64{}, &atomic.Int64{}, &atomic.Int64{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		active.Add(1)
		defer active.Add(-1)
		if r.Header.Get("X-Stall") != "" {
			w = stallWriter{w, stall, waiting, new(sync.Once)}
		}
		h.ServeHTTP(w, r)
	}))
	if stall == nil { // clients that read nothing block the server's writes
		srv.Listener = smallSendBuffers{srv.Listener}
	}
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), active, closed, waiting
}

const bigCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`

// nonReader sends a call of "big" over a connection with a 4 KiB receive
// buffer and reads nothing.
func nonReader(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).SetReadBuffer(4096)
	_, err = fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json\r\n"+
		"Content-Length: %d\r\n\r\n%s", addr, len(bigCall), bigCall)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitActive waits until the count is n.
func waitActive(t *testing.T, active *atomic.Int64, n int64, within time.Duration) {
	t.Helper()
	if !eventually(within, func() bool { return active.Load() == n }) {
		t.Fatalf("count %d after %v, want %d", active.Load(), within, n)
	}
}

// TestSlowReadersDisconnected: clients that read nothing of an 8 MiB
// answer are disconnected at WriteTimeout (the server closes their
// connections), their handlers return and the answers' memory is released (without the deadline they hold it as long
// as their sockets stay open).
func TestSlowReadersDisconnected(t *testing.T) {
	addr, active, closed, _ := bigServer(t, &mcp.HandlerOptions{WriteTimeout: time.Second}, nil)
	const clients = 8
	base := heapAfterGC()
	conns := make([]net.Conn, clients)
	for i := range conns {
		conns[i] = nonReader(t, addr)
		defer conns[i].Close()
	}
	waitActive(t, closed, clients, time.Minute)
	waitActive(t, active, 0, time.Minute)
	after := heapAfterGC()
	t.Logf("%d clients reading nothing of %d MiB answers: heap %d MiB, after the deadline %+d MiB",
		clients, bigAnswer>>20, base>>20, (int64(after)-int64(base))>>20)
	if grew := int64(after) - int64(base); grew > 16<<20 {
		t.Errorf("after the write deadline the heap is %d MiB above where it started, want the answers released", grew>>20)
	}
}

// TestPendingBytesBudget: with two 8 MiB answers waiting on clients that
// read nothing, a third beyond a 20 MiB MaxPendingBytes is refused with
// 503, Retry-After and -32001 naming the limit; once those answers are
// written, it is served.
func TestPendingBytesBudget(t *testing.T) {
	t.Parallel()
	stall := make(chan struct{})
	addr, _, _, waiting := bigServer(t, &mcp.HandlerOptions{MaxPendingBytes: 20 << 20}, stall)
	// The stalled requests end when stall is closed, also when the test
	// fails first: the server's Close waits for them.
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(stall) }) })
	call := func(stalled bool) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr, strings.NewReader(bigCall))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if stalled {
			req.Header.Set("X-Stall", "1")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return &http.Response{}, nil
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	stalled := make(chan int, 2)
	for range 2 {
		go func() {
			resp, _ := call(true)
			stalled <- resp.StatusCode
		}()
	}
	waitActive(t, waiting, 2, time.Minute) // both answers encoded and waiting to be written
	var resp *http.Response
	var body []byte
	if !eventually(time.Minute, func() bool {
		resp, body = call(false)
		return resp.StatusCode == http.StatusServiceUnavailable
	}) {
		t.Fatalf("with 16 MiB waiting, an 8 MiB answer beyond a 20 MiB budget: %d, want 503", resp.StatusCode)
	}
	var e struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Code != mcp.CodeLimitExceeded || string(e.ID) != "1" ||
		!strings.Contains(e.Error.Message, "MaxPendingBytes") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("beyond the budget: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	release.Do(func() { close(stall) })
	for range 2 {
		if code := <-stalled; code != http.StatusOK {
			t.Errorf("a stalled answer, once written: %d", code)
		}
	}
	if resp, body := call(false); resp.StatusCode != 200 || len(body) < bigAnswer {
		t.Fatalf("after the waiting answers were written: %d, %d bytes", resp.StatusCode, len(body))
	}
}
