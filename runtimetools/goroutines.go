package runtimetools

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/google/pprof/profile"
)

const goroutinesDescription = "List the live goroutines of this process grouped by identical stack: how many share it, " +
	"their state (chan receive, select, IO wait, sync.Mutex.Lock, running...) and longest wait in minutes, the frames " +
	"(id for code_definition, file:line) and where they were created. Largest groups first; filter by a function " +
	"substring or a state substring. Use it to find stuck or leaking goroutines."

const goroutinesSchema = `{"type":"object","properties":{` +
	`"since":{"type":"string","description":"since token of an earlier answer: growth per group; groups that grew at every look are flagged as leaks."},` +
	`"watch":{"type":"integer","description":"Seconds to sample, 1..30, for growth within this call."},` +
	`"function":{"type":"string","description":"Groups with a frame or creator whose function contains this text (case-insensitive)."},` +
	`"state":{"type":"string","description":"Groups whose state contains this text: chan receive, select, IO wait, running..."},` +
	`"minCount":{"type":"integer","description":"Groups of at least this many goroutines; default 1."},` +
	`"limit":{"type":"integer","description":"Groups, 1..100; default 20."},` +
	`"states":{"type":"boolean","description":"Read states and waits from a goroutine dump, which pauses the process. Default: when short; true: always, with diagnostics.runtime.profile; false: never."}},` +
	`"additionalProperties":false}`

// Limits of runtime_goroutines.
const (
	defaultGroupLimit = 20
	maxGroupLimit     = 100
	maxGroupFrames    = 32
	maxFunctionFilter = 256
	maxStateFilter    = 64
	maxLabels         = 16
	// maxAutoDumpPause is the longest a goroutine dump may stop the
	// process for, by its estimate, unless the caller holds
	// PermissionProfile and asks for it with states: true: about 10 000
	// goroutines of a few frames, 2 000 of fifteen.
	maxAutoDumpPause = 50 * time.Millisecond
	// maxDumpGoroutines is the most goroutines a dump covers under the
	// same condition, whatever the estimate says.
	maxDumpGoroutines = 10000
	// dumpPausePerByte is about what a goroutine dump stops the world for,
	// per byte of dumpEstimate: the runtime prints every frame of every
	// goroutine while the world is stopped, even past the end of the
	// buffer (measured on a 2-core machine: 9 to 14 ns per byte of dump,
	// 1 to 1.5 µs per frame; dumpEstimate runs about 1.4 times high).
	dumpPausePerByte = 8 * time.Nanosecond
)

type goroutinesArgs struct {
	Function string `json:"function,omitempty"`
	State    string `json:"state,omitempty"`
	MinCount int    `json:"minCount,omitempty"`
	Limit    int    `json:"limit,omitempty"`
	States   *bool  `json:"states,omitempty"`
	Since    string `json:"since,omitempty"`
	Watch    int    `json:"watch,omitempty"`
}

type goroutineGroup struct {
	Count              int               `json:"count" jsonschema:"goroutines with this stack"`
	State              string            `json:"state" jsonschema:"the most common state; unknown when the dump did not cover them"`
	States             map[string]int    `json:"states,omitempty" jsonschema:"goroutines per state, when they differ"`
	LongestWaitMinutes int               `json:"longestWaitMinutes,omitempty" jsonschema:"longest time one of them has been blocked, in whole minutes (the runtime counts from 1 minute)"`
	Frames             []Frame           `json:"frames" jsonschema:"the stack, innermost first, as a Go traceback shows it"`
	FramesOmitted      int               `json:"framesOmitted,omitempty" jsonschema:"outer frames left out"`
	CreatedBy          *Frame            `json:"createdBy,omitempty" jsonschema:"the go statement that started the most of them"`
	Labels             map[string]string `json:"labels,omitempty" jsonschema:"pprof labels of the goroutines"`
	Growth             *int              `json:"growth,omitempty" jsonschema:"with since or watch: change in count since then"`
	Series             []int             `json:"series,omitempty" jsonschema:"with since or watch: the count at each sample, oldest first"`
	Leak               bool              `json:"leak,omitempty" jsonschema:"the count grew at every sample (three or more): a probable leak; createdBy says where they start"`

	key uint64 // the stack's key, for growth
}

