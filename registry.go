package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// A Registry holds tools: it looks them up, lists those a caller may use and
// calls one. ToolSet is the default implementation; wrap or replace it to
// add tools from elsewhere.
type Registry interface {
	// Lookup returns the tool registered under name, whoever asks.
	Lookup(name string) (Tool, bool)
	// List returns the tools caller may use according to az, sorted by name.
	List(ctx context.Context, az Authorizer, caller Caller) []Tool
	// Call authorizes, validates and executes one call. A tool caller may
	// not use is reported exactly like an unknown tool (ErrUnknownTool).
	// Invalid arguments are an *ArgumentError; an ordinary error from the
	// tool is returned as a Result with IsError set; an *Error from the tool
	// and a panic (ErrToolPanic) are returned as errors.
	Call(ctx context.Context, az Authorizer, req *Request) (*Result, error)
}

// ToolSet is the default Registry: a concurrency-safe set of tools that can
// change at run time. Reads (List, Lookup, Call) take no lock; Register and
// Remove copy the set and swap it in atomically.
type ToolSet struct {
	logger *slog.Logger

	mu       sync.Mutex // serialises writers
	cur      atomic.Pointer[toolSnapshot]
	watchers map[uint64]func()
	nextW    uint64
}

// toolSnapshot is an immutable view of the set.
type toolSnapshot struct {
	gen    uint64
	byName map[string]*entry
	sorted []*entry
}

// entry is a registered tool with what was computed once at registration.
type entry struct {
	tool Tool
	info *ToolInfo
	in   *compiledSchema // nil: any object
	out  *compiledSchema
	desc []byte // the tools/list descriptor
}

// ToolSetOptions configure a ToolSet.
type ToolSetOptions struct {
	// Logger receives denied calls (warn) and tool panics (error, with the
	// stack). Nil discards.
	Logger *slog.Logger
}

// NewToolSet returns an empty ToolSet. opts may be nil.
func NewToolSet(opts *ToolSetOptions) *ToolSet {
	ts := &ToolSet{logger: discardLogger}
	if opts != nil && opts.Logger != nil {
		ts.logger = opts.Logger
	}
	ts.cur.Store(&toolSnapshot{byName: map[string]*entry{}})
	return ts
}

// ValidToolName reports whether name matches [A-Za-z0-9_.-]{1,128}.
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// prepare checks a tool and computes its schemas and descriptor.
func prepare(t Tool) (e *entry, err error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil tool", ErrInvalidToolName)
	}
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("%w: reading the tool's Info panicked: %v", ErrInvalidSchema, r)
		}
	}()
	info := t.Info()
	if info == nil {
		return nil, fmt.Errorf("%w: tool has no Info", ErrInvalidToolName)
	}
	if !ValidToolName(info.Name) {
		return nil, fmt.Errorf("%w: %q must match [A-Za-z0-9_.-]{1,128}", ErrInvalidToolName, info.Name)
	}
	e = &entry{tool: t, info: info}
	if e.in, err = compileSchema(info.Name, "input", info.InputSchema); err != nil {
		return nil, err
	}
	if e.out, err = compileSchema(info.Name, "output", info.OutputSchema); err != nil {
		return nil, err
	}
	if info.InputSchema != nil {
		// Clients exclude tools whose x-mcp-header annotations are invalid
		// (2026-07-28); refuse them here instead.
		if _, err := headerParams(info.InputSchema); err != nil {
			return nil, fmt.Errorf("%w: tool %q: %v", ErrInvalidSchema, info.Name, err)
		}
	}
	if e.desc, err = encodeDescriptor(e); err != nil {
		return nil, fmt.Errorf("%w: tool %q: %v", ErrInvalidSchema, info.Name, err)
	}
	return e, nil
}

// Register adds tools. It adds all of them or, on the first invalid or
// duplicate one, none, and returns an error that matches ErrInvalidToolName,
// ErrInvalidSchema or ErrDuplicateTool.
func (ts *ToolSet) Register(tools ...Tool) error {
	entries := make([]*entry, 0, len(tools))
	for _, t := range tools {
		e, err := prepare(t)
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	old := ts.cur.Load()
	next := make(map[string]*entry, len(old.byName)+len(entries))
	for k, v := range old.byName {
		next[k] = v
	}
	for _, e := range entries {
		if _, dup := next[e.info.Name]; dup {
			return fmt.Errorf("%w: %q is already registered", ErrDuplicateTool, e.info.Name)
		}
		next[e.info.Name] = e
	}
	ts.swap(old, next)
	return nil
}

// Remove removes the named tools and reports how many were registered.
func (ts *ToolSet) Remove(names ...string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	old := ts.cur.Load()
	next := make(map[string]*entry, len(old.byName))
	for k, v := range old.byName {
		next[k] = v
	}
	n := 0
	for _, name := range names {
		if _, ok := next[name]; ok {
			delete(next, name)
			n++
		}
	}
	if n > 0 {
		ts.swap(old, next)
	}
	return n
}

// swap installs a new snapshot and tells the watchers; ts.mu is held.
func (ts *ToolSet) swap(old *toolSnapshot, byName map[string]*entry) {
	sorted := make([]*entry, 0, len(byName))
	for _, e := range byName {
		sorted = append(sorted, e)
	}
	slices.SortFunc(sorted, func(a, b *entry) int { return strings.Compare(a.info.Name, b.info.Name) })
	ts.cur.Store(&toolSnapshot{gen: old.gen + 1, byName: byName, sorted: sorted})
	for _, w := range ts.watchers {
		go w()
	}
}

// Generation returns a number that changes whenever the set changes, so
// that indexes built over the set (enquiry tools, catalogs) know when to
// rebuild.
func (ts *ToolSet) Generation() uint64 { return ts.cur.Load().gen }

// Watch calls fn, in its own goroutine, after every change of the set, until
// the returned stop function is called. It is how subscriptions/listen learns
// of tools/list changes in this process.
func (ts *ToolSet) Watch(fn func()) (stop func()) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.watchers == nil {
		ts.watchers = map[uint64]func(){}
	}
	id := ts.nextW
	ts.nextW++
	ts.watchers[id] = fn
	return func() {
		ts.mu.Lock()
		delete(ts.watchers, id)
		ts.mu.Unlock()
	}
}

