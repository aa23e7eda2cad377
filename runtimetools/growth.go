package runtimetools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/google/pprof/profile"
)

// Limits of the growth answers.
const (
	maxLooks        = 16 // earlier answers kept per tool for since
	maxWatchSeconds = 30
)

// growthResult is what runtime_goroutines and runtime_metrics add for
// change since an earlier look.
type growthResult struct {
	// Token names this answer's sample: pass it as since later.
	Token string `json:"token,omitempty" jsonschema:"pass as since in a later call to see what changed since this answer"`
	// SinceTime is when the sample since names (or the watch began) was
	// taken.
	SinceTime string `json:"sinceTime,omitempty" jsonschema:"when the baseline of growth was taken, RFC 3339"`
	Samples   int    `json:"samples,omitempty" jsonschema:"samples compared, the baseline and this answer included"`
}

// errUnknownToken is the error of a since token this process does not
// hold.
var errUnknownToken = errors.New("runtimetools: unknown since token")

// looks keeps the samples of a tool's recent answers, for since.
type looks[T any] struct {
	prefix string // random per process: tokens of another replica are told apart
	mu     sync.Mutex
	seq    int
	ring   []look[T]
}

type look[T any] struct {
	seq  int
	at   time.Time
	data T
}

func newLooks[T any](kind string) *looks[T] {
	return &looks[T]{prefix: fmt.Sprintf("%s%04x-", kind, rand.Uint32()&0xffff)}
}

// add keeps a sample and returns its token.
func (l *looks[T]) add(at time.Time, data T) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	if len(l.ring) == maxLooks {
		l.ring = append(l.ring[:0], l.ring[1:]...)
	}
	l.ring = append(l.ring, look[T]{seq: l.seq, at: at, data: data})
	return l.prefix + strconv.Itoa(l.seq)
}

// since returns the samples from the one token names on, oldest first.
func (l *looks[T]) since(token string) ([]look[T], error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rest, ok := strings.CutPrefix(token, l.prefix)
	n, err := strconv.Atoi(rest)
	if !ok || err != nil {
		return nil, fmt.Errorf("%w %s: not from this process (a restart or another replica); call without since and use the new answer's token", errUnknownToken, echo(token))
	}
	for i, lk := range l.ring {
		if lk.seq == n {
			return append([]look[T](nil), l.ring[i:]...), nil
		}
	}
	if len(l.ring) == 0 || n > l.seq {
		return nil, fmt.Errorf("%w %s: no such answer yet; call without since", errUnknownToken, echo(token))
	}
	return nil, fmt.Errorf("%w %s: too old, only the last %d answers are kept (from %s%d); call without since", errUnknownToken, echo(token), maxLooks, l.prefix, l.ring[0].seq)
}

// stackCounts counts the goroutines of a goroutine profile per stack key
// (the key groupGoroutines gives each group).
func stackCounts(p *profile.Profile, seed maphash.Seed) map[uint64]int {
	counts := make(map[uint64]int, len(p.Sample))
	var key stackKey
	var nameBuf, fileBuf []byte
	for _, smp := range p.Sample {
		key.reset(seed)
		for _, loc := range smp.Location {
			for _, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				nameBuf, fileBuf = append(nameBuf[:0], ln.Function.Name...), append(fileBuf[:0], ln.Function.Filename...)
				key.add(nameBuf, fileBuf, ln.Line)
			}
		}
		counts[key.sum()] += int(smp.Value[0])
	}
	return counts
}

// goroutineCounts takes a goroutine profile and counts it per stack key.
func goroutineCounts(seed maphash.Seed) (map[uint64]int, error) {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		return nil, fmt.Errorf("goroutine profile: %w", err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		return nil, fmt.Errorf("decoding the goroutine profile: %w", err)
	}
	return stackCounts(p, seed), nil
}