type goroutinesResult struct {
	Total         int              `json:"total" jsonschema:"goroutines in the profile"`
	Matched       int              `json:"matched" jsonschema:"goroutines in the groups that match the filters"`
	GroupsMatched int              `json:"groupsMatched" jsonschema:"groups that match the filters"`
	Groups        []goroutineGroup `json:"groups" jsonschema:"largest first, at most limit"`
	Truncated     bool             `json:"truncated" jsonschema:"more groups matched than limit"`
	StatesUnknown int              `json:"statesUnknown,omitempty" jsonschema:"goroutines the function and minCount filters keep whose state the dump did not give (they changed between the profile and the dump, or the dump was cut at 28 MiB, or no dump was taken)"`
	Note          string           `json:"note,omitempty" jsonschema:"why states are unknown"`
	growthResult

	counts map[uint64]int // goroutines per stack key, every group
}

func (s *state) goroutinesTool() (mcp.Tool, error) {
	s.seed, s.goroutineLooks = maphash.MakeSeed(), newLooks[map[uint64]int]("g")
	return newTool(goroutinesSchema, mcp.ToolInfo{
		Name:         GoroutinesToolName,
		Title:        "Goroutines of this process",
		Description:  goroutinesDescription,
		Permission:   PermissionRead,
		Annotations:  readOnly(),
		View:         GoroutinesViewURI,
		AdminSummary: "Lets an agent see the goroutines of this process grouped by stack, with their states and wait times.",
		AdminExample: `{"state":"chan receive","minCount":10}`,
		Guide: &mcp.Guide{
			Category:  "Diagnostics",
			WhenToUse: "Find goroutines that are stuck or leaking (many goroutines blocked at the same place, long waits), or see what the process is doing right now.",
			WhenNotToUse: []string{
				"Where CPU time goes - use runtime_profile with kind cpu.",
				"Just the goroutine count over time - use runtime_metrics (/sched/goroutines:goroutines).",
			},
			Details: "Groups come from the runtime's goroutine profile; states, wait times and creators from a goroutine dump, " +
				"which stops the process for about a microsecond per frame of every goroutine (0.5 s for 100 000 goroutines of three frames, 2 s of fifteen): " +
				"taken only when that is at most about 50 ms and there are at most 10 000 goroutines; above, only with states: true from a caller holding diagnostics.runtime.profile (the note says how long it would be, or why it was refused). One call takes them at a time. Frames hide the runtime's internals as a Go traceback does. " +
				"Pass a frame's id to code_definition to read its source.",
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{"limit":5}`), Outcome: "the five largest groups with count, state, frames and createdBy."},
				{Arguments: json.RawMessage(`{"function":"handleOrder","state":"chan receive"}`), Outcome: "the groups blocked receiving inside handleOrder, largest first."},
			},
			Workflows: []string{"goroutine leak: runtime_metrics for the count, runtime_goroutines for the biggest group, code_definition for its frames"},
		},
	}, func(ctx context.Context, req *mcp.Request, in goroutinesArgs) (goroutinesResult, error) {
		if err := validateGoroutines(req, &in); err != nil {
			return goroutinesResult{}, err
		}
		if err := validateGrowth(req, in.Since, in.Watch); err != nil {
			return goroutinesResult{}, err
		}
		if err := fitsDeadline(ctx, req, in.Watch); err != nil {
			return goroutinesResult{}, err
		}
		select {
		case s.snapshots <- struct{}{}:
			defer func() { <-s.snapshots }()
		case <-ctx.Done():
			return goroutinesResult{}, ctxErr(ctx)
		}
		b := s.dumpBound()
		b.mayExceed = in.States != nil && *in.States && mcp.AuthorizerFromContext(ctx).Allowed(ctx, req.Caller, PermissionProfile)
		return s.goroutinesGrowth(ctx, req, in, b)
	})
}

func validateGoroutines(req *mcp.Request, in *goroutinesArgs) error {
	if err := checkText(req, "/function", in.Function, maxFunctionFilter); err != nil {
		return err
	}
	if err := checkText(req, "/state", in.State, maxStateFilter); err != nil {
		return err
	}
	if in.MinCount == 0 {
		in.MinCount = 1
	}
	if err := checkRange(req, "/minCount", in.MinCount, 1, 1e9); err != nil {
		return err
	}
	if in.Limit == 0 {
		in.Limit = defaultGroupLimit
	}
	return checkRange(req, "/limit", in.Limit, 1, maxGroupLimit)
}

// goroutines answers runtime_goroutines for validated arguments, taking
// a goroutine dump within bound b.
func goroutines(ctx context.Context, in goroutinesArgs, b dumpBound) (*goroutinesResult, error) {
	return goroutinesKeyed(ctx, in, maphash.MakeSeed(), b)
}

// goroutinesKeyed is goroutines with the seed of the stack keys, which
// growth needs alike from call to call.
func goroutinesKeyed(ctx context.Context, in goroutinesArgs, seed maphash.Seed, b dumpBound) (*goroutinesResult, error) {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		return nil, fmt.Errorf("goroutine profile: %w", err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		return nil, fmt.Errorf("decoding the goroutine profile: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxErr(ctx)
	}
	total := 0
	for _, smp := range p.Sample {
		total += int(smp.Value[0])
	}
	dump := &dumpInfo{seed: seed}
	estimate := dumpEstimate(p)
	take, note := dumpDecision(in.States, total, estimate, b)
	if take && !b.mayExceed && runtime.NumGoroutine() > b.goroutines {
		// Goroutines started since the profile: the estimate no longer holds.
		take, note = false, fmt.Sprintf("States and waits were not read: the process now has %d goroutines, more than the %d a goroutine dump may cover without permission %s.",
			runtime.NumGoroutine(), b.goroutines, PermissionProfile)
	}
	if take {
		dump = takeDump(estimate, seed)
		if err := ctx.Err(); err != nil {
			return nil, ctxErr(ctx)
		}
	}
	return groupGoroutines(p, dump, in, note), nil
}

// groupGoroutines answers runtime_goroutines from a goroutine profile and
// what the dump says of its stacks (nothing, with the note saying why,
// when none was taken).
func groupGoroutines(p *profile.Profile, dump *dumpInfo, in goroutinesArgs, note string) *goroutinesResult {
	seed := dump.seed
	fnFilter, stateFilter := lower(in.Function), lower(in.State)
	res := &goroutinesResult{Groups: []goroutineGroup{}, counts: stackCounts(p, seed)}
	var key stackKey
	var nameBuf, fileBuf []byte
	for _, smp := range p.Sample {
		n := int(smp.Value[0])
		res.Total += n
		if n < in.MinCount {
			continue
		}
		g := goroutineGroup{Count: n, Frames: []Frame{}}
		key.reset(seed)
		match := fnFilter == ""
		var hidden []Frame // the runtime's frames, shown when no other is
		for _, loc := range smp.Location {
			for _, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				name, file := ln.Function.Name, ln.Function.Filename
				nameBuf, fileBuf = append(nameBuf[:0], name...), append(fileBuf[:0], file...)
				key.add(nameBuf, fileBuf, ln.Line)
				switch {
				case !visibleFrame(name, file):
					if len(g.Frames) == 0 && len(hidden) < maxGroupFrames {
						hidden = append(hidden, Frame{ID: elideTypeArgs(name), File: shortFile(name, file), Line: int(ln.Line)})
					}
				case len(g.Frames) < maxGroupFrames:
					g.Frames = append(g.Frames, Frame{ID: elideTypeArgs(name), File: shortFile(name, file), Line: int(ln.Line)})
					match = match || containsFold(name, fnFilter)
				default:
					g.FramesOmitted++
					match = match || containsFold(name, fnFilter)
				}
			}
		}
		if len(g.Frames) == 0 {
			// A stack wholly inside the runtime: shown whole, as a Go
			// traceback shows it.
			g.Frames = append(g.Frames, hidden...)
			match = match || slices.ContainsFunc(hidden, func(f Frame) bool { return containsFold(f.ID, fnFilter) })
		}
		g.key = key.sum()
		dg := dump.groups[g.key]
		if dg != nil {
			g.State, g.States = dominant(dg.states)
			g.LongestWaitMinutes = dg.maxWait
			if c := topCreator(dg.creators); c != 0 {
				f := dump.creators[c]
				g.CreatedBy = &f
				if !match && containsFold(f.ID, fnFilter) {
					match = true
				}
			}
		} else if profiler(smp) {
			// The goroutine that took the profile: this very call.
			g.State = "running"
		} else {
			g.State = "unknown"
		}
		if !match {
			continue
		}
		if g.State == "unknown" {
			// Counted before the state filter, which cannot tell whether
			// they would have matched.
			res.StatesUnknown += n
		}
		if stateFilter != "" && !stateMatches(g, stateFilter) {
			continue
		}
		g.Labels = sampleLabels(smp.Label)
		res.Matched += n
		res.Groups = append(res.Groups, g)
	}
	res.GroupsMatched = len(res.Groups)
	switch {
	case res.StatesUnknown == 0:
	case note != "":
		res.Note = note
	case dump.cutAt > 0:
		res.Note = fmt.Sprintf("The goroutine dump was cut at %.1f MiB: the states of %d goroutines past it are unknown.", float64(dump.cutAt)/(1<<20), res.StatesUnknown)
	default:
		res.Note = fmt.Sprintf("The states of %d goroutines are unknown: their stacks changed between the goroutine profile and the dump.", res.StatesUnknown)
	}
	slices.SortStableFunc(res.Groups, func(a, b goroutineGroup) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		if c := cmp.Compare(b.LongestWaitMinutes, a.LongestWaitMinutes); c != 0 {
			return c
		}
		// A goroutine the runtime recorded no stack for comes last.
		if ea, eb := len(a.Frames) == 0, len(b.Frames) == 0; ea != eb {
			if ea {
				return 1
			}
			return -1
		}
		return cmp.Compare(firstID(a), firstID(b))
	})
	if len(res.Groups) > in.Limit {
		res.Groups, res.Truncated = res.Groups[:in.Limit], true
	}
	return res
}

// dumpBound is how long a goroutine dump may stop the process for, by
// its estimate, and how many goroutines it may cover.
type dumpBound struct {
	pause      time.Duration
	goroutines int
	// mayExceed: the caller asked for the dump (states: true) and holds
	// PermissionProfile, so the bound does not apply.
	mayExceed bool
}

// dumpBound returns the bound of the state's tools (the defaults, or a
// test's).
func (s *state) dumpBound() dumpBound {
	b := dumpBound{pause: maxAutoDumpPause, goroutines: maxDumpGoroutines}
	if s.maxDump.goroutines > 0 {
		b = s.maxDump
	}
	return b
}

// dumpDecision says whether to take a goroutine dump of total goroutines
// whose dump would take about estimate bytes (dumpEstimate), and if not,
// why and what to do instead.
func dumpDecision(states *bool, total, estimate int, b dumpBound) (take bool, note string) {
	pause := time.Duration(estimate) * dumpPausePerByte
	within := pause <= b.pause && total <= b.goroutines
	switch {
	case states != nil && !*states:
		return false, "States and waits were not read (states: false)."
	case within:
		return true, ""
	case states == nil:
		return false, fmt.Sprintf("States and waits were not read: a goroutine dump of %d goroutines would stop the process for about %v, above the bound of %v and %d goroutines. "+
			"Callers holding permission %s may pass states: true to take it anyway.",
			total, pause.Round(10*time.Millisecond), b.pause, b.goroutines, PermissionProfile)
	case !b.mayExceed:
		return false, fmt.Sprintf("The goroutine dump was refused: for %d goroutines it would stop the process for about %v, above the bound of %v and %d goroutines, "+
			"and only callers holding permission %s may exceed it. The groups, counts, frames and labels above need no dump; "+
			"narrow them with function or minCount, or ask for that permission.",
			total, pause.Round(10*time.Millisecond), b.pause, b.goroutines, PermissionProfile)
	}
	return true, ""
}

// profiler reports whether a sample is the goroutine that took the
// profile, which the runtime records at its call of the profiler.
func profiler(s *profile.Sample) bool {
	if len(s.Location) == 0 || len(s.Location[0].Line) == 0 || s.Location[0].Line[0].Function == nil {
		return false
	}
	return s.Location[0].Line[0].Function.Name == "runtime.goroutineProfileWithLabels"
}

// dumpEstimate guesses the size of the goroutine dump from the profile:
// per goroutine a header, and per frame the dump shows its function with
// arguments and its file:line, plus the "created by" frame.
func dumpEstimate(p *profile.Profile) int {
	total := 0
	for _, s := range p.Sample {
		per, last := 48, 64
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if f := ln.Function; f != nil && visibleFrame(f.Name, f.Filename) {
					last = len(f.Name) + len(f.Filename) + 40
					per += last
				}
			}
		}
		total += (per + last) * int(s.Value[0])
	}
	return total + total/16
}

// visibleFrame reports whether a Go traceback shows a frame: not the
// runtime's internals (unexported functions of package runtime) and not
// compiler-generated wrappers.
func visibleFrame(name, file string) bool {
	if file == "<autogenerated>" || !strings.Contains(name, ".") {
		return false
	}
	rest, ok := strings.CutPrefix(name, "runtime.")
	if !ok {
		return true
	}
	// runtime.Goexit, runtime.(*Func).Name: exported functions and
	// methods of exported types stay.
	recv := ""
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		recv, rest = strings.TrimSuffix(strings.TrimPrefix(rest[:i], "(*"), ")"), rest[i+1:]
	}
	exported := func(s string) bool { return s != "" && 'A' <= s[0] && s[0] <= 'Z' }
	return exported(rest) && (recv == "" || exported(recv))
}

// dominant returns the most common state, and the whole map when there is
// more than one.
func dominant(states map[string]int) (string, map[string]int) {
	best, n := "", -1
	for s, c := range states {
		if c > n || (c == n && s < best) {
			best, n = s, c
		}
	}
	if len(states) > 1 {
		return best, states
	}
	return best, nil
}

func topCreator(creators map[uint64]int) uint64 {
	var best uint64
	n := 0
	for k, c := range creators {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	return best
}

func stateMatches(g goroutineGroup, filter string) bool {
	if containsFold(g.State, filter) {
		return true
	}
	for s := range g.States {
		if containsFold(s, filter) {
			return true
		}
	}
	return false
}

func firstID(g goroutineGroup) string {
	if len(g.Frames) == 0 {
		return ""
	}
	return g.Frames[0].ID
}

// sampleLabels returns a sample's pprof labels, bounded, redacted as
// redactLabel does.
func sampleLabels(labels map[string][]string) map[string]string {
	if len(labels) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range labels {
			if !yield(k) {
				return
			}
		}
	}) {
		if len(out) == maxLabels {
			break
		}
		out[clip(k, 128)] = clip(redactLabel(k, strings.Join(labels[k], ",")), 256)
	}
	return out
}
