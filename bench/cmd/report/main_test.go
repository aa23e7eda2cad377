package main

import (
	"math"
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
