package runtimetools

import (
	"strings"
	"sync"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// TestGoroutineDumpBound: above the dump's bound (lowered here to 50
// goroutines, since the race detector allows no more than 8128), states:
// true is refused to a caller without the profile permission, with the
// reason and what to do instead, and granted to one who has it; by
// default the dump is not taken for either.
func TestGoroutineDumpBound(t *testing.T) {
	startGoroutines(t, 100, func(stop chan struct{}, started *sync.WaitGroup) { leakyWorker(stop, started) })
	waitBlocked(t, "leakyWorker", 100)
	ts := mcp.NewToolSet()
	must(t, registerViews(ts))
	tl, err := tools(nil, func(s *state) { s.maxDump = dumpBound{pause: maxAutoDumpPause, goroutines: 50} })
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Register(tl...); err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil)
	reader := mcptest.NewClient(t, server, &mcptest.ClientOptions{Caller: mcptest.Caller("reader", PermissionRead)})
	profiler := mcptest.NewClient(t, server, &mcptest.ClientOptions{Caller: mcptest.Caller("oncall", PermissionRead, PermissionProfile)})
	args := map[string]any{"function": "leakyWorker", "states": true}

	refused := call[goroutinesResult](t, reader, GoroutinesToolName, args)
	if refused.Matched < 100 || refused.StatesUnknown < 100 || !strings.Contains(refused.Note, "The goroutine dump was refused") ||
		!strings.Contains(refused.Note, PermissionProfile) || !strings.Contains(refused.Note, "need no dump") {
		t.Errorf("reader, states: true: matched %d, unknown %d, note %q", refused.Matched, refused.StatesUnknown, refused.Note)
	}
	for _, g := range refused.Groups {
		if g.State != "unknown" {
			t.Errorf("reader: a group in state %q: the dump was taken", g.State)
		}
	}

	granted := call[goroutinesResult](t, profiler, GoroutinesToolName, args)
	if granted.Matched < 100 || granted.StatesUnknown != 0 || len(granted.Groups) == 0 || granted.Groups[0].State != "chan receive" {
		t.Errorf("profiler, states: true: matched %d, unknown %d, groups %+v", granted.Matched, granted.StatesUnknown, granted.Groups)
	}

	// Without states: true, not even the profiler's call takes it.
	dflt := call[goroutinesResult](t, profiler, GoroutinesToolName, map[string]any{"function": "leakyWorker"})
	if dflt.StatesUnknown < 100 || !strings.Contains(dflt.Note, "may pass states: true") {
		t.Errorf("profiler, default: unknown %d, note %q", dflt.StatesUnknown, dflt.Note)
	}
}
