package runtimetools

import (
	"context"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// BenchmarkGoroutines100k answers runtime_goroutines over 100 000 blocked
// goroutines plus the test's own, with the goroutine dump (states and
// waits) and without: shallow, in three stacks of three frames; deep, in
// one stack of fifteen frames, as a goroutine of an HTTP handler blocked
// on a database has. The bound is 1 s and 64 MB per answer: read
// ns/op and B/op (everything allocated to answer, the runtime's profile
// records included); max-stop-ms is the longest pause of the world (the
// upper bound of its histogram bucket).
func BenchmarkGoroutines100k(b *testing.B) {
	b.Run("shallow", func(b *testing.B) {
		startGoroutines(b, 98000, func(stop chan struct{}, started *sync.WaitGroup) { leakyWorker(stop, started) })
		startGoroutines(b, 1000, func(stop chan struct{}, started *sync.WaitGroup) { busyWaiter(stop, started) })
		startGoroutines(b, 1000, func(stop chan struct{}, started *sync.WaitGroup) {
			started.Done()
			<-stop
		})
		waitBlocked(b, "leakyWorker", 98000)
		benchGoroutines(b, "leakyWorker", 98000)
	})
	b.Run("deep", func(b *testing.B) {
		startGoroutines(b, 100000, func(stop chan struct{}, started *sync.WaitGroup) { deepWorker(12, stop, started) })
		waitBlocked(b, "deepWorker", 100000)
		benchGoroutines(b, "deepWorker", 100000)
	})
}

// deepWorker blocks depth calls deep.
//
//go:noinline
func deepWorker(depth int, stop <-chan struct{}, started *sync.WaitGroup) {
	if depth > 0 {
		deepWorker(depth-1, stop, started)
		return
	}
	started.Done()
	<-stop
}

// benchGoroutines answers runtime_goroutines filtered by function, whose
// group of want goroutines must come first, with the dump and without.
func benchGoroutines(b *testing.B, function string, want int) {
	ctx := context.Background()
	for _, states := range []bool{true, false} {
		name := map[bool]string{true: "dump", false: "profile-only"}[states]
		b.Run(name, func(b *testing.B) {
			// Ask for the dump, or not, explicitly: by default it is not
			// taken at this size.
			in := goroutinesArgs{Function: function, MinCount: 1, Limit: defaultGroupLimit, States: &states}
			b.ReportAllocs()
			var res *goroutinesResult
			cpu := cpuTime()
			pauses := readPauses()
			for b.Loop() {
				var err error
				// The bound does not apply: the caller asks and may.
				if res, err = goroutines(ctx, in, dumpBound{pause: maxAutoDumpPause, goroutines: maxDumpGoroutines, mayExceed: states}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(longestPause(pauses, readPauses()).Seconds()*1e3, "max-stop-ms")
			wantState := map[bool]string{true: "chan receive", false: "unknown"}[states]
			if len(res.Groups) == 0 || res.Groups[0].Count != want || res.Groups[0].State != wantState {
				b.Fatalf("wrong answer: total %d, first group %+v", res.Total, res.Groups[:min(1, len(res.Groups))])
			}
			b.ReportMetric(100*float64(res.Matched-res.StatesUnknown)/float64(res.Matched), "%states")
		})
	}
}

// reportCPU reports the process's CPU time per operation since start, a
// steadier figure than the wall time on a loaded machine (it includes the
// garbage collector's work).
func reportCPU(b *testing.B, start time.Duration) {
	if d := cpuTime() - start; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// readPauses reads the histogram of the runtime's stop-the-world pauses
// other than the GC's (a goroutine dump is one).
func readPauses() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: "/sched/pauses/total/other:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// longestPause returns the upper bound of the highest bucket that gained
// pauses between two readings.
func longestPause(before, after *metrics.Float64Histogram) time.Duration {
	if before == nil || after == nil {
		return 0
	}
	for i := len(after.Counts) - 1; i >= 0; i-- {
		if after.Counts[i] > before.Counts[i] {
			return time.Duration(after.Buckets[i+1] * 1e9)
		}
	}
	return 0
}
