package runtimetools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/google/pprof/profile"
)

// Defaults of ProfilerOptions.
const (
	DefaultProfileWindow = 10 * time.Second
	DefaultProfileEvery  = time.Minute
	DefaultProfileKeep   = 60
)

// ProfilerOptions configure a Profiler. The zero value is usable: a 10 s
// CPU profile every minute, the last 60 kept (an hour).
type ProfilerOptions struct {
	// Window is how long each CPU profile samples, 1 s..Every. Zero means
	// DefaultProfileWindow.
	Window time.Duration
	// Every is the time from the start of one window to the start of the
	// next, at least Window. Zero means DefaultProfileEvery.
	Every time.Duration
	// Keep bounds the windows kept; the oldest make room. Zero means
	// DefaultProfileKeep; at most 10 000.
	Keep int
}

// A Profiler takes short CPU profiles in the background at a low duty
// cycle and keeps the last ones, so that runtime_profile can answer for a
// past window (a load that is over, an incident at 14:05) and compare two
// windows. Give it to runtimetools in Options.Continuous and run it:
//
//	prof, err := runtimetools.NewProfiler(nil) // 10 s a minute, an hour kept
//	...
//	go prof.Run(ctx)
//	runtimetools.Register(ts, &runtimetools.Options{Continuous: prof})
//
// A process has one CPU profiler: a runtime_profile call that takes a CPU
// profile of its own stops the running background window early (it is
// kept, shorter) and the background profiler skips its windows while the
// call's runs. Code that profiles the CPU by other means (net/http/pprof)
// makes the background windows fail until it is done; they are skipped.
//
// At the default duty cycle (one sixth of the time) the cost is about a
// sixth of what a CPU profile costs while it runs: under 1 % of CPU
// (BenchmarkProfilerOverhead measures it).
type Profiler struct {
	window, every time.Duration
	slot          *cpuSlot

	mu      sync.Mutex
	ring    []*profileWindow
	next    int // where the next window goes
	n       int
	skipped int
}

// profileWindow is one background CPU profile.
type profileWindow struct {
	start, end time.Time
	p          *profile.Profile
}

// NewProfiler returns a Profiler; opts may be nil. It fails for bounds
// that mean nothing. Nothing runs until Run.
func NewProfiler(opts *ProfilerOptions) (*Profiler, error) {
	var o ProfilerOptions
	if opts != nil {
		o = *opts
	}
	if o.Window == 0 {
		o.Window = DefaultProfileWindow
	}
	if o.Every == 0 {
		o.Every = max(DefaultProfileEvery, o.Window)
	}
	if o.Keep == 0 {
		o.Keep = DefaultProfileKeep
	}
	switch {
	case o.Window < time.Second:
		return nil, fmt.Errorf("runtimetools: ProfilerOptions.Window is %v; want 0 (the default, %v) or at least 1s", o.Window, DefaultProfileWindow)
	case o.Every < o.Window:
		return nil, fmt.Errorf("runtimetools: ProfilerOptions.Every is %v, shorter than Window %v", o.Every, o.Window)
	case o.Keep < 0 || o.Keep > 10000:
		return nil, fmt.Errorf("runtimetools: ProfilerOptions.Keep is %d; want 0 (the default, %d) to 10000", o.Keep, DefaultProfileKeep)
	}
	return &Profiler{window: o.Window, every: o.Every, slot: &cpuSlot{}, ring: make([]*profileWindow, o.Keep)}, nil
}

