package runtimetools

import (
	"encoding/json"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp/mcptest"
)

// growingLeak blocks until stop, as a leaked goroutine does.
//
//go:noinline
func growingLeak(stop <-chan struct{}) { <-stop }

// spawnLeaks starts n goroutines blocked in growingLeak, all with one
// stack.
//
//go:noinline
func spawnLeaks(wg *sync.WaitGroup, stop <-chan struct{}, n int) {
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			growingLeak(stop)
		}()
	}
}

// TestGoroutineGrowthSince: a group that grows at every look is flagged
// as a probable leak, with where it was created; a steady group is not;
// tokens from elsewhere are refused clearly.
func TestGoroutineGrowthSince(t *testing.T) {
	c := newTestClient(t, nil)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); wg.Wait() })
	leak := func(n int) { spawnLeaks(&wg, stop, n) }
	args := map[string]any{"function": "growingLeak"}
	count := func(r goroutinesResult) int {
		n := 0
		for _, g := range r.Groups {
			n += g.Count
		}
		return n
	}
	leak(5)
	waitBlocked(t, "growingLeak", 5)
	first := call[goroutinesResult](t, c, GoroutinesToolName, args)
	if first.Token == "" || first.SinceTime != "" || count(first) != 5 {
		t.Fatalf("first look: %+v", first)
	}
	leak(5)
	waitBlocked(t, "growingLeak", 10)
	if mid := call[goroutinesResult](t, c, GoroutinesToolName, args); count(mid) != 10 {
		t.Fatalf("second look: %+v", mid)
	}
	leak(5)
	waitBlocked(t, "growingLeak", 15)
	args["since"] = first.Token
	res, err := c.CallTool(GoroutinesToolName, args)
	if err != nil || res.IsError {
		t.Fatal(err, mcptest.ResultText(res))
	}
	var got goroutinesResult
	must(t, json.Unmarshal(res.StructuredContent.(json.RawMessage), &got))
	if len(got.Groups) == 0 || got.Samples < 3 {
		t.Fatalf("since: %+v", got)
	}
	g := got.Groups[0]
	if g.Growth == nil || *g.Growth < 10 || !g.Leak || g.CreatedBy == nil || !strings.Contains(g.CreatedBy.ID, "spawnLeaks") {
		t.Errorf("the growing group: %+v", g)
	}
	if lines := strings.SplitN(mcptest.ResultText(res), "\n", 4); len(lines) < 3 || !strings.HasPrefix(lines[2], "PROBABLE LEAK: ") ||
		!strings.Contains(lines[2], "created by github.com/embedmcp/mcp/runtimetools.spawnLeaks github.com/embedmcp/mcp/runtimetools/growth_test.go:") {
		t.Errorf("the text does not lead with the leak:\n%s", mcptest.ResultText(res))
	}
	// Steady: no growth, no leak.
	steady := call[goroutinesResult](t, c, GoroutinesToolName, map[string]any{"function": "growingLeak", "since": got.Token})
	if g := steady.Groups[0]; g.Growth == nil || *g.Growth != 0 || g.Leak {
		t.Errorf("a steady group: %+v", g)
	}
	for token, want := range map[string]string{"g0000-1": "not from this process", first.Token[:len(first.Token)-1] + "999": "no such answer"} {
		if text := callError(t, c, GoroutinesToolName, map[string]any{"since": token}); !strings.Contains(text, want) {
			t.Errorf("since %q: %s", token, text)
		}
	}
	if text := callError(t, c, GoroutinesToolName, map[string]any{"watch": 31}); !strings.Contains(text, "0..30") {
		t.Errorf("watch 31: %s", text)
	}
}

