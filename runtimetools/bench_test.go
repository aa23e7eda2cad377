package runtimetools

import (
	"context"
	"sync"
	"testing"
	"time"
)

// BenchmarkGoroutines100k answers runtime_goroutines over 100 000 blocked
// goroutines (in three stacks) plus the test's own. The bound is
// 1 s and 64 MB per answer: read ns/op and B/op (everything allocated to
// answer, the runtime's profile records included).
func BenchmarkGoroutines100k(b *testing.B) {
	startGoroutines(b, 98000, func(stop chan struct{}, started *sync.WaitGroup) { leakyWorker(stop, started) })
	startGoroutines(b, 1000, func(stop chan struct{}, started *sync.WaitGroup) { busyWaiter(stop, started) })
	startGoroutines(b, 1000, func(stop chan struct{}, started *sync.WaitGroup) {
		started.Done()
		<-stop
	})
	waitBlocked(b, "leakyWorker", 98000)
	ctx := context.Background()
	in := goroutinesArgs{Function: "leakyWorker", MinCount: 1, Limit: defaultGroupLimit}
	b.ReportAllocs()
	var res *goroutinesResult
	cpu := cpuTime()
	for b.Loop() {
		var err error
		if res, err = goroutines(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	if len(res.Groups) == 0 || res.Groups[0].Count != 98000 || res.Groups[0].State != "chan receive" {
		b.Fatalf("wrong answer: total %d, first group %+v, statesUnknown %d", res.Total, res.Groups[:min(1, len(res.Groups))], res.StatesUnknown)
	}
	reportCPU(b, cpu)
	b.ReportMetric(100*float64(res.Total-res.StatesUnknown)/float64(res.Total), "%states")
}

// reportCPU reports the process's CPU time per operation since start, a
// steadier figure than the wall time on a loaded machine (it includes the
// garbage collector's work).
func reportCPU(b *testing.B, start time.Duration) {
	if d := cpuTime() - start; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
