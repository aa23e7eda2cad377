package main

import (
	"context"
	"fmt"
	"time"

	"github.com/embedmcp/mcp"
)

// BurnArgs are the arguments of burn.
type BurnArgs struct {
	Ms int `json:"ms" jsonschema:"how long to burn CPU, in milliseconds (1..5000)"`
}

// Burned is the result of burn.
type Burned struct {
	Rounds int `json:"rounds" jsonschema:"rounds of the loop done"`
}

// newBurn returns the tool burn, which keeps a CPU busy in burnCPU, a
// function a CPU profile taken meanwhile shows as hot (the flame graph
// view's browser test looks for it).
func newBurn() (mcp.Tool, error) {
	return mcp.NewTool(mcp.ToolInfo{
		Name: "burn", Title: "Burn CPU", Description: "Keeps one CPU busy for ms milliseconds in the function burnCPU, so that a CPU profile taken meanwhile has a known hot function.",
		Permission: "demo.echo", Annotations: readOnly,
		Guide: &mcp.Guide{Category: "Examples", WhenToUse: "Give runtime_profile something to find: call burn, and runtime_profile with kind cpu while it runs."},
	}, func(ctx context.Context, req *mcp.Request, in BurnArgs) (Burned, error) {
		if in.Ms < 1 || in.Ms > 5000 {
			return Burned{}, &mcp.ArgumentError{Tool: req.Name, Msg: fmt.Sprintf("ms must be 1..5000, got %d", in.Ms)}
		}
		return Burned{Rounds: burnCPU(ctx, time.Now().Add(time.Duration(in.Ms)*time.Millisecond))}, nil
	})
}

// burnCPU computes until deadline or the end of ctx and returns how many
// rounds it did.
func burnCPU(ctx context.Context, deadline time.Time) int {
	rounds := 0
	x := uint64(1)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		for range 100_000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		rounds++
	}
	if x == 0 { // never: keeps the loop from being optimised away
		rounds--
	}
	return rounds
}
