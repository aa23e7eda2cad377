package runtimetools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/internal/viewdata"
	"github.com/google/pprof/profile"
)

const profileDescription = "Profile this process: its top functions, one line each, flat and cum with percentages, " +
	"id for code_definition, file:line, and the hottest lines of the first ones. Runtime, sync and standard library " +
	"time counts to the host code that called it. kind: cpu, heap, allocs, mutex and block " +
	"(the lock holder, at its unlock), goroutine. window: a past CPU window of the background profiler; raw: true " +
	"attaches the pprof bytes."

const profileSchema = `{"type":"object","properties":{` +
	`"kind":{"type":"string","description":"cpu, heap, allocs, mutex, block or goroutine."},` +
	`"seconds":{"type":"integer","description":"cpu: 1..30, default 5. heap, allocs, mutex, block: 1..30 for only that window; absent: since start."},` +
	`"top":{"type":"integer","description":"Functions, 1..50; default 10."},` +
	`"sample":{"type":"string","description":"Value to rank by: cpu or samples; inuse_space, inuse_objects, alloc_space or alloc_objects; delay or contentions."},` +
	`"sortBy":{"type":"string","description":"flat (default) or cum."},` +
	`"frames":{"type":"string","description":"host (default): library frames count to their host caller; all: every function."},` +
	`"lines":{"type":"integer","description":"Top functions with their hottest lines, 0..10; default 3."},` +
	`"window":{"type":"string","description":"cpu from the background profiler: last, a duration (10m) or a time (14:05)."},` +
	`"compare":{"type":"string","description":"cpu with window: a second window to compare against."},` +
	`"raw":{"type":"boolean","description":"Attach the pprof bytes."}},` +
	`"required":["kind"],"additionalProperties":false}`

// profileMIME is the MIME type of the embedded raw profile.
const profileMIME = "application/vnd.google.protobuf"

// Limits of runtime_profile.
const (
	defaultCPUSeconds = 5
	maxProfileSeconds = 30
	defaultTop        = 10
	maxTop            = 50
)

// profileKinds lists the kinds with their sample types, the default first.
var profileKinds = []struct {
	kind    string
	samples []string
}{
	{"cpu", []string{"cpu", "samples"}},
	{"heap", []string{"inuse_space", "inuse_objects", "alloc_space", "alloc_objects"}},
	{"allocs", []string{"alloc_space", "alloc_objects", "inuse_space", "inuse_objects"}},
	{"mutex", []string{"delay", "contentions"}},
	{"block", []string{"delay", "contentions"}},
	{"goroutine", []string{"goroutine"}},
}

func kindSamples(kind string) ([]string, bool) {
	for _, k := range profileKinds {
		if k.kind == kind {
			return k.samples, true
		}
	}
	return nil, false
}

type profileArgs struct {
	Kind    string `json:"kind"`
	Seconds *int   `json:"seconds,omitempty"`
	Top     int    `json:"top,omitempty"`
	Sample  string `json:"sample,omitempty"`
	SortBy  string `json:"sortBy,omitempty"`
	Frames  string `json:"frames,omitempty"`
	Lines   *int   `json:"lines,omitempty"`
	Window  string `json:"window,omitempty"`
	Compare string `json:"compare,omitempty"`
	Raw     bool   `json:"raw,omitempty"`

	// seconds is Seconds validated, with cpu's default; lines is Lines
	// with its default.
	seconds int
	lines   int
}

