package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/embedmcp/mcp"
)

// The fixtures of the suite's tasks-* scenarios (the Tasks extension,
// SEP-2663, under 2026-07-28): a tool that never runs as a task (greet),
// tools that may (slow_compute, protocol_error_job, confirm_delete,
// multi_input) and tools that must (failing_job, test_tool_with_task).

type (
	greetIn struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	computeIn struct {
		Seconds float64 `json:"seconds" jsonschema:"how long to compute, 0 to 60 seconds"`
		Label   string  `json:"label,omitempty" jsonschema:"a label echoed in the result"`
	}
	deleteIn struct {
		Filename string `json:"filename,omitempty" jsonschema:"the file to delete (nothing is deleted)"`
	}
	empty struct{}
)

func confirmSchema() map[string]any {
	return map[string]any{"type": "object",
		"properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}, "required": []string{"confirm"}}
}

func taskTools() ([]mcp.Tool, error) {
	var tools []mcp.Tool
	var errs []error
	add := func(t mcp.Tool, err error) {
		tools = append(tools, t)
		errs = append(errs, err)
	}
	greetSchema, err := mcp.SchemaFor[greetIn]()
	add(mcp.NewRawTool(mcp.ToolInfo{Name: "greet", Description: "Greets by name, at once (never a task).", InputSchema: greetSchema},
		func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
			args, err := req.ArgumentsMap()
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprintf("Hello, %v!", args["name"])), nil
		}), err)
	add(mcp.NewTool(mcp.ToolInfo{Name: "slow_compute", TaskSupport: mcp.TaskOptional,
		Description: "Computes for the given seconds; runs as a task for clients that support tasks."},
		func(ctx context.Context, _ *mcp.Request, in computeIn) (string, error) {
			if in.Seconds < 0 || in.Seconds > 60 {
				return "", fmt.Errorf("seconds must be between 0 and 60, got %v", in.Seconds)
			}
			if err := sleep(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
				return "", err
			}
			return fmt.Sprintf("computed %q in %vs", in.Label, in.Seconds), nil
		}))
	add(mcp.NewTool(mcp.ToolInfo{Name: "failing_job", TaskSupport: mcp.TaskRequired,
		Description: "Runs only as a task, and fails with a tool error (isError) after a moment."},
		func(ctx context.Context, _ *mcp.Request, _ empty) (string, error) {
			if err := sleep(ctx, 300*time.Millisecond); err != nil {
				return "", err
			}
			return "", errors.New("the job failed: its input was invalid")
		}))
	add(mcp.NewTool(mcp.ToolInfo{Name: "protocol_error_job", TaskSupport: mcp.TaskOptional,
		Description: "Fails with a JSON-RPC error (the task ends failed)."},
		func(context.Context, *mcp.Request, empty) (string, error) {
			return "", &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: the job's backend is unavailable"}
		}))
	add(mcp.NewTool(mcp.ToolInfo{Name: "confirm_delete", TaskSupport: mcp.TaskOptional,
		Description: "Asks the user to confirm (elicitation) before pretending to delete a file."},
		func(_ context.Context, req *mcp.Request, in deleteIn) (string, error) {
			raw, ok := req.InputResponse("confirm")
			if !ok {
				return "", &mcp.InputRequired{Requests: map[string]mcp.InputRequest{
					"confirm": mcp.Elicitation(fmt.Sprintf("Delete %q?", in.Filename), confirmSchema())}}
			}
			if elicited(raw)["confirm"] == true {
				return "deleted " + in.Filename, nil
			}
			return "kept " + in.Filename, nil
		}))
	add(mcp.NewTool(mcp.ToolInfo{Name: "multi_input", TaskSupport: mcp.TaskOptional,
		Description: "Asks for a name and a confirmation at once, then reports both."},
		func(_ context.Context, req *mcp.Request, _ empty) (string, error) {
			name, ok1 := req.InputResponse("name")
			confirm, ok2 := req.InputResponse("confirm")
			if !ok1 || !ok2 {
				return "", &mcp.InputRequired{Requests: map[string]mcp.InputRequest{
					"name": userName(), "confirm": mcp.Elicitation("Proceed?", confirmSchema())}}
			}
			return fmt.Sprintf("name %v, confirmed %v", elicited(name)["name"], elicited(confirm)["confirm"]), nil
		}))
	tools = append(tools, &nameThenTask{})
	return tools, errors.Join(errs...)
}

// nameThenTask asks for the user's name before its task starts (a multi
// round-trip request answered at once, from Validate), then greets them
// from the task.
type nameThenTask struct{}

var nameThenTaskInfo = mcp.ToolInfo{Name: "test_tool_with_task", TaskSupport: mcp.TaskRequired,
	Description: "Asks for your name (input required), then greets you from a task."}

func (*nameThenTask) Info() *mcp.ToolInfo { return &nameThenTaskInfo }

func (*nameThenTask) Validate(_ context.Context, req *mcp.Request) error {
	if _, ok := req.InputResponse("user_name"); !ok {
		return &mcp.InputRequired{Requests: map[string]mcp.InputRequest{"user_name": userName()}}
	}
	return nil
}

func (*nameThenTask) Execute(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
	raw, _ := req.InputResponse("user_name")
	return mcp.TextResult(fmt.Sprintf("Hello, %v, from task %s", elicited(raw)["name"], req.TaskID())), nil
}
