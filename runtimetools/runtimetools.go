package runtimetools

import (
	"context"
	"fmt"
	"hash/maphash"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/embedmcp/mcp/internal/boundedjson"

	"github.com/embedmcp/mcp"
)

// The tool names.
const (
	GoroutinesToolName = "runtime_goroutines"
	MetricsToolName    = "runtime_metrics"
	ProfileToolName    = "runtime_profile"
	LogsToolName       = "runtime_logs"
	BuildToolName      = "runtime_build"
	VarsToolName       = "runtime_vars"
	HealthToolName     = "runtime_health"
)

// The permissions the tools require.
const (
	// PermissionRead is the permission of runtime_goroutines,
	// runtime_metrics, runtime_build, runtime_vars and runtime_health.
	PermissionRead = "diagnostics.runtime.read"
	// PermissionProfile is the permission of runtime_profile.
	PermissionProfile = "diagnostics.runtime.profile"
	// PermissionLogs is the permission of runtime_logs.
	PermissionLogs = "diagnostics.logs.read"
)

// DefaultMaxProfileBytes is the default of Options.MaxProfileBytes.
const DefaultMaxProfileBytes = 8 << 20

// Options configure the tools. A nil *Options is the zero value, which
// registers runtime_goroutines, runtime_metrics, runtime_profile and
// runtime_build.
type Options struct {
	// Logs is the handler whose records runtime_logs reads. Nil leaves
	// runtime_logs out.
	Logs *LogRing
	// Health holds the checks runtime_health runs. Nil leaves
	// runtime_health out.
	Health *Health
	// Vars calls f for each variable runtime_vars may read, as expvar.Do
	// does. Nil leaves runtime_vars out. For the process's expvar
	// variables:
	//
	//	Vars: func(f func(string, fmt.Stringer)) {
	//		expvar.Do(func(kv expvar.KeyValue) { f(kv.Key, kv.Value) })
	//	},
	//
	// This package does not import expvar itself: importing expvar
	// registers /debug/vars, which shows the command line unredacted, on
	// http.DefaultServeMux.
	Vars func(f func(name string, value fmt.Stringer))
	// MaxProfileBytes bounds the raw profile runtime_profile embeds in its
	// answer; a larger profile is summarised but not embedded. Zero means
	// DefaultMaxProfileBytes; negative is an error.
	MaxProfileBytes int
	// Continuous is a background CPU profiler whose windows
	// runtime_profile answers for the past (window, compare). Nil: CPU
	// profiles are taken on request only. The host runs it
	// (Profiler.Run).
	Continuous *Profiler
	// Source reads the lines of the host's source snapshot, for the
	// excerpts of runtime_profile's hot lines. Nil: lines are named by
	// file:line only.
	Source SourceFunc
	// Logger receives the tools' own diagnostics, such as a failed profile.
	// Default: discard.
	Logger *slog.Logger
}

// Register adds the runtime tools to ts: runtime_goroutines,
// runtime_metrics, runtime_profile and runtime_build, plus runtime_logs
// when opts.Logs is set, runtime_health when opts.Health is set and
// runtime_vars when opts.Vars is set, with the views of the first three
// (Views). opts may be nil.
func Register(ts *mcp.ToolSet, opts *Options) error {
	tools, err := Tools(opts)
	if err != nil {
		return err
	}
	if err := registerViews(ts); err != nil {
		return err
	}
	return ts.Register(tools...)
}

// Tools returns the runtime tools, for registries other than a ToolSet.
// opts may be nil. Each call returns tools with their own state; register
// one set per process (the CPU profiler is one per process: a second set
// finds it busy).
func Tools(opts *Options) ([]mcp.Tool, error) { return tools(opts, nil) }