type profileResult struct {
	Kind      string        `json:"kind" jsonschema:"the profile taken"`
	Seconds   int           `json:"seconds,omitempty" jsonschema:"the window sampled (cpu) or compared (delta profiles)"`
	Sample    string        `json:"sample" jsonschema:"the value ranked"`
	Unit      string        `json:"unit" jsonschema:"unit of flat, cum and total"`
	Frames    string        `json:"frames" jsonschema:"host: flat counted to the first host frame; all: to the innermost frame"`
	SortBy    string        `json:"sortBy" jsonschema:"flat or cum: the order of top"`
	Total     int64         `json:"total" jsonschema:"sum of the value over all samples"`
	Functions int           `json:"functions" jsonschema:"functions with a value"`
	Top       []topFunction `json:"top" jsonschema:"largest first"`
	// From and To bound a window answered from the background
	// profiler's history; Windows counts the windows merged.
	From    string       `json:"from,omitempty" jsonschema:"start of the history window answered, RFC 3339"`
	To      string       `json:"to,omitempty" jsonschema:"end of the history window answered, RFC 3339"`
	Windows int          `json:"windows,omitempty" jsonschema:"background windows merged"`
	Changes []cpuChange  `json:"changes,omitempty" jsonschema:"with compare: the functions whose share of CPU changed most"`
	History *historyInfo `json:"history,omitempty" jsonschema:"what the background profiler holds"`
	Bytes   int          `json:"bytes" jsonschema:"size of the raw (gzip-compressed) profile"`
	// Embedded is set when the raw profile is attached (raw: true).
	Embedded bool   `json:"embedded" jsonschema:"whether the raw profile is attached as an embedded resource"`
	URI      string `json:"uri,omitempty" jsonschema:"URI of the embedded resource"`
	Note     string `json:"note,omitempty" jsonschema:"why the profile is empty or not embedded"`
}

// profileOutput is a profile's answer and its raw bytes.
type profileOutput struct {
	result profileResult
	raw    []byte
	uri    string
	flame  *flameGraph // the view's data (views.go)
}

// progressFunc reports progress: done of total, with a message.
type progressFunc func(done, total float64, message string)

// ErrBusy is the error of a CPU profile requested while another runs.
var ErrBusy = errors.New("runtimetools: busy")

