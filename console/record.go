package console

import (
	"context"
	"math/bits"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
)

// outcome is how a recorded request ended.
type outcome uint8

const (
	outcomeOK        outcome = iota // answered with a result
	outcomeToolError                // a tools/call result with isError set
	outcomeError                    // a JSON-RPC error
)

// String names the outcome as the Calls page and its filter do.
func (o outcome) String() string {
	switch o {
	case outcomeToolError:
		return "tool_error"
	case outcomeError:
		return "error"
	}
	return "ok"
}

// call is one recorded request: what the Calls page shows. It holds no
// argument, no id and no _meta: nothing a client sent but the method and,
// for a tool the caller may use, the tool's registered name.
type call struct {
	at        int64  // start, Unix nanoseconds
	dur       int64  // nanoseconds
	principal string // the caller's principal
	method    string // one of methods, or "(other)"
	tool      string // the registered tool's name; "" for other methods and unknown tools
	version   string // the protocol revision served
	code      int32  // the JSON-RPC error code, for outcomeError
	outcome   outcome
}

// methods are the method names recorded as they are; any other is
// recorded as "(other)", so that names clients make up stay out.
var methods = [...]string{"initialize", "ping", "tools/list", "tools/call", "server/discover",
	"subscriptions/listen", "tasks/get", "tasks/update", "tasks/cancel", "logging/setLevel"}

// canonicalMethod returns the recorded name of method, without allocating.
func canonicalMethod(method string) string {
	for _, m := range methods {
		if m == method {
			return m
		}
	}
	return "(other)"
}

// The latency histograms have two buckets per octave from 1 µs
// (2^10 ns) up; bucket 0 holds everything faster, the last everything
// slower than about 68 s.
const (
	histBase    = 10                      // log2 of the first bound, in nanoseconds
	histBuckets = 2*(36-histBase) + 2     // half-octaves up to 2^36 ns, plus the two ends
	toolSlots   = 12                      // per-tool slots of slotMinutes each: one hour
	slotMinutes = 5                       // minutes per per-tool slot
	hourMinutes = toolSlots * slotMinutes // the window of the statistics
)

// histIndex returns the bucket of a duration of ns nanoseconds.
func histIndex(ns int64) int {
	if ns < 1<<histBase {
		return 0
	}
	n := bits.Len64(uint64(ns)) // ns is in [2^(n-1), 2^n)
	half := int(uint64(ns)>>(n-2)) & 1
	i := 2*(n-1-histBase) + half + 1
	if i >= histBuckets {
		return histBuckets - 1
	}
	return i
}

// histValue returns a duration representative of bucket i: the geometric
// middle of its bounds.
func histValue(i int) time.Duration {
	if i <= 0 {
		return time.Duration(1<<histBase) / 2
	}
	o := (i - 1) / 2
	lo := float64(int64(1) << (o + histBase))
	if (i-1)%2 == 1 {
		lo *= 1.5
	}
	return time.Duration(lo * 1.2247) // sqrt(1.5): the middle of a bucket ~1.5 wide
}

// bucket counts the requests of one period.
type bucket struct {
	period int64 // minutes (or slots) since the epoch; the bucket is stale when it is not the current one
	count  uint32
	errors uint32 // error and tool_error outcomes
	hist   [histBuckets]uint32
}

func (b *bucket) add(period int64, dur int64, failed bool) {
	if b.period != period {
		*b = bucket{period: period}
	}
	b.count++
	if failed {
		b.errors++
	}
	b.hist[histIndex(dur)]++
}

// toolStats are the per-slot counts of one tool over the last hour.
type toolStats struct {
	slots [toolSlots]bucket
}

// maxToolStats bounds the tools with statistics; calls of tools beyond it
// are recorded in the ring and the totals only.
const maxToolStats = 10_000

// recorder keeps the recent requests and their statistics. One mutex
// guards it: recording takes it once, for a few dozen nanoseconds.
type recorder struct {
	mu      sync.Mutex
	ring    []call
	total   uint64              // requests recorded since the start
	minutes [hourMinutes]bucket // every request, per minute
	tools   map[string]*toolStats
}

func newRecorder(size int) *recorder {
	return &recorder{ring: make([]call, size), tools: map[string]*toolStats{}}
}

// add records c.
func (r *recorder) add(c *call) {
	minute := c.at / int64(time.Minute)
	failed := c.outcome != outcomeOK
	r.mu.Lock()
	r.ring[r.total%uint64(len(r.ring))] = *c
	r.total++
	r.minutes[minute%hourMinutes].add(minute, c.dur, failed)
	if c.tool != "" {
		ts := r.tools[c.tool]
		if ts == nil && len(r.tools) < maxToolStats {
			ts = new(toolStats)
			r.tools[c.tool] = ts
		}
		if ts != nil {
			slot := minute / slotMinutes
			ts.slots[slot%toolSlots].add(slot, c.dur, failed)
		}
	}
	r.mu.Unlock()
}

// Record is the Middleware that feeds the console: put it in
// mcp.Options.Middleware. It records, for every request, the time, the
// caller's principal, the method, the tool (only a registered tool the
// caller may use: names clients make up are not kept), the protocol
// revision, the outcome and the duration; never an argument, an id or
// _meta. It takes well under a microsecond and allocates nothing, once a
// tool's statistics exist (BenchmarkRecord).
func (c *Console) Record(ctx context.Context, msg *mcp.Message, next mcp.MessageHandler) mcp.Outcome {
	start := time.Now()
	out := next(ctx, msg)
	tool := ""
	if msg.Method == "tools/call" {
		if t := msg.Tool(); t != nil {
			tool = t.Info().Name
		}
	}
	c.note(start, msg, tool, out)
	return out
}

// note records a request that started at start and was answered with out.
func (c *Console) note(start time.Time, msg *mcp.Message, tool string, out mcp.Outcome) {
	rec := call{
		at:        start.UnixNano(),
		dur:       int64(time.Since(start)),
		principal: msg.Caller.Principal,
		method:    canonicalMethod(msg.Method),
		version:   msg.ProtocolVersion,
		tool:      tool,
	}
	switch {
	case out.Err != nil:
		rec.outcome, rec.code = outcomeError, int32(out.Err.Code)
	case out.IsError:
		rec.outcome = outcomeToolError
	}
	c.rec.add(&rec)
}