// Lookup implements Registry.
func (ts *ToolSet) Lookup(name string) (Tool, bool) {
	e, ok := ts.cur.Load().byName[name]
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// Tools returns every registered tool sorted by name, whoever asks. It is
// for administration and indexing, not for answering callers.
func (ts *ToolSet) Tools() []Tool {
	s := ts.cur.Load()
	out := make([]Tool, len(s.sorted))
	for i, e := range s.sorted {
		out[i] = e.tool
	}
	return out
}

// List implements Registry.
func (ts *ToolSet) List(ctx context.Context, az Authorizer, caller Caller) []Tool {
	var out []Tool
	for _, e := range ts.permitted(ctx, az, caller) {
		out = append(out, e.tool)
	}
	return out
}

func (ts *ToolSet) permitted(ctx context.Context, az Authorizer, caller Caller) []*entry {
	s := ts.cur.Load()
	out := make([]*entry, 0, len(s.sorted))
	for _, e := range s.sorted {
		if allowed(ctx, az, caller, e.info.Permission) {
			out = append(out, e)
		}
	}
	return out
}

// Call implements Registry.
func (ts *ToolSet) Call(ctx context.Context, az Authorizer, req *Request) (*Result, error) {
	e, ok := ts.cur.Load().byName[req.Name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTool, req.Name)
	}
	if !allowed(ctx, az, req.Caller, e.info.Permission) {
		ts.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: tool call denied",
			slog.String("tool", req.Name), slog.String("principal", req.Caller.Principal),
			slog.String("permission", e.info.Permission))
		return nil, fmt.Errorf("%w: %s", ErrUnknownTool, req.Name)
	}
	return ts.run(ctx, e, req)
}

// run validates and executes a permitted call.
func (ts *ToolSet) run(ctx context.Context, e *entry, req *Request) (res *Result, err error) {
	if _, err := req.ArgumentsMap(); err != nil {
		var ae *ArgumentError
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, &ArgumentError{Tool: req.Name, Msg: "not valid JSON: " + err.Error()}
	}
	if e.in != nil {
		if err := e.in.validate(req.Name, req.args); err != nil {
			return nil, err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			ts.logger.LogAttrs(ctx, slog.LevelError, "mcp: tool panicked",
				slog.String("tool", req.Name), slog.String("principal", req.Caller.Principal),
				slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			res, err = nil, fmt.Errorf("%w: %s", ErrToolPanic, req.Name)
		}
	}()
	if err := e.tool.Validate(ctx, req); err != nil {
		var rpc *Error
		var ae *ArgumentError
		switch {
		case errors.As(err, &rpc), errors.As(err, &ae):
			return nil, err
		}
		return nil, &ArgumentError{Tool: req.Name, Msg: err.Error()}
	}
	res, err = e.tool.Execute(ctx, req)
	if err != nil {
		var rpc *Error
		var need *InputRequired
		if errors.As(err, &rpc) || errors.As(err, &need) || errors.Is(err, ErrInvalidOutput) || errors.Is(err, ErrInvalidArguments) {
			return nil, err
		}
		return ErrorResult(err.Error()), nil
	}
	if res == nil {
		res = &Result{}
	}
	if _, checked := e.tool.(outputChecker); !checked {
		if res.StructuredContent != nil {
			return checkOutput(e, req.Name, res)
		}
		if e.out != nil && !res.IsError {
			// A tool with an output schema must return structured results.
			return nil, fmt.Errorf("%w: tool %q declares an output schema but returned no structuredContent", ErrInvalidOutput, req.Name)
		}
	}
	return res, nil
}

// outputChecker is implemented by tools that validate their own
// structuredContent (typed tools).
type outputChecker interface{ checksOutput() }

// checkOutput checks a tool's structuredContent: a JSON object that matches
// the output schema, if there is one. It returns a copy of res holding the
// encoded structuredContent, or an error matching ErrInvalidOutput.
func checkOutput(e *entry, name string, res *Result) (*Result, error) {
	raw, err := rawJSON(res.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: encoding structuredContent: %v", ErrInvalidOutput, name, err)
	}
	g, err := parseJSON(raw, outputLimits)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: structuredContent is not JSON: %v", ErrInvalidOutput, name, err)
	}
	if _, ok := g.(map[string]any); !ok {
		return nil, fmt.Errorf("%w: tool %q: structuredContent must be an object, is %s", ErrInvalidOutput, name, jsonTypeName(g))
	}
	if e.out != nil {
		if err := e.out.check(g); err != nil {
			path, msg := explainValidation(err.Error())
			return nil, fmt.Errorf("%w: tool %q: %s: %s", ErrInvalidOutput, name, path, msg)
		}
	}
	cp := *res
	cp.StructuredContent = json.RawMessage(raw)
	return &cp, nil
}
