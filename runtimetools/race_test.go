//go:build race

package runtimetools

const raceEnabled = true
