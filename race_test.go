//go:build race

package mcp_test

// raceEnabled reports a -race build, whose instrumentation makes parsing
// large bodies slow.
const raceEnabled = true
