package runtimetools

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/pprof/profile"
)

// historyInfo describes what the background profiler holds.
type historyInfo struct {
	Windows       int    `json:"windows" jsonschema:"background windows held"`
	WindowSeconds int    `json:"windowSeconds" jsonschema:"length of each window"`
	EverySeconds  int    `json:"everySeconds" jsonschema:"one window starts every this many seconds"`
	Oldest        string `json:"oldest,omitempty" jsonschema:"start of the oldest window, RFC 3339"`
	Newest        string `json:"newest,omitempty" jsonschema:"end of the newest window, RFC 3339"`
	Skipped       int    `json:"skipped,omitempty" jsonschema:"windows skipped (a call's CPU profile or other code profiling)"`
}

// cpuChange is one function whose CPU use differs between two windows.
type cpuChange struct {
	ID   string `json:"id" jsonschema:"the function; pass it to code_definition"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty" jsonschema:"line of the function's declaration"`
	// Now and Before are the function's flat CPU time per second of the
	// window, as a percentage of one core.
	Now    float64 `json:"now" jsonschema:"percent of one core in window"`
	Before float64 `json:"before" jsonschema:"percent of one core in compare"`
	Change float64 `json:"change" jsonschema:"now - before, percentage points of one core"`
}

// info describes the profiler's history.
func (pr *Profiler) info() *historyInfo {
	ws := pr.windows()
	pr.mu.Lock()
	h := &historyInfo{Windows: len(ws), WindowSeconds: int(pr.window / time.Second), EverySeconds: int(pr.every / time.Second), Skipped: pr.skipped}
	pr.mu.Unlock()
	if len(ws) > 0 {
		h.Oldest, h.Newest = ws[0].start.UTC().Format(time.RFC3339), ws[len(ws)-1].end.UTC().Format(time.RFC3339)
	}
	return h
}

// errNoProfiler is the error of a window asked of a server without a
// background profiler.
var errNoProfiler = errors.New("runtimetools: no background profiler")

// historyProfile answers a cpu profile from the background profiler's
// windows, compared with another window when asked.
func (s *state) historyProfile(ctx context.Context, in profileArgs) (*profileOutput, error) {
	pr := s.opts.Continuous
	if pr == nil {
		return nil, fmt.Errorf("%w: this server keeps no CPU history (the host sets Options.Continuous); leave window out to sample now", errNoProfiler)
	}
	now := time.Now()
	ws, err := pr.selectWindows(in.Window, now)
	if err != nil {
		return nil, fmt.Errorf("window %s: %w", echo(in.Window), err)
	}
	p, from, to, err := mergeWindows(ws)
	if err != nil {
		return nil, err
	}
	var raw []byte
	if in.Raw {
		var buf bytes.Buffer
		if err := p.Write(&buf); err != nil {
			return nil, fmt.Errorf("encoding the cpu profile: %w", err)
		}
		raw = buf.Bytes()
	}
	out, err := s.answerProfile(ctx, in, p, raw)
	if err != nil {
		return nil, err
	}
	r := &out.result
	r.From, r.To, r.Windows = from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339), len(ws)
	r.Seconds = int(sampledSeconds(ws) + 0.5)
	r.History = pr.info()
	if in.Compare == "" {
		return out, nil
	}
	base, err := pr.selectWindows(in.Compare, now)
	if err != nil {
		return nil, fmt.Errorf("compare %s: %w", echo(in.Compare), err)
	}
	bp, _, _, err := mergeWindows(base)
	if err != nil {
		return nil, err
	}
	r.Changes = compareCPU(p, sampledSeconds(ws), bp, sampledSeconds(base), in.Sample, in.Frames == "host", in.Top)
	return out, nil
}

// sampledSeconds is the time the windows sampled.
func sampledSeconds(ws []*profileWindow) float64 {
	var d time.Duration
	for _, w := range ws {
		d += w.end.Sub(w.start)
	}
	return max(d.Seconds(), 1e-3)
}

