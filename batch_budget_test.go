package mcp_test

// Batch answers count in the Handler's budget of answer bytes while they
// are built (HandlerOptions.MaxPendingBytes), and a Server builds at most
// BatchLimits.MaxConcurrentBatches batches at once.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

const (
	partBytes   = 64 << 10
	budgetBytes = 24 * partBytes // 1.5 MiB
)

// budgetServer serves "part" (64 KiB of text) and "gate" (waits until
// open is called, or its context ends) with the batch limits b, through a
// Handler with a MaxPendingBytes of pending. parts counts the calls of
// part, atGate the calls of gate waiting.
func budgetServer(t *testing.T, b mcp.BatchLimits, pending int64) (srv *httptest.Server, h *mcp.Handler, s *mcp.Server,
	open func(), parts, atGate *atomic.Int64) {
	t.Helper()
	gate := make(chan struct{})
	parts, atGate = &atomic.Int64{}, &atomic.Int64{}
	ts := mcp.NewToolSet()
	hostileMust(t, ts.Register(
		mcp.NewRawTool(mcp.ToolInfo{Name: "part", Description: "64 KiB."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) {
				parts.Add(1)
				return mcp.TextResult(strings.Repeat("p", partBytes)), nil
			}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "gate", Description: "Waits for the gate."},
			func(ctx context.Context, _ *mcp.Request) (*mcp.Result, error) {
				atGate.Add(1)
				defer atGate.Add(-1)
				select {
				case <-gate:
					return mcp.TextResult("through"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}),
	))
	s = mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Batch: b})
	h = mcp.NewHandler(s, &mcp.HandlerOptions{MaxPendingBytes: pending})
	srv = httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var once sync.Once
	open = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(open)
	return srv, h, s, open, parts, atGate
}