// tools is Tools, with setup (of tests) called on the tools' state.
func tools(opts *Options, setup func(*state)) ([]mcp.Tool, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case o.MaxProfileBytes < 0:
		return nil, fmt.Errorf("runtimetools: Options.MaxProfileBytes is %d; want 0 (the default) or more", o.MaxProfileBytes)
	case o.MaxProfileBytes == 0:
		o.MaxProfileBytes = DefaultMaxProfileBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &state{opts: o, cpu: &cpuSlot{}, snapshots: make(chan struct{}, 1)}
	if o.Continuous != nil {
		s.cpu = o.Continuous.slot
	}
	if setup != nil {
		setup(s)
	}
	builders := []func() (mcp.Tool, error){
		s.goroutinesTool, s.metricsTool, s.profileTool, s.buildTool,
	}
	if o.Vars != nil {
		builders = append(builders, s.varsTool)
	}
	if o.Logs != nil {
		builders = append(builders, s.logsTool)
	}
	if o.Health != nil {
		builders = append(builders, s.healthTool)
	}
	tools := make([]mcp.Tool, 0, len(builders))
	for _, b := range builders {
		t, err := b()
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// state is what the tools of one Tools call share.
type state struct {
	opts Options
	cpu  *cpuSlot // the Profiler's, when there is one
	// snapshots admits one goroutine snapshot (profile and dump) at a
	// time: each stops the world and takes tens of MB at 100 000
	// goroutines; concurrent calls wait their turn.
	snapshots chan struct{}
	// seed keys goroutine stacks alike from call to call, for growth.
	seed           maphash.Seed
	goroutineLooks *looks[map[uint64]int]
	metricLooks    *looks[map[string]float64]
	// Set by tests only (tools): the goroutine dump's bound (zero: the
	// default) and the build information runtime_build reads (nil:
	// debug.ReadBuildInfo).
	maxDump   dumpBound
	buildInfo func() (*debug.BuildInfo, bool)
}

// newTool is mcp.NewTool with the input schema given as JSON, the output
// schema in the guide (tool_detail shows it; tools/list does not carry
// it), and the answer's compact text (its Text, an mcp.Texter) as its text
// content: the tools
// write theirs by hand, with the valid values in each description, and
// check ranges themselves so that a bad argument gets a message that names
// the valid values and quotes only the start of the input.
func newTool[In, Out any](schema string, info mcp.ToolInfo, fn func(context.Context, *mcp.Request, In) (Out, error)) (mcp.Tool, error) {
	s, err := mcp.ParseSchema([]byte(schema))
	if err != nil {
		return nil, fmt.Errorf("runtimetools: %s: %w", info.Name, err)
	}
	info.InputSchema = s
	// The output schema is shown by tool_detail, not in every tools/list.
	out, err := mcp.SchemaFor[Out]()
	if err != nil {
		return nil, fmt.Errorf("runtimetools: %s: %w", info.Name, err)
	}
	if info.Guide == nil {
		info.Guide = &mcp.Guide{}
	}
	g := *info.Guide
	g.OutputSchema = out
	info.Guide = &g
	return mcp.NewTool(info, fn)
}

// readOnly returns the annotations of every runtime tool: they observe the
// process and change nothing. destructiveHint and idempotentHint mean
// something only when readOnlyHint is false (MCP's ToolAnnotations), so
// they are not sent.
func readOnly() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
}

// Frame is one function of a stack or a profile.
type Frame struct {
	// ID is the function's name as the runtime reports it; code_definition
	// accepts it.
	ID   string `json:"id" jsonschema:"the function as the runtime names it; pass it to code_definition"`
	File string `json:"file,omitempty" jsonschema:"source file"`
	Line int    `json:"line,omitempty" jsonschema:"line in file"`
}

// argError returns the error for a bad argument: an *mcp.ArgumentError,
// which the client sees as a correctable call.
func argError(req *mcp.Request, path, format string, args ...any) error {
	return &mcp.ArgumentError{Tool: req.Name, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// maxEcho is how much of an argument an error message quotes.
const maxEcho = 40

// echo quotes s for an error message, cut to maxEcho bytes with its length
// noted, so that no input is ever echoed whole.
func echo(s string) string {
	if len(s) <= maxEcho {
		return strconv.Quote(s)
	}
	return strconv.Quote(boundedjson.Truncate(s, maxEcho)) + fmt.Sprintf("… (%d bytes)", len(s))
}

// checkText rejects a filter string longer than max bytes.
func checkText(req *mcp.Request, path, s string, max int) error {
	if len(s) > max {
		return argError(req, path, "at most %d bytes, got %s", max, echo(s))
	}
	return nil
}

// checkRange rejects an integer argument outside lo..hi.
func checkRange(req *mcp.Request, path string, v, lo, hi int) error {
	if v < lo || v > hi {
		return argError(req, path, "must be %d..%d, got %d", lo, hi, v)
	}
	return nil
}

// containsFold reports whether s contains the lower-case ASCII substr,
// ignoring ASCII case, without allocating.
func containsFold(s, lowerSubstr string) bool {
	n := len(lowerSubstr)
	if n == 0 {
		return true
	}
	for i := 0; i+n <= len(s); i++ {
		if hasPrefixFold(s[i:], lowerSubstr) {
			return true
		}
	}
	return false
}

// lower returns s in lower case, for containsFold.
func lower(s string) string { return strings.ToLower(s) }

// ctxErr turns a context error into the error a tool returns.
func ctxErr(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return ctx.Err()
}
