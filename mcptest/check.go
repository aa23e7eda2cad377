package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/google/jsonschema-go/jsonschema"
)

// Violation is one broken contract found by CheckTool, CheckRegistry or
// CheckAuthorizer. The checkers return every violation they find, joined
// with errors.Join; errors.As finds the first.
type Violation struct {
	Tool   string // the tool concerned, "" when none
	Rule   string // the contract, e.g. "name" or "cancel" (see the checkers)
	Detail string // what was found
}

// Error implements error.
func (v *Violation) Error() string {
	if v.Tool == "" {
		return v.Rule + ": " + v.Detail
	}
	return fmt.Sprintf("tool %q: %s: %s", v.Tool, v.Rule, v.Detail)
}

// CheckOptions configure CheckTool. The zero value is usable.
type CheckOptions struct {
	// AllowNoPermission accepts tools with an empty Permission, which
	// every caller of a GrantsAuthorizer may use.
	AllowNoPermission bool
	// AllowAnyArguments accepts a nil InputSchema (any object).
	AllowAnyArguments bool
	// SkipExecute leaves out the checks that run the tool (examples,
	// cancellation), for tools with effects no test should cause.
	SkipExecute bool
	// Timeout bounds each run of the tool. Default 2s.
	Timeout time.Duration
	// Caller is the caller of the runs. Default principal "mcptest" with
	// grant "*".
	Caller *mcp.Caller
}

// CheckTool checks the contracts the library relies on and reports every
// violation, like testing/fstest.TestFS. The rules are:
//
//   - info: Info does not panic, is not nil and returns the same value on
//     every call.
//   - name: the name is valid (mcp.ValidToolName).
//   - description: the description is not empty.
//   - permission: the permission is not empty (unless AllowNoPermission).
//   - input-schema: the input schema is set (unless AllowAnyArguments), is
//     an object schema and compiles; output-schema: the output schema, if
//     any, is an object schema and compiles.
//   - rejects-invalid: argument objects made from the schema to break it
//     (a wrong type for each property, each required property missing, an
//     unexpected property when none are allowed, a non-object) are
//     rejected as invalid arguments, through a Server, and never reach
//     Execute.
//   - example: the example arguments (Guide.Examples, and AdminExample
//     when it is a JSON object) match the input schema, and calling the
//     tool with them neither panics, nor fails validation, nor breaks the
//     output schema, nor returns an unencodable result, nor hangs.
//   - cancel, deadline: called with an already cancelled context, and with
//     a context whose deadline passes quickly, the tool returns (anything)
//     within Timeout and does not panic. A quick tool may finish its work
//     rather than check the context; what breaks servers is a tool that
//     hangs.
//
// A tool that hangs leaves its goroutine behind. CheckTool runs the tool
// (unless SkipExecute): use it on tools wired to test fixtures.
func CheckTool(tool mcp.Tool, opts *CheckOptions) error {
	var o CheckOptions
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Second
	}
	caller := Caller("mcptest", "*")
	if o.Caller != nil {
		caller = *o.Caller
	}
	c := &toolCheck{opts: o, caller: caller}
	c.run(tool)
	return errors.Join(c.errs...)
}

type toolCheck struct {
	opts   CheckOptions
	caller mcp.Caller
	name   string
	errs   []error
}

