//go:build soak

package mcp_test

// The soak test: a million tools/call-heavy requests over loopback HTTP,
// valid and invalid mixed, then checks that goroutines, heap and open file
// descriptors are back where they started. It is behind the build tag
// "soak":
//
//	go test -tags soak -run Soak -timeout 30m -v .
//	go test -tags soak -run Soak -v . -soak.n 100000 -soak.workers 32

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
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
	ts := mcp.NewToolSet()
	type text struct {
		Text string `json:"text"`
	}
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo text."},
		func(_ context.Context, _ *mcp.Request, in text) (text, error) { return in, nil }); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), nil), nil))
	defer srv.Close()

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
	deadline := time.Now().Add(10 * time.Second)
	goAfter, fdAfter := runtime.NumGoroutine(), soakFDs(t)
	for (goAfter > goBefore || fdAfter > fdBefore) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		goAfter, fdAfter = runtime.NumGoroutine(), soakFDs(t)
	}
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