func (s *state) profileTool() (mcp.Tool, error) {
	return newTool(profileSchema, mcp.ToolInfo{
		Name:        ProfileToolName,
		Title:       "Profile this process",
		Description: profileDescription,
		Permission:  PermissionProfile,
		Annotations: readOnly(),
		View:        ProfileViewURI,
		// A CPU profile samples for seconds: for clients that support the
		// Tasks extension it runs as a task, which outlives the request.
		TaskSupport:  mcp.TaskOptional,
		AdminSummary: "Lets an agent take CPU, memory, contention and goroutine profiles of this process; a CPU profile costs a few percent of CPU while it runs.",
		AdminExample: `{"kind":"heap","top":15}`,
		Guide: &mcp.Guide{
			Category:  "Diagnostics",
			WhenToUse: "Find where CPU time goes (cpu), which code holds or allocates memory (heap, allocs), where goroutines wait on locks (mutex, block), and pass the hot functions to code_definition.",
			WhenNotToUse: []string{
				"Which goroutines are stuck and in what state - use runtime_goroutines.",
				"Heap size or GC figures over time - use runtime_metrics.",
			},
			Details: "Only one CPU profile runs at a time; a second call is told when the running one ends. Progress notifications report the seconds sampled; " +
				"cancelling the request stops the profile, and a window longer than the call may last is refused with the longest that fits. " +
				"Functions outside Go (cgo, the race detector) are marked native. The heap profile is as of the last completed GC. mutex and block profiles are empty unless the host " +
				"enabled them (runtime.SetMutexProfileFraction, runtime.SetBlockProfileRate). With raw: true, save the embedded resource's bytes to a file and run " +
				"go tool pprof -top FILE (or -http) for the whole profile. With a background profiler (Options.Continuous), window answers a past CPU window without sampling, " +
				"and a call's own CPU profile ends the running background window early. For clients that support the Tasks extension the call runs as a task: it answers at once with the task, " +
				"tasks/get returns the profile when it is taken (no progress notifications then), and tasks/cancel stops it.",
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{"kind":"cpu","seconds":1,"top":5}`), Outcome: "the five functions with the most CPU time over one second, the hottest lines of the first three."},
				{Arguments: json.RawMessage(`{"kind":"cpu","window":"10m","compare":"2h"}`), Outcome: "the last ten minutes of background CPU profiles, and what changed against the last two hours."},
				{Arguments: json.RawMessage(`{"kind":"mutex"}`), Outcome: "the code that held contended locks, at the line that unlocked them, with the delay it caused."},
				{Arguments: json.RawMessage(`{"kind":"allocs","seconds":1,"sample":"alloc_space"}`), Outcome: "the functions that allocated the most bytes during one second."},
			},
			Workflows: []string{"CPU hot spot: runtime_profile kind cpu, then code_definition on the top ids"},
		},
	}, func(ctx context.Context, req *mcp.Request, in profileArgs) (profileResult, error) {
		if err := validateProfile(req, &in); err != nil {
			return profileResult{}, err
		}
		if err := fitsDeadline(ctx, req, in.seconds); err != nil {
			return profileResult{}, err
		}
		progress := func(done, total float64, msg string) { _ = req.Progress(done, total, msg) }
		out, err := s.profile(ctx, in, progress)
		if err != nil {
			return profileResult{}, err
		}
		if out.result.Embedded {
			req.AddResultContent(mcp.EmbeddedResourceContent(mcp.ResourceContents{URI: out.uri, MIMEType: profileMIME, Blob: out.raw}))
		}
		req.SetResultMeta(viewdata.MetaKey, out.flame)
		return out.result, nil
	})
}

func validateProfile(req *mcp.Request, in *profileArgs) error {
	kinds := make([]string, len(profileKinds))
	for i, k := range profileKinds {
		kinds[i] = k.kind
	}
	samples, ok := kindSamples(in.Kind)
	if !ok {
		return argError(req, "/kind", "must be one of %s; got %s", strings.Join(kinds, ", "), echo(in.Kind))
	}
	in.seconds = 0
	if in.Seconds != nil {
		in.seconds = *in.Seconds
	}
	switch {
	case in.Kind == "goroutine" && in.seconds != 0:
		return argError(req, "/seconds", "a goroutine profile is a snapshot: leave seconds out (got %d)", in.seconds)
	case in.Kind == "cpu" && in.Seconds == nil:
		in.seconds = defaultCPUSeconds
	}
	if in.Kind == "cpu" {
		// An explicit 0 is out of range too, not the default.
		if err := checkRange(req, "/seconds", in.seconds, 1, maxProfileSeconds); err != nil {
			return err
		}
	} else if in.seconds != 0 {
		if err := checkRange(req, "/seconds", in.seconds, 0, maxProfileSeconds); err != nil {
			return err
		}
	}
	if in.Top == 0 {
		in.Top = defaultTop
	}
	if err := checkRange(req, "/top", in.Top, 1, maxTop); err != nil {
		return err
	}
	if in.Sample == "" {
		in.Sample = samples[0]
	} else if !slices.Contains(samples, in.Sample) {
		return argError(req, "/sample", "for kind %s must be one of %s; got %s", in.Kind, strings.Join(samples, ", "), echo(in.Sample))
	}
	switch in.SortBy {
	case "":
		in.SortBy = "flat"
	case "flat", "cum":
	default:
		return argError(req, "/sortBy", "must be flat or cum; got %s", echo(in.SortBy))
	}
	switch in.Frames {
	case "":
		in.Frames = "host"
	case "host", "all":
	default:
		return argError(req, "/frames", "must be host or all; got %s", echo(in.Frames))
	}
	in.lines = defaultDetail
	if in.Lines != nil {
		in.lines = *in.Lines
	}
	if err := checkRange(req, "/lines", in.lines, 0, maxDetail); err != nil {
		return err
	}
	if err := checkText(req, "/window", in.Window, 64); err != nil {
		return err
	}
	if err := checkText(req, "/compare", in.Compare, 64); err != nil {
		return err
	}
	switch {
	case in.Window != "" && in.Kind != "cpu":
		return argError(req, "/window", "the background profiler keeps CPU profiles only: window needs kind cpu (got %s)", in.Kind)
	case in.Compare != "" && in.Window == "":
		return argError(req, "/compare", "compare needs a window to compare it with")
	case in.Window != "" && in.Seconds != nil:
		return argError(req, "/seconds", "window answers from the background profiler's history: leave seconds out")
	case in.Window != "":
		in.seconds = 0
	}
	return nil
}

// fitsDeadline rejects a profile window the call's deadline (the server's
// CallTimeout, say) would cut short, naming the longest that fits.
func fitsDeadline(ctx context.Context, req *mcp.Request, seconds int) error {
	dl, ok := ctx.Deadline()
	if !ok || seconds == 0 {
		return nil
	}
	const margin = time.Second // to decode and answer
	left := time.Until(dl)
	if left >= time.Duration(seconds)*time.Second+margin {
		return nil
	}
	if most := int((left - margin) / time.Second); most >= 1 {
		return argError(req, "/seconds", "this call must end within %v: ask for at most %d seconds (got %d)", left.Round(time.Second), most, seconds)
	}
	return argError(req, "/seconds", "this call must end within %v, too soon for a profile window", left.Round(time.Millisecond))
}

// profile takes the profile described by validated arguments. It is a
// function of the context, the arguments and a progress callback only, so
// that it can run as a long-running task as well as a tool call.
func (s *state) profile(ctx context.Context, in profileArgs, progress progressFunc) (*profileOutput, error) {
	if in.Window != "" {
		return s.historyProfile(ctx, in)
	}
	var raw []byte
	var err error
	switch {
	case in.Kind == "cpu":
		raw, err = s.cpuProfile(ctx, in.seconds, progress)
	case in.seconds > 0:
		raw, err = deltaProfile(ctx, in.Kind, in.seconds, progress)
	default:
		raw, err = snapshot(in.Kind)
	}
	if err != nil {
		return nil, err
	}
	p, err := profile.ParseData(raw)
	if err != nil {
		s.opts.Logger.Error("runtime_profile: decoding the profile", "kind", in.Kind, "error", err)
		return nil, fmt.Errorf("decoding the %s profile: %w", in.Kind, err)
	}
	if redactProfileLabels(p) {
		var buf bytes.Buffer
		if err := p.Write(&buf); err != nil {
			return nil, fmt.Errorf("encoding the %s profile: %w", in.Kind, err)
		}
		raw = buf.Bytes()
	}
	out, err := s.answerProfile(ctx, in, p, raw)
	if err != nil {
		return nil, err
	}
	if in.Kind == "cpu" && s.opts.Continuous != nil {
		out.result.History = s.opts.Continuous.info()
	}
	return out, nil
}

// answerProfile ranks p and attaches raw when asked.
func (s *state) answerProfile(ctx context.Context, in profileArgs, p *profile.Profile, raw []byte) (*profileOutput, error) {
	idx := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == in.Sample })
	if idx < 0 {
		return nil, fmt.Errorf("the %s profile has no %s values", in.Kind, in.Sample)
	}
	top, total, n := rankFunctions(p, idx, in.Top, in.SortBy == "cum", in.Frames == "host", in.lines)
	addSource(ctx, s.opts.Source, top)
	out := &profileOutput{raw: raw, result: profileResult{
		Kind: in.Kind, Seconds: in.seconds, Sample: in.Sample, Unit: p.SampleType[idx].Unit, Frames: in.Frames, SortBy: in.SortBy,
		Total: total, Functions: n, Top: top, Bytes: len(raw),
	}, flame: newFlameGraph(in.Kind, in.Sample, p.SampleType[idx].Unit, p, idx)}
	out.uri = fmt.Sprintf("pprof://%s/%s.pb.gz", in.Kind, time.Now().UTC().Format("20060102T150405Z"))
	switch {
	case !in.Raw:
	case len(raw) <= s.opts.MaxProfileBytes:
		out.result.Embedded, out.result.URI = true, out.uri
	default:
		out.result.Note = fmt.Sprintf("The raw profile (%d bytes) is larger than the %d bytes this server embeds; it is summarised only.", len(raw), s.opts.MaxProfileBytes)
	}
	if total == 0 {
		out.result.Note = joinNote(out.result.Note, emptyNote(in.Kind))
	}
	return out, nil
}

// redactProfileLabels redacts the pprof labels of p's samples as
// runtime_goroutines shows them (redactLabel), and reports whether it
// changed any.
func redactProfileLabels(p *profile.Profile) bool {
	changed := false
	for _, s := range p.Sample {
		for k, vs := range s.Label {
			for i, v := range vs {
				if r := redactLabel(k, v); r != v {
					vs[i], changed = r, true
				}
			}
		}
	}
	return changed
}

func emptyNote(kind string) string {
	switch kind {
	case "mutex":
		if runtime.SetMutexProfileFraction(-1) == 0 {
			return "The mutex profile is off in this process: the host enables it with runtime.SetMutexProfileFraction."
		}
	case "block":
		return "The block profile is empty: it records only after the host calls runtime.SetBlockProfileRate."
	case "cpu":
		return "No CPU samples: the process was idle for the whole window."
	}
	return "The profile has no samples for this value."
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// cpuProfile samples the CPU for seconds, reporting progress each second.
// One runs at a time (a background window is ended early for it);
// cancelling ctx stops it.
func (s *state) cpuProfile(ctx context.Context, seconds int, progress progressFunc) ([]byte, error) {
	release, err := s.cpu.acquire(ctx, time.Duration(seconds)*time.Second)
	if err != nil {
		return nil, err
	}
	defer release()
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, fmt.Errorf("%w: CPU profiling is already in use by other code in this process (such as net/http/pprof): %v; try again later", ErrBusy, err)
	}
	if err := wait(ctx, seconds, "CPU profile", progress); err != nil {
		pprof.StopCPUProfile()
		return nil, err
	}
	pprof.StopCPUProfile()
	return buf.Bytes(), nil
}

// wait waits seconds, reporting progress each second, or until ctx ends.
func wait(ctx context.Context, seconds int, what string, progress progressFunc) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	end := time.NewTimer(time.Duration(seconds) * time.Second)
	defer end.Stop()
	progress(0, float64(seconds), fmt.Sprintf("%s: 0 of %d s", what, seconds))
	for done := 1; ; {
		select {
		case <-ctx.Done():
			return ctxErr(ctx)
		case <-end.C:
			progress(float64(seconds), float64(seconds), fmt.Sprintf("%s: %d of %d s", what, seconds, seconds))
			return nil
		case <-tick.C:
			if done < seconds {
				progress(float64(done), float64(seconds), fmt.Sprintf("%s: %d of %d s", what, done, seconds))
				done++
			}
		}
	}
}

// snapshot writes a named runtime/pprof profile.
func snapshot(kind string) ([]byte, error) {
	var buf bytes.Buffer
	if err := pprof.Lookup(kind).WriteTo(&buf, 0); err != nil {
		return nil, fmt.Errorf("writing the %s profile: %w", kind, err)
	}
	return buf.Bytes(), nil
}

// deltaProfile answers what changed in a cumulative profile over seconds:
// the second snapshot less the first, as net/http/pprof does.
func deltaProfile(ctx context.Context, kind string, seconds int, progress progressFunc) ([]byte, error) {
	before, err := snapshot(kind)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := wait(ctx, seconds, kind+" profile", progress); err != nil {
		return nil, err
	}
	after, err := snapshot(kind)
	if err != nil {
		return nil, err
	}
	p0, err := profile.ParseData(before)
	if err != nil {
		return nil, fmt.Errorf("decoding the %s profile: %w", kind, err)
	}
	p1, err := profile.ParseData(after)
	if err != nil {
		return nil, fmt.Errorf("decoding the %s profile: %w", kind, err)
	}
	ts := p1.TimeNanos
	p0.Scale(-1)
	delta, err := profile.Merge([]*profile.Profile{p0, p1})
	if err != nil {
		return nil, fmt.Errorf("comparing the %s profiles: %w", kind, err)
	}
	delta.TimeNanos, delta.DurationNanos = ts, time.Since(start).Nanoseconds()
	var buf bytes.Buffer
	if err := delta.Write(&buf); err != nil {
		return nil, fmt.Errorf("encoding the %s profile: %w", kind, err)
	}
	return buf.Bytes(), nil
}
