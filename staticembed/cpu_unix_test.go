//go:build unix

package staticembed

import "syscall"

// cpuSeconds returns the CPU time the process used so far, user and
// system, or -1 when unknown.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
