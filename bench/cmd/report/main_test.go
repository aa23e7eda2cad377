package main

import (
	"math"
	"strings"
	"testing"
)

func TestBenchLine(t *testing.T) {
	m := benchLine.FindStringSubmatch("BenchmarkServeHTTP/echo64k/embed-2        	      62	   3248014 ns/op	  20.21 MB/s	  933640 B/op	      51 allocs/op")
	if m == nil {
		t.Fatal("benchmark line not matched")
	}
	if m[1] != "echo64k" || m[2] != "embed" || m[3] != "3248014" || m[4] != "933640" || m[5] != "51" {
		t.Errorf("parsed %q", m[1:])
	}
	if benchLine.MatchString("BenchmarkOther/echo/embed-2 1 5 ns/op 1 B/op 1 allocs/op") {
		t.Error("matched another benchmark")
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
	in := []float64{3, 1, 2}
	median(in)
	if in[0] != 3 {
		t.Error("median reordered its input")
	}
}

func TestHandleLine(t *testing.T) {
	m := handleLine.FindStringSubmatch("BenchmarkHandleEcho-2     	   64497	      3656 ns/op	    2056 B/op	      22 allocs/op")
	if m == nil {
		t.Fatal("benchmark line not matched")
	}
	if m[1] != "HandleEcho" || m[2] != "3656" || m[3] != "2056" || m[4] != "22" {
		t.Errorf("parsed %q", m[1:])
	}
	if handleLine.MatchString("BenchmarkHandleEchoTask-2 1 5 ns/op 1 B/op 1 allocs/op") {
		t.Error("matched another benchmark")
	}
}

func TestSpeedTable(t *testing.T) {
	inproc := map[string][]sample{"echo/bare": {{100, 10, 10}}, "echo/embed": {{110, 11, 9}}}
	handle := map[string][]sample{"BaselineEcho": {{200, 1664, 27}}, "HandleEcho": {{210, 2000, 20}}}
	loops := map[string][]loop{"echo/bare": {{RPS: 1000}}, "echo/embed": {{RPS: 950}}, "echo/gosdk": {{RPS: 100}}}
	got := string(speedTable(inproc, handle, loops))
	for _, want := range []string{
		"| loopback echo, req/s (16 clients, higher is better) | 0.95× | 0.10× | – |",
		"| in-process echo through `ServeHTTP`, ns/op (lower is better) | 1.10× | – | – |",
		"in 1.05× the time", "with 20 allocations (2000 B) against its 27 (1664 B)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("speed table lacks %q:\n%s", want, got)
		}
	}
}
