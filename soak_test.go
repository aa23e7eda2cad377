//go:build soak

package mcp_test

// The soak test: a million tools/call-heavy requests over loopback HTTP,
// valid and invalid mixed, then checks that goroutines, heap and open file
// descriptors are back where they started. Two hostile phases follow: a
// slow-body attack (connections that declare large bodies and trickle
// them) and a listen-stream flood (more subscriptions/listen streams than
// the cap, held to the end of their lifetime); each reports RSS, heap,
// goroutines and descriptors before, during and after. It is behind the
// build tag "soak":
//
//	go test -tags soak -run Soak -timeout 30m -v .
//	go test -tags soak -run Soak -v . -soak.n 100000 -soak.workers 32
//	go test -tags soak -run 'Soak(SlowBody|Listen)' -v . -soak.conns 500

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

var (
	soakN       = flag.Int("soak.n", 1_000_000, "number of requests of the soak test")
	soakWorkers = flag.Int("soak.workers", 16, "concurrent clients of the soak test")
	soakConns   = flag.Int("soak.conns", 500, "connections of the slow-body and listen phases")
)

// soakKind is one kind of request of the mix, with what its answer must be.
type soakKind struct {
	name   string
	body   string
	status int
	want   string // a piece of the answer body; "" for none (202)
}