// partsBatch is a batch of n calls of part, then one of gate when gated.
func partsBatch(n int, gated bool) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"part","arguments":{}}}`)
	}
	if gated {
		b.WriteString(`,{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"gate","arguments":{}}}`)
	}
	b.WriteByte(']')
	return b.String()
}

// postBudget posts body and returns the status, Retry-After and body.
func postBudget(t *testing.T, url, body string) (int, string, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), raw
}

// wantLimit checks a refusal: 503, Retry-After, a -32001 error without id
// whose message names option.
func wantLimit(t *testing.T, status int, retryAfter string, raw []byte, option string) {
	t.Helper()
	var e struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if status != http.StatusServiceUnavailable || retryAfter == "" || json.Unmarshal(raw, &e) != nil ||
		e.Error.Code != mcp.CodeLimitExceeded || string(e.ID) != "null" || !strings.Contains(e.Error.Message, option) {
		t.Fatalf("want 503, Retry-After and -32001 naming %s; got %d Retry-After %q %.300s", option, status, retryAfter, raw)
	}
}

// waitCount waits until c is n.
func waitCount(t *testing.T, what string, c func() int64, n int64) {
	t.Helper()
	if !eventually(time.Minute, func() bool { return c() == n }) {
		t.Fatalf("%s: %d after a minute, want %d", what, c(), n)
	}
}

// batchResults counts the responses of a batch answer.
func batchResults(t *testing.T, raw []byte) int {
	t.Helper()
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("not a batch answer: %v: %.300s", err, raw)
	}
	return len(out)
}

// TestBatchBudgetWhileBuilding: a batch being built (768 KiB of answers,
// waiting at its last element) counts in a 1.5 MiB MaxPendingBytes, so a
// second batch is stopped once its own answers pass what is left: refused
// with 503, Retry-After and -32001 naming the option, its remaining
// elements not run. The first is answered in full; the budget then counts
// nothing, and the second batch goes.
func TestBatchBudgetWhileBuilding(t *testing.T) {
	srv, h, _, open, parts, atGate := budgetServer(t, mcp.BatchLimits{Concurrency: 1, MaxResponseBytes: -1}, budgetBytes)
	first := make(chan []byte, 1)
	go func() {
		status, _, raw := postBudget(t, srv.URL, partsBatch(12, true))
		if status != http.StatusOK {
			t.Errorf("the first batch: %d %.300s", status, raw)
		}
		first <- raw
	}()
	waitCount(t, "calls of gate", atGate.Load, 1)
	if held := mcp.PendingBytes(h); held < 12*partBytes {
		t.Fatalf("a batch holding 12 answers of %d bytes counts %d bytes in the budget", partBytes, held)
	}
	before := parts.Load()
	status, retryAfter, raw := postBudget(t, srv.URL, partsBatch(20, false))
	wantLimit(t, status, retryAfter, raw, "MaxPendingBytes")
	if ran := parts.Load() - before; ran == 0 || ran >= 20 {
		t.Errorf("the refused batch ran %d of its 20 elements, want it stopped once over the budget", ran)
	}
	open()
	if n := batchResults(t, <-first); n != 13 {
		t.Errorf("the first batch: %d responses, want 13", n)
	}
	waitCount(t, "bytes the budget counts", func() int64 { return mcp.PendingBytes(h) }, 0)
	status, _, raw = postBudget(t, srv.URL, partsBatch(20, false))
	if status != http.StatusOK || batchResults(t, raw) != 20 {
		t.Fatalf("with the budget free again: %d %.300s", status, raw)
	}
	waitCount(t, "bytes the budget counts", func() int64 { return mcp.PendingBytes(h) }, 0)
}

// TestBatchBudgetSpent: a batch alone may hold more than MaxPendingBytes
// (1.75 MiB of 1.5), and while it does, another batch is refused before any of
// its elements runs.
func TestBatchBudgetSpent(t *testing.T) {
	srv, h, _, open, parts, atGate := budgetServer(t, mcp.BatchLimits{Concurrency: 2, MaxResponseBytes: -1}, budgetBytes)
	first := make(chan int, 1)
	go func() {
		status, _, raw := postBudget(t, srv.URL, partsBatch(28, true))
		if status != http.StatusOK || batchResults(t, raw) != 29 {
			t.Errorf("the batch alone over the budget: %d %.300s", status, raw)
		}
		first <- status
	}()
	waitCount(t, "calls of gate", atGate.Load, 1)
	// The other worker may still be finishing its part.
	waitCount(t, "calls of part", parts.Load, 28)
	if held := mcp.PendingBytes(h); held <= budgetBytes {
		t.Fatalf("a batch holding 28 answers of %d bytes counts %d bytes in the budget", partBytes, held)
	}
	status, retryAfter, raw := postBudget(t, srv.URL, partsBatch(4, false))
	wantLimit(t, status, retryAfter, raw, "MaxPendingBytes")
	if ran := parts.Load() - 28; ran != 0 {
		t.Errorf("with the budget spent, a batch ran %d elements, want none", ran)
	}
	open()
	<-first
	waitCount(t, "bytes the budget counts", func() int64 { return mcp.PendingBytes(h) }, 0)
}

// TestBatchSlots: with MaxConcurrentBatches 1, a batch that finds the slot
// taken waits for it while its client does, is refused (503, Retry-After,
// -32001 naming the option) when it cannot get it, and goes once the slot
// is free; the slot is given back after every batch.
func TestBatchSlots(t *testing.T) {
	srv, _, s, open, _, atGate := budgetServer(t, mcp.BatchLimits{MaxConcurrentBatches: 1}, 0)
	first := make(chan int, 1)
	go func() {
		status, _, _ := postBudget(t, srv.URL, partsBatch(1, true))
		first <- status
	}()
	waitCount(t, "calls of gate", atGate.Load, 1)
	if n := mcp.BatchesBuilding(s); n != 1 {
		t.Fatalf("one batch being built takes %d slots", n)
	}
	// A batch whose client gives up waiting for the slot.
	ex := &mcp.Exchange{}
	ctx, cancel := context.WithTimeout(mcp.ContextWithExchange(context.Background(), ex), 50*time.Millisecond)
	defer cancel()
	status, raw := s.Handle(ctx, mcp.Caller{}, []byte(partsBatch(1, false)))
	wantLimit(t, status, "set by the Handler", raw, "MaxConcurrentBatches")
	// One that waits while the slot is taken, and gets it once free.
	second := make(chan int, 1)
	go func() {
		status, _, raw := postBudget(t, srv.URL, partsBatch(2, false))
		if status == http.StatusOK && batchResults(t, raw) != 2 {
			status = 0
		}
		second <- status
	}()
	select {
	case status := <-second:
		t.Fatalf("a batch answered %d while the only slot was taken", status)
	case <-time.After(100 * time.Millisecond):
	}
	open()
	if status := <-first; status != http.StatusOK {
		t.Errorf("the first batch: %d", status)
	}
	if status := <-second; status != http.StatusOK {
		t.Errorf("the batch that waited for the slot: %d", status)
	}
	waitCount(t, "slots taken", func() int64 { return int64(mcp.BatchesBuilding(s)) }, 0)
}
