package runtimetools

// processMetric describes a process figure read from the OS.
type processMetric struct {
	name    string
	desc    string
	counter bool
}

// processMetrics lists the process figures this platform offers
// (procMetrics, per platform).
func processMetrics() []processMetric { return procMetrics }
