//go:build !unix

package staticembed

// cpuSeconds returns -1: the CPU time is not measured here.
func cpuSeconds() float64 { return -1 }