// goroutinesGrowth answers runtime_goroutines: the groups, with their
// growth since the token in.Since and over in.Watch seconds of sampling.
func (s *state) goroutinesGrowth(ctx context.Context, req *mcp.Request, in goroutinesArgs, b dumpBound) (goroutinesResult, error) {
	var series []look[map[uint64]int]
	if in.Since != "" {
		var err error
		if series, err = s.goroutineLooks.since(in.Since); err != nil {
			return goroutinesResult{}, argError(req, "/since", "%v", err)
		}
	}
	for i := 0; i < in.Watch; i++ {
		counts, err := goroutineCounts(s.seed)
		if err != nil {
			return goroutinesResult{}, err
		}
		series = append(series, look[map[uint64]int]{at: time.Now(), data: counts})
		_ = req.Progress(float64(i), float64(in.Watch), fmt.Sprintf("watching goroutines: %d of %d s", i, in.Watch))
		select {
		case <-ctx.Done():
			return goroutinesResult{}, ctxErr(ctx)
		case <-time.After(time.Second):
		}
	}
	res, err := goroutinesKeyed(ctx, in, s.seed, b)
	if err != nil {
		return goroutinesResult{}, err
	}
	now := time.Now()
	res.Token = s.goroutineLooks.add(now, res.counts)
	if len(series) == 0 {
		return *res, nil
	}
	series = append(series, look[map[uint64]int]{at: now, data: res.counts})
	res.SinceTime, res.Samples = series[0].at.UTC().Format(time.RFC3339), len(series)
	for i := range res.Groups {
		g := &res.Groups[i]
		g.Series = make([]int, len(series))
		for j, lk := range series {
			g.Series[j] = lk.data[g.key]
		}
		growth := g.Series[len(series)-1] - g.Series[0]
		g.Growth = &growth
		g.Leak = growing(g.Series)
	}
	return *res, nil
}

// growing reports whether a series of three or more counts looks like a
// leak: it grew by at least 3 overall, never fell, and rose at every step
// (at two steps in three, over more than three steps).
func growing(series []int) bool {
	steps := len(series) - 1
	if steps < 2 || series[steps]-series[0] < 3 {
		return false
	}
	rises := 0
	for i := 1; i < len(series); i++ {
		switch {
		case series[i] < series[i-1]:
			return false
		case series[i] > series[i-1]:
			rises++
		}
	}
	if steps <= 3 {
		return rises == steps
	}
	return 3*rises >= 2*steps
}

// validateGrowth checks since and watch.
func validateGrowth(req *mcp.Request, since string, watch int) error {
	if err := checkText(req, "/since", since, 64); err != nil {
		return err
	}
	return checkRange(req, "/watch", watch, 0, maxWatchSeconds)
}

// metricsSince keeps res's values for later calls and, with since, adds
// each metric's change since the answer the token names.
func (s *state) metricsSince(req *mcp.Request, since string, res metricsResult) (metricsResult, error) {
	var then []look[map[string]float64]
	if since != "" {
		var err error
		if then, err = s.metricLooks.since(since); err != nil {
			return metricsResult{}, argError(req, "/since", "%v", err)
		}
	}
	now := time.Now()
	values := make(map[string]float64, len(res.Metrics))
	for _, m := range res.Metrics {
		if m.Value != nil {
			values[m.Name] = *m.Value
		}
	}
	res.Token = s.metricLooks.add(now, values)
	if len(then) == 0 {
		return res, nil
	}
	base := then[0]
	res.SinceTime, res.Samples = base.at.UTC().Format(time.RFC3339), len(then)+1
	res.Seconds = now.Sub(base.at).Seconds()
	for i := range res.Metrics {
		m := &res.Metrics[i]
		old, ok := base.data[m.Name]
		if m.Value == nil || !ok {
			continue
		}
		change := *m.Value - old
		m.Change = &change
		if m.Kind == "counter" && res.Seconds > 0 {
			rate := change / res.Seconds
			m.Rate = &rate
		}
	}
	return res, nil
}