var soakMix = []soakKind{
	{"call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"soak"}}}`, 200, `"structuredContent":{"text":"soak"}`},
	{"invalid-args", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}`, 200, `"code":-32602`},
	{"unknown-tool", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, 200, `Unknown tool: nope`},
	{"parse-error", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"`, 400, `"code":-32700`},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, ""},
	{"list", `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, 200, `"name":"echo"`},
	{"call-2", `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"text":"soak"}}}`, 200, `"text":"{\"text\":\"soak\"}"`},
}

func soakFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

func soakHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func TestSoak(t *testing.T) {
	srv, _ := listenServer(t, nil) // echo

	goBefore, heapBefore, fdBefore := runtime.NumGoroutine(), soakHeap(), soakFDs(t)
	tr := &http.Transport{MaxIdleConnsPerHost: *soakWorkers, MaxConnsPerHost: *soakWorkers}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}

	var next, failures atomic.Int64
	counts := make([]atomic.Int64, len(soakMix))
	var firstErr sync.Once
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < *soakWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 4096)
			for {
				i := next.Add(1) - 1
				if i >= int64(*soakN) || failures.Load() > 0 {
					return
				}
				k := soakMix[i%int64(len(soakMix))]
				req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(k.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					failures.Add(1)
					firstErr.Do(func() { t.Errorf("request %d (%s): %v", i, k.name, err) })
					return
				}
				b := bytes.NewBuffer(buf[:0])
				_, err = io.Copy(b, resp.Body)
				resp.Body.Close()
				body := b.Bytes()
				if err != nil || resp.StatusCode != k.status || (k.want == "" && len(body) != 0) || !bytes.Contains(body, []byte(k.want)) {
					failures.Add(1)
					firstErr.Do(func() {
						t.Errorf("request %d (%s): status %d (want %d), %v, body %s (want %s)", i, k.name, resp.StatusCode, k.status, err, body, k.want)
					})
					return
				}
				counts[i%int64(len(soakMix))].Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failures.Load() > 0 {
		t.FailNow()
	}
	total := int64(0)
	for i := range counts {
		total += counts[i].Load()
	}
	if total != int64(*soakN) {
		t.Fatalf("%d requests answered, want %d", total, *soakN)
	}

	tr.CloseIdleConnections()
	var goAfter, fdAfter int
	eventually(10*time.Second, func() bool {
		goAfter, fdAfter = runtime.NumGoroutine(), soakFDs(t)
		return goAfter <= goBefore && fdAfter <= fdBefore
	})
	heapAfter := soakHeap()
	t.Logf("%d requests (%d workers) in %v: %.0f req/s", total, *soakWorkers, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())
	for i, k := range soakMix {
		t.Logf("  %-13s %d", k.name, counts[i].Load())
	}
	t.Logf("goroutines %d → %d, heap %s → %s, open fds %d → %d", goBefore, goAfter,
		soakMiB(heapBefore), soakMiB(heapAfter), fdBefore, fdAfter)
	if goAfter > goBefore {
		t.Errorf("goroutines grew from %d to %d", goBefore, goAfter)
	}
	if fdAfter > fdBefore {
		t.Errorf("open file descriptors grew from %d to %d", fdBefore, fdAfter)
	}
	if heapAfter > heapBefore+4<<20 {
		t.Errorf("heap grew from %s to %s", soakMiB(heapBefore), soakMiB(heapAfter))
	}
}

func soakMiB(n uint64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }

// soakState is what the hostile phases report.
type soakState struct {
	rss, heap       uint64
	goroutines, fds int
}

func soakRead(t *testing.T) soakState {
	st := soakState{heap: soakHeap(), goroutines: runtime.NumGoroutine(), fds: soakFDs(t)}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				var kb uint64
				fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
				st.rss = kb << 10
			}
		}
	}
	return st
}

func (s soakState) String() string {
	return fmt.Sprintf("RSS %s, heap %s, %d goroutines, %d fds", soakMiB(s.rss), soakMiB(s.heap), s.goroutines, s.fds)
}

// soakSettle waits until goroutines and descriptors are back to base.
func soakSettle(t *testing.T, base soakState) soakState {
	var st soakState
	eventually(10*time.Second, func() bool {
		st = soakRead(t)
		return st.goroutines <= base.goroutines && st.fds <= base.fds
	})
	return st
}

func soakCheckBack(t *testing.T, base, after soakState) {
	t.Helper()
	if after.goroutines > base.goroutines {
		t.Errorf("goroutines grew from %d to %d", base.goroutines, after.goroutines)
	}
	if after.fds > base.fds {
		t.Errorf("open file descriptors grew from %d to %d", base.fds, after.fds)
	}
	if after.heap > base.heap+8<<20 {
		t.Errorf("heap grew from %s to %s", soakMiB(base.heap), soakMiB(after.heap))
	}
}

// TestSoakSlowBody: -soak.conns connections declare 4 MiB bodies and send
// a byte every 500 ms. The handler holds what arrived, not what was
// declared, and closes every one of them with 408 at BodyTimeout.
func TestSoakSlowBody(t *testing.T) {
	const bodyTimeout = 3 * time.Second
	var entered atomic.Int64
	srv := httptest.NewServer(countEntered(mcp.NewHandler(mcp.NewServer(nil, mcp.AllowAll(), nil),
		&mcp.HandlerOptions{BodyTimeout: bodyTimeout}), &entered))
	defer srv.Close()
	base := soakRead(t)
	t.Logf("before:  %v", base)

	n := *soakConns
	conns := slowBodyAttack(t, strings.TrimPrefix(srv.URL, "http://"), &entered, n, 4<<20)
	defer func() { closeAll(conns) }()
	var closedByServer, answered408 atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for _, c := range conns {
		wg.Add(1)
		go func(c net.Conn) {
			defer wg.Done()
			go func() { // trickle
				tick := time.NewTicker(500 * time.Millisecond)
				defer tick.Stop()
				for ; time.Since(start) < 2*bodyTimeout; <-tick.C {
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
				}
			}()
			_ = c.SetReadDeadline(time.Now().Add(2*bodyTimeout + 5*time.Second))
			b, _ := io.ReadAll(c) // until the server closes it
			if strings.HasPrefix(string(b), "HTTP/1.1 408") {
				answered408.Add(1)
			}
			var ne net.Error
			if _, err := c.Read(make([]byte, 1)); err == io.EOF || (err != nil && !(errors.As(err, &ne) && ne.Timeout())) {
				closedByServer.Add(1)
			}
		}(c)
	}
	time.Sleep(bodyTimeout / 2)
	during := soakRead(t)
	t.Logf("during:  %v (%d connections declaring 4 MiB each)", during, n)
	wg.Wait()
	t.Logf("%d of %d connections answered 408 and closed by the server after %v", answered408.Load(), n, time.Since(start).Round(time.Millisecond))
	closeAll(conns)
	conns = nil
	after := soakSettle(t, base)
	t.Logf("after:   %v", after)
	if during.heap > base.heap+64<<20 {
		t.Errorf("heap %s under the attack, from %s", soakMiB(during.heap), soakMiB(base.heap))
	}
	if answered408.Load() != int64(n) || closedByServer.Load() != int64(n) {
		t.Errorf("%d answered 408, %d closed by the server, of %d", answered408.Load(), closedByServer.Load(), n)
	}
	soakCheckBack(t, base, after)
}

// TestSoakListen: -soak.conns subscriptions/listen streams against a cap
// of half as many: the rest are refused with 503, echo keeps answering
// while the admitted streams are held, and every stream ends with its
// completion result at ListenLifetime.
func TestSoakListen(t *testing.T) {
	const lifetime = 3 * time.Second
	n := *soakConns
	max := n / 2
	srv, _ := listenServer(t, &mcp.HandlerOptions{MaxListenStreams: max, MaxListenStreamsPerPrincipal: -1, ListenLifetime: lifetime})
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	base := soakRead(t)
	t.Logf("before:  %v", base)

	const listen = `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	var admitted, refused, completed atomic.Int64
	var acked sync.WaitGroup
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		acked.Add(1)
		go func() {
			defer wg.Done()
			once := sync.OnceFunc(acked.Done)
			defer once()
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(listen))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "subscriptions/listen")
			resp, err := client.Do(req)
			if err != nil {
				t.Errorf("listen: %v", err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode == http.StatusServiceUnavailable {
				refused.Add(1)
				return
			}
			admitted.Add(1)
			once()
			b, _ := io.ReadAll(resp.Body)
			if strings.Contains(string(b), `"resultType":"complete"`) {
				completed.Add(1)
			}
		}()
	}
	acked.Wait()
	during := soakRead(t)
	t.Logf("during:  %v (%d streams admitted, %d refused)", during, admitted.Load(), refused.Load())
	echoStart := time.Now()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"alive"}}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("echo with the streams held: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	t.Logf("echo with %d streams held answered in %v: %d", admitted.Load(), time.Since(echoStart), resp.StatusCode)
	if !strings.Contains(string(b), "alive") {
		t.Errorf("echo: %d %s", resp.StatusCode, b)
	}
	wg.Wait()
	t.Logf("all streams ended %v after they opened; %d with their completion result", time.Since(start).Round(time.Millisecond), completed.Load())
	tr.CloseIdleConnections()
	after := soakSettle(t, base)
	t.Logf("after:   %v", after)
	if admitted.Load() != int64(max) || refused.Load() != int64(n-max) || completed.Load() != int64(max) {
		t.Errorf("%d admitted, %d refused, %d completed; want %d, %d, %d", admitted.Load(), refused.Load(), completed.Load(), max, n-max, max)
	}
	soakCheckBack(t, base, after)
}