// Run takes a CPU profile of Window every Every until ctx is done, and
// returns ctx's error then. Run it once, in its own goroutine.
func (pr *Profiler) Run(ctx context.Context) error {
	tick := time.NewTicker(pr.every)
	defer tick.Stop()
	for {
		if err := pr.takeWindow(ctx); err != nil && ctx.Err() == nil {
			pr.mu.Lock()
			pr.skipped++
			pr.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// takeWindow takes one background window, unless a call's CPU profile
// runs; a call that starts one meanwhile ends it early.
func (pr *Profiler) takeWindow(ctx context.Context) error {
	stop, release, err := pr.slot.acquireBackground(pr.window)
	if err != nil {
		return err
	}
	defer release()
	var buf bytes.Buffer
	start := time.Now()
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return err
	}
	t := time.NewTimer(pr.window)
	select {
	case <-t.C:
	case <-stop:
		t.Stop()
	case <-ctx.Done():
		t.Stop()
	}
	pprof.StopCPUProfile()
	end := time.Now()
	p, err := profile.ParseData(buf.Bytes())
	if err != nil {
		return err
	}
	redactProfileLabels(p)
	w := &profileWindow{start: start, end: end, p: p}
	pr.mu.Lock()
	if len(pr.ring) > 0 {
		pr.ring[pr.next] = w
		pr.next = (pr.next + 1) % len(pr.ring)
		pr.n = min(pr.n+1, len(pr.ring))
	}
	pr.mu.Unlock()
	return nil
}

// windows returns the kept windows, oldest first.
func (pr *Profiler) windows() []*profileWindow {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	out := make([]*profileWindow, 0, pr.n)
	for i := 0; i < pr.n; i++ {
		out = append(out, pr.ring[(pr.next-pr.n+i+2*len(pr.ring))%len(pr.ring)])
	}
	return out
}

// errNoWindow is the error of a window runtime_profile does not hold.
var errNoWindow = errors.New("runtimetools: no such window")

// selectWindows returns the windows that answer spec: "last" (the newest),
// a duration ("10m": every window that ended within it) or a time (RFC 3339,
// or "15:04" UTC today: the window that holds it, or else the nearest).
func (pr *Profiler) selectWindows(spec string, now time.Time) ([]*profileWindow, error) {
	all := pr.windows()
	if len(all) == 0 {
		return nil, fmt.Errorf("%w: the background profiler has no window yet (it takes %v every %v)", errNoWindow, pr.window, pr.every)
	}
	if spec == "last" {
		return all[len(all)-1:], nil
	}
	if d, err := time.ParseDuration(spec); err == nil && d > 0 {
		var out []*profileWindow
		for _, w := range all {
			if !w.end.Before(now.Add(-d)) {
				out = append(out, w)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%w: no window ended in the last %v; the newest ended at %s", errNoWindow, d, all[len(all)-1].end.UTC().Format(time.RFC3339))
		}
		return out, nil
	}
	at, err := parseClock(spec, now)
	if err != nil {
		return nil, err
	}
	best, dist := all[0], time.Duration(1<<62)
	for _, w := range all {
		var d time.Duration
		switch {
		case at.Before(w.start):
			d = w.start.Sub(at)
		case at.After(w.end):
			d = at.Sub(w.end)
		}
		if d < dist {
			best, dist = w, d
		}
	}
	if dist > pr.every {
		return nil, fmt.Errorf("%w: no window near %s; windows held from %s to %s", errNoWindow, at.UTC().Format(time.RFC3339),
			all[0].start.UTC().Format(time.RFC3339), all[len(all)-1].end.UTC().Format(time.RFC3339))
	}
	return []*profileWindow{best}, nil
}

// parseClock parses an RFC 3339 time or a UTC clock time of today (15:04
// or 15:04:05).
func parseClock(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"15:04", "15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			y, m, d := now.UTC().Date()
			return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC), nil
		}
	}
	return time.Time{}, fmt.Errorf("not a window: want last, a duration (10m) or a time (RFC 3339, or 15:04 UTC); got %s", echo(s))
}

// mergeWindows merges windows into one profile, and returns its span.
func mergeWindows(ws []*profileWindow) (*profile.Profile, time.Time, time.Time, error) {
	ps := make([]*profile.Profile, len(ws))
	for i, w := range ws {
		ps[i] = w.p.Copy()
	}
	p, err := profile.Merge(ps)
	if err != nil {
		return nil, time.Time{}, time.Time{}, fmt.Errorf("merging the windows: %w", err)
	}
	return p, ws[0].start, ws[len(ws)-1].end, nil
}

// cpuSlot admits one CPU profile at a time in a process: a call's, or a
// background window, which a call's ends early.
type cpuSlot struct {
	mu         sync.Mutex
	busy       bool
	background bool
	endsAt     string        // RFC 3339 end of the running profile
	stop       chan struct{} // closed to end a background window early
	done       chan struct{} // closed when the running profile ends
}

// acquire takes the slot for a call's profile of d, ending a background
// window first; it fails with ErrBusy while another call's runs.
func (c *cpuSlot) acquire(ctx context.Context, d time.Duration) (release func(), err error) {
	for {
		c.mu.Lock()
		if !c.busy {
			break
		}
		if !c.background {
			ends := c.endsAt
			c.mu.Unlock()
			return nil, fmt.Errorf("%w: a CPU profile is already running; it ends at %s. Only one runs at a time: try again then, or take a heap, allocs, mutex, block or goroutine profile meanwhile", ErrBusy, ends)
		}
		select {
		case <-c.stop:
		default:
			close(c.stop)
		}
		done := c.done
		c.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctxErr(ctx)
		}
	}
	c.take(false, d)
	c.mu.Unlock()
	return c.release, nil
}

// acquireBackground takes the slot for a background window of d, or
// fails if a call's profile runs.
func (c *cpuSlot) acquireBackground(d time.Duration) (stop <-chan struct{}, release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy {
		return nil, nil, ErrBusy
	}
	c.take(true, d)
	return c.stop, c.release, nil
}

func (c *cpuSlot) take(background bool, d time.Duration) {
	c.busy, c.background = true, background
	c.endsAt = time.Now().Add(d).UTC().Format(time.RFC3339)
	c.stop, c.done = make(chan struct{}), make(chan struct{})
}

func (c *cpuSlot) release() {
	c.mu.Lock()
	close(c.done)
	c.busy, c.background, c.endsAt = false, false, ""
	c.mu.Unlock()
}