func (c *toolCheck) fail(rule, format string, args ...any) {
	c.errs = append(c.errs, &Violation{Tool: c.name, Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

// info calls tool.Info, turning a panic into an error.
func info(tool mcp.Tool) (i *mcp.ToolInfo, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the tool's Info panicked: %v", r)
		}
	}()
	return tool.Info(), nil
}

func (c *toolCheck) run(tool mcp.Tool) {
	if tool == nil {
		c.fail("info", "the tool is nil")
		return
	}
	i1, err := info(tool)
	if err != nil {
		c.fail("info", "%v", err)
		return
	}
	if i1 == nil {
		c.fail("info", "Info returned nil")
		return
	}
	c.name = i1.Name
	if i2, err := info(tool); err != nil || i2 == nil || (i1 != i2 && !reflect.DeepEqual(*i1, *i2)) {
		c.fail("info", "Info returned a different value on its second call; it must return the same, unchanging value")
	}
	if !mcp.ValidToolName(i1.Name) {
		c.fail("name", "%q does not match [A-Za-z0-9_.-]{1,128}", i1.Name)
	}
	if strings.TrimSpace(i1.Description) == "" {
		c.fail("description", "empty: a model cannot tell what the tool does")
	}
	if i1.Permission == "" && !c.opts.AllowNoPermission {
		c.fail("permission", "empty: every caller may use the tool (set CheckOptions.AllowNoPermission if that is intended)")
	}
	in := c.schema("input-schema", i1.InputSchema)
	if i1.InputSchema == nil && !c.opts.AllowAnyArguments {
		c.fail("input-schema", "none: the tool accepts any object and a model cannot tell which arguments it takes (set CheckOptions.AllowAnyArguments if that is intended)")
	}
	outSchema := i1.OutputSchema
	if outSchema == nil && i1.Guide != nil {
		outSchema = i1.Guide.OutputSchema // shown by tool_detail, not in tools/list
	}
	out := c.schema("output-schema", outSchema)
	if (i1.InputSchema != nil && in == nil) || (outSchema != nil && out == nil) || !mcp.ValidToolName(i1.Name) {
		return // the tool cannot be registered; nothing more to run
	}
	spy := &spyTool{Tool: tool}
	ts := scratchSet(i1)
	if err := ts.Register(spy); err != nil {
		c.fail("register", "a ToolSet refused the tool: %v", err)
		return
	}
	srv := mcp.NewServer(ts, mcp.AllowAll(), nil)
	c.rejectsInvalid(srv, spy, i1, in)
	valid := c.examples(srv, i1, in)
	if c.opts.SkipExecute {
		return
	}
	if valid == nil {
		if base, ok := synthesize(i1.InputSchema, 0); ok && (in == nil || in.Validate(base) == nil) {
			valid, _ = json.Marshal(base)
		}
	}
	if valid != nil {
		c.cancellation(srv, i1.Name, valid)
	}
}

// schema checks one schema and returns it resolved, or nil.
func (c *toolCheck) schema(rule string, s *jsonschema.Schema) *jsonschema.Resolved {
	if s == nil {
		return nil
	}
	if s.Type != "object" && !(len(s.Types) == 1 && s.Types[0] == "object") {
		c.fail(rule, "must have type \"object\"")
		return nil
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		c.fail(rule, "does not compile: %v", err)
		return nil
	}
	return rs
}

// spyTool counts the runs of Execute.
type spyTool struct {
	mcp.Tool
	executed atomic.Int64
}

func (s *spyTool) Execute(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
	s.executed.Add(1)
	return s.Tool.Execute(ctx, req)
}

func (c *toolCheck) rejectsInvalid(srv *mcp.Server, spy *spyTool, info *mcp.ToolInfo, rs *jsonschema.Resolved) {
	ctx := context.Background()
	for _, bad := range invalidArguments(info.InputSchema, rs) {
		before := spy.executed.Load()
		res, err := c.callBounded(ctx, srv, info.Name, bad.args, c.opts.Timeout)
		switch {
		case errors.Is(err, errHung):
			c.fail("rejects-invalid", "%s %s: the call did not return within %v", bad.desc, bad.args, c.opts.Timeout)
		case spy.executed.Load() != before:
			c.fail("rejects-invalid", "%s %s reached Execute", bad.desc, bad.args)
		case err == nil:
			c.fail("rejects-invalid", "%s %s was accepted (result %s)", bad.desc, bad.args, resultSummary(res))
		case !errors.Is(err, mcp.ErrInvalidArguments):
			c.fail("rejects-invalid", "%s %s failed, but not as invalid arguments: %v", bad.desc, bad.args, err)
		}
	}
}

var errHung = errors.New("mcptest: the call did not return")

// callBounded calls the tool through srv and waits at most bound.
func (c *toolCheck) callBounded(ctx context.Context, srv *mcp.Server, name string, args json.RawMessage, bound time.Duration) (*mcp.Result, error) {
	type outcome struct {
		res *mcp.Result
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		res, err := srv.CallTool(ctx, mcp.NewRequest(c.caller, name, args))
		ch <- outcome{res, err}
	}()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case o := <-ch:
		return o.res, o.err
	case <-timer.C:
		return nil, errHung
	}
}

func resultSummary(r *mcp.Result) string {
	if r == nil {
		return "nil"
	}
	s := shortText([]byte(ResultText(r)))
	if r.IsError {
		return "isError: " + s
	}
	return s
}

