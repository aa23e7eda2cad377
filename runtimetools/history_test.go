package runtimetools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp/mcptest"
	"github.com/google/pprof/profile"
)

func TestNewProfilerBounds(t *testing.T) {
	for _, o := range []ProfilerOptions{{Window: time.Millisecond}, {Window: 5 * time.Second, Every: time.Second}, {Keep: -1}, {Keep: 10001}} {
		if _, err := NewProfiler(&o); err == nil {
			t.Errorf("NewProfiler(%+v) accepted", o)
		}
	}
	p, err := NewProfiler(nil)
	if err != nil || p.window != DefaultProfileWindow || p.every != DefaultProfileEvery || len(p.ring) != DefaultProfileKeep {
		t.Errorf("defaults: %+v %v", p, err)
	}
}

// startProfiler runs a profiler of one-second windows until the test ends.
func startProfiler(t *testing.T, keep int) *Profiler {
	t.Helper()
	p, err := NewProfiler(&ProfilerOptions{Window: time.Second, Every: time.Second, Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = p.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return p
}

// waitWindows waits until p holds n windows.
func waitWindows(t *testing.T, p *Profiler, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); len(p.windows()) < n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the profiler holds %d windows after 30 s, want %d", len(p.windows()), n)
		}
	}
}

// TestProfilerHistory: the background profiler keeps its last windows;
// runtime_profile answers a past window after the load is over, and
// compares two windows.
func TestProfilerHistory(t *testing.T) {
	p := startProfiler(t, 3)
	c := newTestClient(t, &Options{Continuous: p})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { burnCPU(stop) })
	waitWindows(t, p, 2)
	close(stop)
	wg.Wait()
	busy := p.windows()[len(p.windows())-1].end
	waitWindows(t, p, 3)
	// Wait for an idle window to follow the busy ones.
	for deadline := time.Now().Add(20 * time.Second); !p.windows()[len(p.windows())-1].start.After(busy); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no idle window")
		}
	}
	if n := len(p.windows()); n != 3 {
		t.Errorf("the ring keeps %d windows, want 3", n)
	}
	got := call[profileResult](t, c, ProfileToolName, map[string]any{"kind": "cpu", "window": busy.UTC().Format(time.RFC3339Nano)})
	if !inTop(got.Top, "runtimetools.burnCPU") || got.Windows != 1 || got.History == nil || got.History.Windows != 3 {
		t.Errorf("the busy window: %+v", got)
	}
	cmp := call[profileResult](t, c, ProfileToolName, map[string]any{"kind": "cpu", "window": "last", "compare": busy.UTC().Format(time.RFC3339Nano)})
	i := slices.IndexFunc(cmp.Changes, func(ch cpuChange) bool { return strings.HasSuffix(ch.ID, "runtimetools.burnCPU") })
	if i < 0 || cmp.Changes[i].Change >= 0 || cmp.Changes[i].Before < 3 {
		t.Errorf("compare: burnCPU should have dropped from the busy window: %+v", cmp.Changes)
	}
	res, err := c.CallTool(ProfileToolName, map[string]any{"kind": "cpu", "window": "last", "compare": busy.UTC().Format(time.RFC3339Nano)})
	if err != nil || !strings.Contains(mcptest.ResultText(res), "change against compare") {
		t.Errorf("compare text: %v %s", err, mcptest.ResultText(res))
	}
	// Bad windows are refused, naming what is held.
	for args, want := range map[string]string{
		`{"kind":"cpu","window":"1999-01-01T00:00:00Z"}`: "no window near",
		`{"kind":"cpu","window":"yesterday"}`:            "not a window",
		`{"kind":"heap","window":"last"}`:                "needs kind cpu",
		`{"kind":"cpu","compare":"last"}`:                "compare needs a window",
		`{"kind":"cpu","window":"last","seconds":2}`:     "leave seconds out",
	} {
		var m map[string]any
		must(t, jsonUnmarshal(args, &m))
		if text := callError(t, c, ProfileToolName, m); !strings.Contains(text, want) {
			t.Errorf("%s: %s", args, text)
		}
	}
	// Without a profiler, window is explained.
	plain := newTestClient(t, nil)
	if text := callError(t, plain, ProfileToolName, map[string]any{"kind": "cpu", "window": "last"}); !strings.Contains(text, "Options.Continuous") {
		t.Errorf("window without a profiler: %s", text)
	}
}

// TestProfilerYieldsToCalls: a call's CPU profile ends the running
// background window early instead of failing, and the window is kept.
func TestProfilerYieldsToCalls(t *testing.T) {
	p, err := NewProfiler(&ProfilerOptions{Window: 20 * time.Second, Every: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = p.Run(ctx) })
	defer func() { cancel(); wg.Wait() }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		p.slot.mu.Lock()
		bg := p.slot.busy && p.slot.background
		p.slot.mu.Unlock()
		if bg {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background window did not start")
		}
	}
	c := newTestClient(t, &Options{Continuous: p})
	start := time.Now()
	got := call[profileResult](t, c, ProfileToolName, map[string]any{"kind": "cpu", "seconds": 1})
	if got.Kind != "cpu" || time.Since(start) > 10*time.Second {
		t.Errorf("a call during a background window: %+v after %v", got, time.Since(start))
	}
	if n := len(p.windows()); n != 1 || p.windows()[0].end.Sub(p.windows()[0].start) > 10*time.Second {
		t.Errorf("the background window was not ended early and kept: %d windows", n)
	}
	// Another call's profile still makes a call wait its turn: ErrBusy.
	if _, err := p.slot.acquire(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	_, err = p.slot.acquire(context.Background(), time.Second)
	if !errors.Is(err, ErrBusy) {
		t.Errorf("a second call's profile: %v", err)
	}
	p.slot.release()
}

