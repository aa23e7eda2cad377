package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Tool is one MCP tool: a description (Info) and two methods the Server
// calls in order for every permitted tools/call, after the arguments
// passed the input schema.
//
// Implementations must be safe for concurrent use. Most tools are built with
// NewTool from a typed Go function or with NewRawTool; implement Tool
// directly for full control.
type Tool interface {
	// Info describes the tool. It must return the same, unchanging value on
	// every call: the Server compiles it (schemas, descriptor) once per
	// tool and reuses the result.
	Info() *ToolInfo
	// Validate checks the arguments beyond what the input schema says
	// (ranges that depend on each other, combinations). A non-nil error
	// rejects the call before Execute, as invalid arguments.
	Validate(ctx context.Context, req *Request) error
	// Execute runs the tool. An ordinary error becomes a result with isError
	// set and the error's text; an *Error (found with errors.As) becomes a
	// JSON-RPC error with its code. ctx is cancelled when the client goes away
	// or the call's deadline passes.
	Execute(ctx context.Context, req *Request) (*Result, error)
}

// ToolInfo describes a tool: what tools/list shows, the permission a caller
// needs, and the administrator's notes.
type ToolInfo struct {
	// Name is the tool's unique name, matching [A-Za-z0-9_.-]{1,128}.
	Name string
	// Title is an optional human-readable name.
	Title string
	// Description tells a model what the tool does.
	Description string
	// InputSchema is the JSON Schema (2020-12) of the arguments object; it
	// must be an object schema. NewTool infers it when nil; use SchemaFor to
	// start from the inferred schema and adjust it, or ParseSchema for a
	// hand-written document. A nil schema on a raw tool means "any object".
	InputSchema *jsonschema.Schema
	// OutputSchema is the optional JSON Schema of structuredContent.
	OutputSchema *jsonschema.Schema
	// Permission is the permission a caller needs, e.g.
	// "diagnostics.code.read". The Authorizer decides; "" asks it about the
	// empty permission, which GrantsAuthorizer treats as "no grant needed".
	Permission string
	// AdminSummary and AdminExample are notes for administrators (what the
	// tool is for, an example call); they are not sent to clients.
	AdminSummary string
	AdminExample string
	// Annotations are optional behaviour hints; nil hints are not emitted.
	Annotations *ToolAnnotations
	// Icons are optional icons for clients that show them.
	Icons []Icon
	// Meta is the tool's _meta object in tools/list. Its "ui" member is
	// View and Visibility's: set those instead.
	Meta map[string]any
	// View is the ui:// URI of the View that shows the tool's results to
	// clients that render MCP Apps (_meta.ui.resourceUri); a ToolSet
	// holds the view before the tool. Data only the view needs goes in
	// Result.Meta, which hosts hand to the view and not to the model.
	View string
	// Visibility says who calls the tool: the model, views, or both (the
	// zero value).
	Visibility Visibility
	// Guide is optional guidance for the enquiry tools (tool_detail,
	// tool_catalogue); it is not sent in tools/list.
	Guide *Guide
	// TaskSupport says whether the tool runs as a task (the Tasks
	// extension, under 2026-07-28): TaskNever (the default), TaskOptional
	// or TaskRequired. A task's tool runs on after the answer, until its
	// task's time to live, and sends no progress or log notifications.
	TaskSupport TaskSupport
}

// Guide is optional guidance about a tool that helps a model pick it and call
// it right. The enquiry tools search and show it.
type Guide struct {
	Category     string    // a grouping such as "Diagnostics" or "Refactoring"
	WhenToUse    string    // the situations the tool is for
	WhenNotToUse []string  // situations it is not for, each naming the better tool
	Details      string    // longer usage notes
	Examples     []Example // example calls with their outcome
	Workflows    []string  // named workflows the tool takes part in
	ErrorCodes   []string  // diagnostic or error codes this tool remediates
	// OutputSchema is the schema of the tool's structured content, shown
	// by tool_detail rather than sent in every tools/list, which it would
	// lengthen. NewTool checks every result against it and leaves
	// ToolInfo.OutputSchema unset; clients then do not validate the
	// structured content themselves.
	OutputSchema *jsonschema.Schema
}

// Example is an example call of a tool: its arguments and a one-line outcome.
type Example struct {
	Arguments json.RawMessage // a JSON object matching the input schema
	Outcome   string          // what the call answers, in a line
}

// rawTool is the Tool made by NewRawTool.
type rawTool struct {
	info *ToolInfo
	exec func(context.Context, *Request) (*Result, error)
}

// NewRawTool returns a Tool that runs exec with the request as it is; the
// Registry still checks the arguments against info.InputSchema first. It is
// the HandlerFunc of tools: for tools that want the raw arguments.
func NewRawTool(info ToolInfo, exec func(ctx context.Context, req *Request) (*Result, error)) Tool {
	return &rawTool{info: &info, exec: exec}
}

func (t *rawTool) Info() *ToolInfo                          { return t.info }
func (t *rawTool) Validate(context.Context, *Request) error { return nil }
func (t *rawTool) Execute(ctx context.Context, r *Request) (*Result, error) {
	if t.exec == nil {
		return nil, fmt.Errorf("mcp: tool %q has no function", t.info.Name)
	}
	return t.exec(ctx, r)
}
