package console

import (
	"runtime/metrics"
	"sync"
	"time"

	"github.com/embedmcp/mcp/internal/viewdata"
)

// sample is one reading of the process.
type sample struct {
	at         time.Time
	goroutines uint64
	heap       uint64        // bytes of live and unswept heap objects
	total      uint64        // bytes mapped by the Go runtime
	gcPause    time.Duration // the longest GC pause since the previous sample (bucket bound)
	gcs        uint64        // GC cycles completed since the start
	requests   uint64        // requests recorded since the start
}

// The runtime/metrics read per sample.
const (
	metricGoroutines = viewdata.MetricGoroutines
	metricHeap       = viewdata.MetricHeap
	metricTotal      = viewdata.MetricTotal
	metricPauses     = viewdata.MetricPauses
	metricGCs        = "/gc/cycles/total:gc-cycles"
)

// sampler keeps a bounded ring of samples, taken every interval by its
// goroutine.
type sampler struct {
	interval time.Duration
	requests func() uint64

	mu      sync.Mutex
	ring    []sample
	n       int              // samples taken
	reading []metrics.Sample // reused
	pauses  []uint64         // the pause histogram's counts at the previous sample
	quit    chan struct{}
	done    chan struct{}
	once    sync.Once
}

func newSampler(interval time.Duration, requests func() uint64) *sampler {
	size := int(time.Hour / interval)
	size = min(max(size, 2), 3600)
	s := &sampler{interval: interval, requests: requests, ring: make([]sample, size),
		quit: make(chan struct{}), done: make(chan struct{})}
	for _, name := range []string{metricGoroutines, metricHeap, metricTotal, metricPauses, metricGCs} {
		s.reading = append(s.reading, metrics.Sample{Name: name})
	}
	s.take(time.Now())
	go s.run()
	return s
}

func (s *sampler) run() {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case now := <-t.C:
			s.take(now)
		}
	}
}

func (s *sampler) stop() {
	s.once.Do(func() { close(s.quit) })
	<-s.done
}

// take reads the runtime's metrics into the next sample.
func (s *sampler) take(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	metrics.Read(s.reading)
	sm := sample{at: now, requests: s.requests()}
	for _, r := range s.reading {
		switch r.Value.Kind() {
		case metrics.KindUint64:
			v := r.Value.Uint64()
			switch r.Name {
			case metricGoroutines:
				sm.goroutines = v
			case metricHeap:
				sm.heap = v
			case metricTotal:
				sm.total = v
			case metricGCs:
				sm.gcs = v
			}
		case metrics.KindFloat64Histogram:
			h := r.Value.Float64Histogram()
			if len(s.pauses) == len(h.Counts) {
				for i := len(h.Counts) - 1; i >= 0; i-- {
					if h.Counts[i] > s.pauses[i] {
						sm.gcPause = time.Duration(h.Buckets[i+1] * float64(time.Second))
						if h.Buckets[i+1] > 1e9 { // +Inf
							sm.gcPause = time.Duration(h.Buckets[i] * float64(time.Second))
						}
						break
					}
				}
			} else {
				s.pauses = make([]uint64, len(h.Counts))
			}
			copy(s.pauses, h.Counts)
		}
	}
	s.ring[s.n%len(s.ring)] = sm
	s.n++
}

// samples returns the samples of the last hour, oldest first.
func (s *sampler) samples(now time.Time) []sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := min(s.n, len(s.ring))
	out := make([]sample, 0, held)
	for i := held; i > 0; i-- {
		sm := s.ring[(s.n-i)%len(s.ring)]
		if now.Sub(sm.at) <= time.Hour {
			out = append(out, sm)
		}
	}
	return out
}