// TestHostFramesFoldStd: in the host ranking, a sample's time in the
// standard library counts to the host function that called it, at the
// line of the call; frames: all counts it to the innermost function.
func TestHostFramesFoldStd(t *testing.T) {
	fn := func(id uint64, name, file string) *profile.Function {
		return &profile.Function{ID: id, Name: name, Filename: file, StartLine: 10}
	}
	sort := fn(1, "sort.insertionSort", "/go/src/sort/zsortfunc.go")
	lock := fn(2, "sync.(*Mutex).Unlock", "/go/src/sync/mutex.go")
	host := fn(3, "example.com/app.(*Store).Put", "/src/app/store.go")
	main := fn(4, "main.main", "/src/app/main.go")
	loc := func(id uint64, f *profile.Function, line int64) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f, Line: line}}}
	}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "delay", Unit: "nanoseconds"}},
		Function: []*profile.Function{sort, lock, host, main},
		Sample: []*profile.Sample{
			{Value: []int64{70}, Location: []*profile.Location{loc(1, lock, 90), loc(2, host, 42), loc(3, main, 5)}},
			{Value: []int64{20}, Location: []*profile.Location{loc(4, sort, 30), loc(5, host, 40), loc(3, main, 5)}},
			{Value: []int64{10}, Location: []*profile.Location{loc(6, host, 41), loc(3, main, 5)}},
		}}
	top, total, _ := rankFunctions(p, 0, 5, false, true, 3)
	if total != 100 || top[0].ID != "example.com/app.(*Store).Put" || top[0].Flat != 100 || len(top[0].Lines) != 3 ||
		top[0].Lines[0].Line != 42 || top[0].Lines[0].Flat != 70 {
		t.Errorf("host ranking: %+v", top)
	}
	all, _, _ := rankFunctions(p, 0, 5, false, false, 1)
	if all[0].ID != "sync.(*Mutex).Unlock" || all[0].Flat != 70 || all[0].Lines[0].Line != 90 {
		t.Errorf("frames all: %+v", all)
	}
	// The text puts the hot line with its figures under the function.
	text := profileResult{Kind: "mutex", Sample: "delay", Unit: "nanoseconds", Frames: "host", Total: total, Functions: 4, Top: top}.Text()
	if !strings.Contains(text, "example.com/app.(*Store).Put example.com/app/store.go:10\n    store.go:42 70.0% 70ns") {
		t.Errorf("text:\n%s", text)
	}
}

// TestProfileAnswerSize: a ten-row profile answer carries no raw bytes by
// default and what the model reads (all but the view's _meta) stays
// within 4 KB; raw: true attaches them.
func TestProfileAnswerSize(t *testing.T) {
	c := newTestClient(t, nil)
	res, err := c.CallTool(ProfileToolName, map[string]any{"kind": "goroutine", "top": 10})
	if err != nil || res.IsError {
		t.Fatal(err, mcptest.ResultText(res))
	}
	text, _ := res.Content[0].MarshalJSON()
	model := *res
	model.Meta = nil // the view's, which hosts do not hand to the model
	whole, _ := json.Marshal(model)
	if len(res.Content) != 1 || len(whole) > 4096 {
		t.Errorf("a ten-row answer: %d blocks, %d bytes (text %d)", len(res.Content), len(whole), len(text))
	}
	if strings.Contains(res.Content[0].Text, "/work/") || strings.Contains(res.Content[0].Text, "{\"") {
		t.Errorf("the text holds a build path or JSON:\n%s", res.Content[0].Text)
	}
	t.Logf("ten-row goroutine profile: %d bytes, text %d", len(whole), len(text))
}

// BenchmarkProfilerOverhead measures what the background profiler costs
// at its default duty cycle (10 s of every 60 s): the CPU time of a fixed
// piece of work with a CPU profile running against without, in
// alternating rounds of the same run, scaled by the duty cycle, plus the
// CPU time of decoding one window, spread over its minute. cpu-%-default
// is the figure the documentation promises to keep under 1 %.
func BenchmarkProfilerOverhead(b *testing.B) {
	work := func() {
		var sum [32]byte
		buf := make([]byte, 4096)
		for range 40000 {
			sum = sha256.Sum256(buf)
			buf[0] = sum[0]
		}
	}
	var off, on, fixed []time.Duration
	var raw []byte
	for b.Loop() {
		t0 := cpuTime()
		work()
		off = append(off, cpuTime()-t0)
		var buf bytes.Buffer
		t0 = cpuTime()
		if err := pprof.StartCPUProfile(&buf); err != nil {
			b.Fatal(err)
		}
		t1 := cpuTime()
		work()
		t2 := cpuTime()
		pprof.StopCPUProfile()
		p, err := profile.ParseData(buf.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		redactProfileLabels(p)
		on = append(on, t2-t1)
		fixed = append(fixed, t1-t0+cpuTime()-t2) // start, stop, decode: once per window
		raw = buf.Bytes()
	}
	_ = raw
	slices.Sort(fixed)
	decode := fixed[len(fixed)/2]
	slices.Sort(off)
	slices.Sort(on)
	mOff, mOn := off[len(off)/2], on[len(on)/2]
	if mOff == 0 {
		b.Skip("no process CPU time on this platform")
	}
	ratio := float64(mOn-mOff) / float64(mOff)
	duty := float64(DefaultProfileWindow) / float64(DefaultProfileEvery)
	// A window of 10 s holds more samples than this work's: count its
	// fixed cost (start, stop, decode) 10 times over, generously.
	perWindow := 10 * float64(decode) / float64(DefaultProfileEvery)
	b.ReportMetric(100*ratio, "cpu-%-while-on")
	b.ReportMetric(100*(max(ratio, 0)*duty+perWindow), "cpu-%-default")
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
