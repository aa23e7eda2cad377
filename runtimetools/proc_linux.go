package runtimetools

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

var procMetrics = []processMetric{
	{name: "/process/rss:bytes", desc: "Resident set size: memory of this process held in RAM (VmRSS)."},
	{name: "/process/rss/peak:bytes", desc: "Peak resident set size since the process started (VmHWM)."},
	{name: "/process/threads:threads", desc: "Operating system threads of this process."},
	{name: "/process/open-fds:fds", desc: "Open file descriptors: files, sockets, pipes."},
	{name: "/process/max-fds:fds", desc: "Soft limit on open file descriptors (RLIMIT_NOFILE); opening more fails with EMFILE."},
	{name: "/process/cpu/user:cpu-seconds", desc: "CPU time spent in user mode since the process started.", counter: true},
	{name: "/process/cpu/system:cpu-seconds", desc: "CPU time spent in the kernel since the process started.", counter: true},
	{name: "/process/uptime:seconds", desc: "Time since the process started."},
}

// readProcess reads the process figures from /proc/self and the kernel.
// It never reads the environment.
func readProcess() map[string]float64 {
	out := map[string]float64{}
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range bytes.Lines(status) {
			key, val, ok := bytes.Cut(line, []byte(":"))
			if !ok {
				continue
			}
			fields := bytes.Fields(val)
			if len(fields) == 0 {
				continue
			}
			n, err := strconv.ParseFloat(string(fields[0]), 64)
			if err != nil {
				continue
			}
			switch string(key) {
			case "VmRSS":
				out["/process/rss:bytes"] = n * 1024
			case "VmHWM":
				out["/process/rss/peak:bytes"] = n * 1024
			case "Threads":
				out["/process/threads:threads"] = n
			}
		}
	}
	if f, err := os.Open("/proc/self/fd"); err == nil {
		n := 0
		for {
			names, err := f.Readdirnames(1024)
			n += len(names)
			if err != nil || len(names) == 0 {
				break
			}
		}
		f.Close()
		out["/process/open-fds:fds"] = float64(n - 1) // less the descriptor reading the directory
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		out["/process/max-fds:fds"] = float64(lim.Cur)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		out["/process/cpu/user:cpu-seconds"] = time.Duration(ru.Utime.Nano()).Seconds()
		out["/process/cpu/system:cpu-seconds"] = time.Duration(ru.Stime.Nano()).Seconds()
	}
	if up, ok := uptime(); ok {
		out["/process/uptime:seconds"] = up
	}
	return out
}

// uptime computes the time since the process started from its start time
// in clock ticks after boot (/proc/self/stat) and the boot time
// (/proc/stat), with the USER_HZ of 100 that Linux reports to user space.
func uptime() (float64, bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	// Field 22 (starttime) is the 20th after the command name.
	if len(fields) < 20 {
		return 0, false
	}
	ticks, err := strconv.ParseFloat(string(fields[19]), 64)
	if err != nil {
		return 0, false
	}
	all, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(all) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			boot, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
			if err != nil {
				return 0, false
			}
			started := boot + ticks/100
			now := float64(time.Now().UnixNano()) / 1e9
			return max(now-started, 0), true
		}
	}
	return 0, false
}