// examples checks the example arguments and returns the first that match
// the schema, or nil.
func (c *toolCheck) examples(srv *mcp.Server, info *mcp.ToolInfo, rs *jsonschema.Resolved) json.RawMessage {
	type example struct {
		where string
		args  json.RawMessage
	}
	var exs []example
	if info.Guide != nil {
		for i, ex := range info.Guide.Examples {
			exs = append(exs, example{fmt.Sprintf("Guide.Examples[%d]", i), ex.Arguments})
		}
	}
	if a := strings.TrimSpace(info.AdminExample); strings.HasPrefix(a, "{") {
		exs = append(exs, example{"AdminExample", json.RawMessage(a)})
	}
	var first json.RawMessage
	for _, ex := range exs {
		var v any
		if err := json.Unmarshal(ex.args, &v); err != nil {
			c.fail("example", "%s is not JSON: %v", ex.where, err)
			continue
		}
		if _, ok := v.(map[string]any); !ok {
			c.fail("example", "%s is not a JSON object", ex.where)
			continue
		}
		if rs != nil {
			if err := rs.Validate(v); err != nil {
				c.fail("example", "%s %s does not match the input schema: %v", ex.where, compactText(ex.args), err)
				continue
			}
		}
		if first == nil {
			first = ex.args
		}
		if c.opts.SkipExecute {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout)
		res, err := c.callBounded(ctx, srv, info.Name, ex.args, c.opts.Timeout+c.opts.Timeout/2)
		cancel()
		var rpc *mcp.Error
		switch {
		case errors.Is(err, errHung):
			c.fail("example", "%s: the call did not return within %v", ex.where, c.opts.Timeout)
		case errors.Is(err, mcp.ErrToolPanic):
			c.fail("example", "%s: the tool panicked", ex.where)
		case errors.Is(err, mcp.ErrInvalidOutput):
			c.fail("example", "%s: %v", ex.where, err)
		case errors.Is(err, mcp.ErrInvalidArguments):
			c.fail("example", "%s was rejected: %v", ex.where, err)
		case errors.As(err, &rpc):
			// The tool chose a JSON-RPC error: acceptable.
		case err != nil:
			c.fail("example", "%s: %v", ex.where, err)
		default:
			if e := encodable(res); e != nil {
				c.fail("example", "%s: the result cannot be encoded: %v", ex.where, e)
			}
		}
	}
	return first
}

// encodable reports whether the result can be sent.
func encodable(r *mcp.Result) error {
	for i, ct := range r.Content {
		if _, err := ct.MarshalJSON(); err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
	}
	if r.StructuredContent != nil {
		b, err := json.Marshal(r.StructuredContent)
		if err != nil {
			return fmt.Errorf("structuredContent: %w", err)
		}
		if len(b) == 0 || b[0] != '{' {
			return fmt.Errorf("structuredContent is not a JSON object: %s", shortText(b))
		}
	}
	return nil
}

func (c *toolCheck) cancellation(srv *mcp.Server, name string, args json.RawMessage) {
	base := context.Background()
	ctx, cancel := context.WithCancel(base)
	cancel()
	_, err := c.callBounded(ctx, srv, name, args, c.opts.Timeout)
	switch {
	case errors.Is(err, errHung):
		c.fail("cancel", "called with a cancelled context and %s, the tool did not return within %v", compactText(args), c.opts.Timeout)
	case errors.Is(err, mcp.ErrToolPanic):
		c.fail("cancel", "called with a cancelled context and %s, the tool panicked", compactText(args))
	}
	const short = 20 * time.Millisecond
	ctx, cancel = context.WithTimeout(base, short)
	defer cancel()
	_, err = c.callBounded(ctx, srv, name, args, short+c.opts.Timeout)
	switch {
	case errors.Is(err, errHung):
		c.fail("deadline", "called with a %v deadline and %s, the tool did not return within %v of it", short, compactText(args), c.opts.Timeout)
	case errors.Is(err, mcp.ErrToolPanic):
		c.fail("deadline", "called with a %v deadline and %s, the tool panicked", short, compactText(args))
	}
}

func compactText(raw []byte) string { return shortText(encodeCompact(raw)) }

// scratchSet returns an empty ToolSet to check a tool in, holding a
// stand-in for the view the tool names (ToolInfo.View), if any: the
// checks are the tool's, not its view's.
func scratchSet(info *mcp.ToolInfo) *mcp.ToolSet {
	ts := mcp.NewToolSet()
	if info.View != "" {
		_ = ts.RegisterViews(mcp.View{URI: info.View, Name: "stand-in", HTML: "<!DOCTYPE html><title>stand-in</title>"})
	}
	return ts
}