// TestGoroutineWatch: watch samples within the call, so that one call
// shows a group growing.
func TestGoroutineWatch(t *testing.T) {
	c := newTestClient(t, nil)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); wg.Wait() })
	done := make(chan struct{})
	wg.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-done:
				return
			case <-tick.C:
				spawnLeaks(&wg, stop, 1)
			}
		}
	})
	got := call[goroutinesResult](t, c, GoroutinesToolName, map[string]any{"function": "growingLeak", "watch": 2})
	close(done)
	if len(got.Groups) == 0 || got.Samples != 3 || !got.Groups[0].Leak || len(got.Groups[0].Series) != 3 {
		t.Errorf("watch: %+v", got)
	}
}

// TestMetricsSince: metrics answer their change since an earlier answer,
// and a counter its rate.
func TestMetricsSince(t *testing.T) {
	c := newTestClient(t, nil)
	names := []string{"/gc/cycles/total:gc-cycles", "/sched/goroutines:goroutines"}
	first := call[metricsResult](t, c, MetricsToolName, map[string]any{"names": names})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	spawnLeaks(&wg, stop, 7)
	t.Cleanup(func() { close(stop); wg.Wait() })
	for range 3 {
		allocSink = make([]byte, 64<<20)
		runtime.GC()
	}
	got := call[metricsResult](t, c, MetricsToolName, map[string]any{"names": names, "since": first.Token})
	if got.SinceTime == "" || len(got.Metrics) != 2 {
		t.Fatalf("since: %+v", got)
	}
	gc, gor := got.Metrics[0], got.Metrics[1]
	if gc.Change == nil || *gc.Change < 3 || gc.Rate == nil || *gc.Rate <= 0 {
		t.Errorf("GC cycles: %+v", gc)
	}
	if gor.Change == nil || *gor.Change < 7 || gor.Rate != nil {
		t.Errorf("goroutines (a gauge, no rate): %+v", gor)
	}
	res, _ := c.CallTool(MetricsToolName, map[string]any{"names": names, "since": first.Token})
	if text := mcptest.ResultText(res); !strings.Contains(text, "/gc/cycles/total:gc-cycles counter") || !strings.Contains(text, " Δ+") {
		t.Errorf("text:\n%s", text)
	}
}

// TestLogGroupsAndSevereRing: identical records are one group with count
// and first and last time, naming their source line; an info flood does
// not evict the warnings and errors.
func TestLogGroupsAndSevereRing(t *testing.T) {
	logs := newLogs(t, nil, &LogRingOptions{MaxRecords: 50, MaxSevereRecords: 20})
	logger := slog.New(logs)
	for i := range 5 {
		logger.Error("charge failed", "order", i, "api_key", "sk_live_secret") // the source line
	}
	logger.Warn("slow supplier")
	for i := range 3000 {
		logger.Info("request", "i", i)
	}
	c := newTestClient(t, &Options{Logs: logs})
	got := call[logsResult](t, c, LogsToolName, map[string]any{"level": "warn"})
	if got.Matched != 6 || got.Groups != 2 || len(got.Records) != 2 {
		t.Fatalf("after a flood: %+v", got)
	}
	e := got.Records[1]
	if e.Message != "charge failed" || e.Count != 5 || e.First == "" || e.First > e.Time || e.Source == nil || e.Source.Line == 0 {
		t.Errorf("the error group: %+v", e)
	}
	if got.Buffer.Severe != 6 || got.Buffer.Evicted < 2900 {
		t.Errorf("buffer: %+v", got.Buffer)
	}
	res, _ := c.CallTool(LogsToolName, map[string]any{"level": "warn"})
	text := mcptest.ResultText(res)
	if !strings.Contains(text, `ERROR ×5 `) || !strings.Contains(text, "growth_test.go:") || strings.Contains(text, "sk_live") || len(text) > 1024 {
		t.Errorf("text:\n%s", text)
	}
	// group: false gives every record.
	all := call[logsResult](t, c, LogsToolName, map[string]any{"level": "error", "group": false})
	if len(all.Records) != 5 || all.Records[0].Count != 0 {
		t.Errorf("ungrouped: %+v", all)
	}
	if _, err := NewLogRing(nil, &LogRingOptions{MaxSevereRecords: -1}); err == nil {
		t.Error("a negative MaxSevereRecords is accepted")
	}
}
