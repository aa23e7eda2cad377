//go:build unix

package console

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system: on
// a shared machine, other work adds to wall time, not to it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
