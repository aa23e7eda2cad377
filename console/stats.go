package console

import (
	"slices"
	"strings"
	"time"
)

// callFilter selects recorded calls; empty fields match everything.
type callFilter struct {
	Tool      string
	Principal string
	Method    string
	Outcome   string // "", "ok", "error", "tool_error" or "failed" (either failure)
	Limit     int
}

func (f *callFilter) match(c *call) bool {
	if f.Tool != "" && c.tool != f.Tool {
		return false
	}
	if f.Principal != "" && c.principal != f.Principal {
		return false
	}
	if f.Method != "" && c.method != f.Method {
		return false
	}
	switch f.Outcome {
	case "":
	case "failed":
		return c.outcome != outcomeOK
	default:
		return c.outcome.String() == f.Outcome
	}
	return true
}

// recent returns up to f.Limit calls matching f, newest first, and how
// many of the recorded calls match in all.
func (r *recorder) recent(f *callFilter) (calls []call, matched int, held int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := uint64(len(r.ring))
	held = int(min(r.total, n))
	calls = make([]call, 0, min(f.Limit, held))
	for i := 0; i < held; i++ {
		c := &r.ring[(r.total-1-uint64(i))%n]
		if !f.match(c) {
			continue
		}
		matched++
		if len(calls) < f.Limit {
			calls = append(calls, *c)
		}
	}
	return calls, matched, held
}

// summary is what a set of buckets says: counts and latency percentiles.
type summary struct {
	Count, Errors uint32
	P50, P99      time.Duration
	hist          [histBuckets]uint32
}

func (s *summary) merge(b *bucket) {
	s.Count += b.count
	s.Errors += b.errors
	for i, v := range b.hist {
		s.hist[i] += v
	}
}

// finish computes the percentiles.
func (s *summary) finish() {
	s.P50, s.P99 = percentile(&s.hist, s.Count, 0.50), percentile(&s.hist, s.Count, 0.99)
}

// ErrorRate is the share of failed requests, 0 to 1.
func (s *summary) ErrorRate() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.Errors) / float64(s.Count)
}

func percentile(h *[histBuckets]uint32, n uint32, q float64) time.Duration {
	if n == 0 {
		return 0
	}
	rank := uint32(q*float64(n) + 0.999999)
	rank = max(rank, 1)
	var seen uint32
	for i, v := range h {
		seen += v
		if seen >= rank {
			return histValue(i)
		}
	}
	return histValue(histBuckets - 1)
}

// toolSummary is one tool's last hour.
type toolSummary struct {
	Name string
	summary
	Series [toolSlots]uint32        // calls per slot, oldest first
	Failed [toolSlots]uint32        // failed calls per slot, oldest first
	P99s   [toolSlots]time.Duration // p99 latency per slot, oldest first
}

// hourStats is the last hour of every request and of every tool.
type hourStats struct {
	Minutes [hourMinutes]summary // oldest first; percentiles computed
	Total   summary              // the hour
	Tools   []toolSummary        // by name
	All     uint64               // requests recorded since the start
}

// stats summarises the hour before now.
func (r *recorder) stats(now time.Time) *hourStats {
	hs := new(hourStats)
	minute := now.UnixNano() / int64(time.Minute)
	slot := minute / slotMinutes
	r.mu.Lock()
	hs.All = r.total
	for i := range hourMinutes {
		m := minute - hourMinutes + 1 + int64(i)
		if b := &r.minutes[m%hourMinutes]; b.period == m {
			hs.Minutes[i].merge(b)
			hs.Total.merge(b)
		}
	}
	hs.Tools = make([]toolSummary, 0, len(r.tools))
	for name, ts := range r.tools {
		t := toolSummary{Name: name}
		for i := range toolSlots {
			s := slot - toolSlots + 1 + int64(i)
			if b := &ts.slots[s%toolSlots]; b.period == s {
				t.merge(b)
				t.Series[i], t.Failed[i] = b.count, b.errors
				t.P99s[i] = percentile(&b.hist, b.count, 0.99)
			}
		}
		if t.Count > 0 {
			hs.Tools = append(hs.Tools, t)
		}
	}
	r.mu.Unlock()
	for i := range hs.Minutes {
		hs.Minutes[i].finish()
	}
	hs.Total.finish()
	for i := range hs.Tools {
		hs.Tools[i].finish()
	}
	slices.SortFunc(hs.Tools, func(a, b toolSummary) int { return strings.Compare(a.Name, b.Name) })
	return hs
}

// toolCounts returns how often each tool was called in the hour before now.
func (r *recorder) toolCounts(now time.Time) map[string]uint32 {
	slot := now.UnixNano() / int64(time.Minute) / slotMinutes
	r.mu.Lock()
	defer r.mu.Unlock()
	counts := make(map[string]uint32, len(r.tools))
	for name, ts := range r.tools {
		var n uint32
		for i := range toolSlots {
			s := slot - toolSlots + 1 + int64(i)
			if b := &ts.slots[s%toolSlots]; b.period == s {
				n += b.count
			}
		}
		if n > 0 {
			counts[name] = n
		}
	}
	return counts
}
