//go:build !linux

package runtimetools

// procMetrics is empty where the tools read no process figures.
var procMetrics []processMetric

func readProcess() map[string]float64 { return nil }
