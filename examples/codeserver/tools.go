package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/embedmcp/mcp"
)

// EchoArgs are the arguments and the result of echo.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"the text to send back unchanged"`
}

// AddArgs are the arguments of add.
type AddArgs struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

// Sum is the result of add.
type Sum struct {
	Sum float64 `json:"sum" jsonschema:"a + b"`
}

// CountArgs are the arguments of count.
type CountArgs struct {
	To      int `json:"to" jsonschema:"count from 1 to this number (1..20)"`
	DelayMs int `json:"delayMs,omitempty" jsonschema:"pause between steps in milliseconds (0..1000)"`
}

// Counted is the result of count.
type Counted struct {
	Counted int `json:"counted"`
}

var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}

// registerExamples adds the example tools.
func registerExamples(ts *mcp.ToolSet) error {
	echo, err := mcp.NewTool(mcp.ToolInfo{
		Name: "echo", Title: "Echo", Description: "Returns the text it is given, unchanged.",
		Permission: "demo.echo", Annotations: readOnly,
		Guide: &mcp.Guide{Category: "Examples", WhenToUse: "Check that the connection works: send a text and get it back unchanged.",
			Examples: []mcp.Example{{Arguments: json.RawMessage(`{"text":"hello"}`), Outcome: `{"text":"hello"}`}}},
	}, func(_ context.Context, _ *mcp.Request, in EchoArgs) (EchoArgs, error) { return in, nil })
	if err != nil {
		return err
	}
	add, err := mcp.NewTool(mcp.ToolInfo{
		Name: "add", Title: "Add", Description: "Adds two numbers.",
		Permission: "demo.math", Annotations: readOnly,
		Guide: &mcp.Guide{Category: "Examples", WhenToUse: "Add two numbers exactly as float64 arithmetic does.",
			Examples: []mcp.Example{{Arguments: json.RawMessage(`{"a":2,"b":40}`), Outcome: `{"sum":42}`}}},
	}, func(_ context.Context, _ *mcp.Request, in AddArgs) (Sum, error) { return Sum{in.A + in.B}, nil })
	if err != nil {
		return err
	}
	count, err := mcp.NewTool(mcp.ToolInfo{
		Name: "count", Title: "Count with progress",
		Description: "Counts from 1 to `to`, reporting each step as progress and as a log message; shows streaming over SSE.",
		Permission:  "demo.echo", Annotations: readOnly,
		Guide: &mcp.Guide{Category: "Examples", WhenToUse: "See progress notifications and log messages stream while a call runs.",
			Details: "Send params._meta.progressToken and Accept: text/event-stream to receive notifications/progress."},
	}, func(ctx context.Context, req *mcp.Request, in CountArgs) (Counted, error) {
		if in.To < 1 || in.To > 20 || in.DelayMs < 0 || in.DelayMs > 1000 {
			return Counted{}, &mcp.ArgumentError{Tool: req.Name, Msg: fmt.Sprintf("to must be 1..20 and delayMs 0..1000, got to=%d delayMs=%d", in.To, in.DelayMs)}
		}
		for i := 1; i <= in.To; i++ {
			if err := req.Progress(float64(i), float64(in.To), fmt.Sprintf("step %d of %d", i, in.To)); err != nil {
				return Counted{}, err
			}
			_ = req.Log(mcp.LevelInfo, "count", map[string]int{"step": i})
			select {
			case <-ctx.Done():
				return Counted{}, ctx.Err()
			case <-time.After(time.Duration(in.DelayMs) * time.Millisecond):
			}
		}
		return Counted{Counted: in.To}, nil
	})
	if err != nil {
		return err
	}
	burn, err := newBurn()
	if err != nil {
		return err
	}
	return ts.Register(echo, add, count, burn)
}
