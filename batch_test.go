package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// batchServer serves big (4 KiB of text), hang (waits for its context) and
// meet (waits until n calls of it run at once, or 5 s) with opts.
func batchServer(t *testing.T, opts *mcp.Options, meetN int) (*mcp.Server, *atomic.Int64) {
	t.Helper()
	ts := mcp.NewToolSet()
	var running, ran atomic.Int64
	var mu sync.Mutex
	met := make(chan struct{})
	must(t, ts.Register(
		mcp.NewRawTool(mcp.ToolInfo{Name: "big", Description: "4 KiB."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) {
				ran.Add(1)
				return mcp.TextResult(strings.Repeat("b", 4<<10)), nil
			}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "hang", Description: "Waits for its context."},
			func(ctx context.Context, _ *mcp.Request) (*mcp.Result, error) {
				ran.Add(1)
				<-ctx.Done()
				return nil, ctx.Err()
			}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "meet", Description: "Waits for company."},
			func(ctx context.Context, _ *mcp.Request) (*mcp.Result, error) {
				ran.Add(1)
				if running.Add(1) == int64(meetN) {
					mu.Lock()
					close(met)
					mu.Unlock()
				}
				defer running.Add(-1)
				select {
				case <-met:
					return mcp.TextResult("met"), nil
				case <-time.After(5 * time.Second):
					return mcp.ErrorResult("alone"), nil
				}
			}),
	))
	return mcp.NewServer(ts, mcp.AllowAll(), opts), &ran
}

func batchOf(tool string, n int) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`, i, tool)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

func decodeBatch(t *testing.T, status int, body []byte) []mcptest.Response {
	t.Helper()
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var raw []json.RawMessage
	must(t, json.Unmarshal(body, &raw))
	out := make([]mcptest.Response, len(raw))
	for i, r := range raw {
		out[i] = decodeRPC(t, r)
	}
	return out
}

// TestBatchResponseCap: the whole batch response obeys its size cap;
// elements past it get an error saying so, and are not run once the cap is
// reached.
func TestBatchResponseCap(t *testing.T) {
	s, ran := batchServer(t, &mcp.Options{Batch: mcp.BatchLimits{MaxResponseBytes: 10 << 10, Concurrency: 1}}, 0)
	status, body := s.Handle(context.Background(), mcp.Caller{}, batchOf("big", 8))
	rs := decodeBatch(t, status, body)
	if len(rs) != 8 {
		t.Fatalf("%d responses for 8 requests", len(rs))
	}
	for i, r := range rs {
		if string(r.ID) != fmt.Sprint(i+1) {
			t.Fatalf("response %d has id %s", i, r.ID)
		}
		switch {
		case i < 2 && r.Error != nil:
			t.Fatalf("response %d within the cap: %+v", i, *r.Error)
		case i >= 2 && (r.Error == nil || r.Error.Code != mcp.CodeLimitExceeded || !strings.Contains(r.Error.Message, "size cap")):
			t.Fatalf("response %d past the cap: result %.200s error %+v", i, r.Result, r.Error)
		}
	}
	if n := ran.Load(); n != 3 {
		t.Errorf("%d calls ran, want 3 (two that fit, the one that found the cap reached)", n)
	}
	if len(body) > 10<<10+8*256 {
		t.Errorf("batch response of %d bytes, cap 10 KiB", len(body))
	}
	t.Logf("8 × 4 KiB under a 10 KiB cap: %d bytes, %d calls run", len(body), ran.Load())
}

// TestBatchDeadline: a batch has one deadline, Options.CallTimeout by
// default, not one per element: hanging calls do not add up.
func TestBatchDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	s, ran := batchServer(t, &mcp.Options{CallTimeout: timeout, Batch: mcp.BatchLimits{Concurrency: 1}}, 0)
	start := time.Now()
	status, body := s.Handle(context.Background(), mcp.Caller{}, batchOf("hang", 4))
	elapsed := time.Since(start)
	rs := decodeBatch(t, status, body)
	if len(rs) != 4 {
		t.Fatalf("%d responses for 4 requests", len(rs))
	}
	for i, r := range rs[1:] {
		if r.Error == nil || r.Error.Code != mcp.CodeLimitExceeded || !strings.Contains(r.Error.Message, "deadline") {
			t.Fatalf("response %d after the deadline: result %.200s error %+v", i+2, r.Result, r.Error)
		}
	}
	if ran.Load() != 1 {
		t.Errorf("%d calls ran, want 1", ran.Load())
	}
	// Four calls of CallTimeout each would take 1.2 s.
	if elapsed > 3*timeout {
		t.Errorf("the batch took %v, its deadline is %v", elapsed, timeout)
	}
	t.Logf("4 hanging calls, CallTimeout %v: the batch answered after %v", timeout, elapsed)
}

// TestBatchConcurrency: elements run concurrently, up to the bound.
func TestBatchConcurrency(t *testing.T) {
	s, _ := batchServer(t, &mcp.Options{Batch: mcp.BatchLimits{Concurrency: 4}}, 4)
	status, body := s.Handle(context.Background(), mcp.Caller{}, batchOf("meet", 4))
	for i, r := range decodeBatch(t, status, body) {
		if r.Error != nil || !strings.Contains(string(r.Result), `"met"`) {
			t.Fatalf("response %d: %.300s", i, body)
		}
	}
}