// compareCPU returns the n functions whose flat CPU per second of sampling
// changed most between p (over secs) and base (over baseSecs).
func compareCPU(p *profile.Profile, secs float64, base *profile.Profile, baseSecs float64, sample string, host bool, n int) []cpuChange {
	flat := func(q *profile.Profile) map[string]topFunction {
		idx := slices.IndexFunc(q.SampleType, func(t *profile.ValueType) bool { return t.Type == sample })
		out := map[string]topFunction{}
		if idx < 0 {
			return out
		}
		top, _, _ := rankFunctions(q, idx, math.MaxInt32, false, host, 0)
		for _, t := range top {
			out[t.ID] = t
		}
		return out
	}
	now, before := flat(p), flat(base)
	// cpu values are nanoseconds; samples are counts at 100 Hz.
	scale := 1e-9
	if sample == "samples" {
		scale = 0.01
	}
	share := func(v int64, s float64) float64 { return math.Round(10000*float64(v)*scale/s) / 100 }
	var out []cpuChange
	add := func(t topFunction) {
		c := cpuChange{ID: t.ID, File: t.File, Line: t.Line, Now: share(now[t.ID].Flat, secs), Before: share(before[t.ID].Flat, baseSecs)}
		c.Change = math.Round(100*(c.Now-c.Before)) / 100
		if c.Now != 0 || c.Before != 0 {
			out = append(out, c)
		}
	}
	for _, t := range now {
		add(t)
	}
	for id, t := range before {
		if _, ok := now[id]; !ok {
			add(t)
		}
	}
	slices.SortFunc(out, func(a, b cpuChange) int {
		if c := cmp.Compare(math.Abs(b.Change), math.Abs(a.Change)); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out[:min(n, len(out))]
}

// Text renders a profile answer: one line per function, its hot lines
// beneath it.
func (r profileResult) Text() string {
	t := textBuilder{max: 7 << 10}
	what := r.Kind + " profile"
	switch {
	case r.Windows > 0:
		what += fmt.Sprintf(" from %d background window(s) %s..%s (%d s sampled)", r.Windows, r.From, r.To, r.Seconds)
	case r.Seconds > 0:
		what += fmt.Sprintf(" over %d s", r.Seconds)
	case r.Kind != "goroutine":
		what += " since the process started"
	}
	t.line("%s: %s %s in %d functions, ranked by %s", what, r.Sample, fmtValue(r.Total, r.Unit), r.Functions, r.Sample)
	switch {
	case r.Frames == "host" && r.Kind == "mutex":
		t.line("flat is the contention others waited, counted to the code that held the lock; its hot line is where it unlocked")
	case r.Frames == "host" && r.Kind == "block":
		t.line("flat is the blocking, counted to the host code that waited; its hot line is where it waited")
	case r.Frames == "host":
		t.line("flat counts runtime, sync and standard-library frames to the host code that called them (frames: all shows them)")
	}
	t.line("flat%% flat cum%% function file:line")
	cumOnly := 0
	for _, f := range r.Top {
		if f.Flat == 0 && r.SortBy != "cum" && r.Total != 0 {
			cumOnly++ // callers only: in structuredContent, or with sortBy cum
			continue
		}
		native := ""
		if f.Native {
			native = " [native]"
		}
		t.line("%.1f%% %s %.1f%% %s %s%s", f.FlatPercent, fmtValue(f.Flat, r.Unit), f.CumPercent, f.ID, fileLine(f.ID, f.File, f.Line), native)
		for _, l := range f.Lines {
			src := ""
			if l.Source != "" {
				src = " | " + l.Source
			}
			t.line("    %s:%d %.1f%% %s%s", baseName(f.File), l.Line, l.Percent, fmtValue(l.Flat, r.Unit), src)
		}
	}
	if cumOnly > 0 {
		t.line("(%d more rows with cum only: sortBy cum ranks callers)", cumOnly)
	}
	if len(r.Changes) > 0 {
		t.line("change against compare, %% of one core: now before change function file:line")
		for _, c := range r.Changes {
			t.line("%.1f %.1f %+.1f %s %s", c.Now, c.Before, c.Change, c.ID, fileLine(c.ID, c.File, c.Line))
		}
	}
	if h := r.History; h != nil {
		t.line("history: %d windows of %d s every %d s, %s..%s (window: last, 10m or 14:05 answers from it)", h.Windows, h.WindowSeconds, h.EverySeconds, h.Oldest, h.Newest)
	}
	if r.Embedded {
		t.line("raw profile attached: %s (%d bytes, go tool pprof)", r.URI, r.Bytes)
	}
	if r.Note != "" {
		t.line("note: %s", r.Note)
	}
	return t.String()
}

// baseName is the last element of a slash or backslash path.
func baseName(file string) string {
	for i := len(file) - 1; i >= 0; i-- {
		if file[i] == '/' || file[i] == '\\' {
			return file[i+1:]
		}
	}
	return file
}
