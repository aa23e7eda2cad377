package runtimetools

import (
	"bytes"
	"context"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// leakyWorker is the deliberate leak: it waits for a job nobody sends.
//
//go:noinline
func leakyWorker(jobs <-chan struct{}, started *sync.WaitGroup) {
	started.Done()
	<-jobs
}

// busyWaiter is a larger group that must not come first when filtering
// by leakyWorker.
//
//go:noinline
func busyWaiter(stop <-chan struct{}, started *sync.WaitGroup) {
	started.Done()
	select {
	case <-stop:
	case <-time.After(time.Hour):
	}
}

// startGoroutines starts n goroutines running fn and stops them when the
// test ends.
func startGoroutines(t testing.TB, n int, fn func(stop chan struct{}, started *sync.WaitGroup)) {
	t.Helper()
	stop := make(chan struct{})
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(n)
	for range n {
		go func() {
			defer done.Done()
			fn(stop, &started)
		}()
	}
	started.Wait()
	t.Cleanup(func() {
		close(stop)
		done.Wait()
	})
}

// waitBlocked waits until n goroutines in function are blocked.
func waitBlocked(t testing.TB, function string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		states := true
		res, err := goroutines(context.Background(), goroutinesArgs{Function: function, MinCount: 1, Limit: 1, States: &states}, dumpBound{pause: maxAutoDumpPause, goroutines: maxDumpGoroutines, mayExceed: true})
		if err != nil {
			t.Fatal(err)
		}
		if g := res.Groups; len(g) > 0 && g[0].Count >= n && len(g[0].States) == 0 && g[0].State != "running" && g[0].State != "runnable" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines in %s did not block: %+v", n, function, res.Groups)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestGoroutineLeakGroupComesFirst(t *testing.T) {
	startGoroutines(t, 150, func(stop chan struct{}, started *sync.WaitGroup) {
		leakyWorker(stop, started)
	})
	startGoroutines(t, 300, func(stop chan struct{}, started *sync.WaitGroup) { busyWaiter(stop, started) })
	waitBlocked(t, "leakyWorker", 150)
	waitBlocked(t, "busyWaiter", 300)
	c := newTestClient(t, nil)

	// Unfiltered, the larger group of busyWaiter comes first.
	all := call[goroutinesResult](t, c, GoroutinesToolName, map[string]any{"limit": 5})
	if len(all.Groups) == 0 || !hasFrame(all.Groups[0], "busyWaiter") || all.Groups[0].Count != 300 {
		t.Fatalf("first group without a filter: %+v", all.Groups)
	}
	if all.Total < 450 {
		t.Errorf("total = %d, want at least 450", all.Total)
	}

	got := call[goroutinesResult](t, c, GoroutinesToolName, map[string]any{"function": "leakyworker"})
	if len(got.Groups) == 0 {
		t.Fatal("no group matches leakyWorker")
	}
	g := got.Groups[0]
	if !hasFrame(g, "runtimetools.leakyWorker") || g.Count != 150 {
		t.Fatalf("first group filtered by leakyWorker: %+v", g)
	}
	if g.State != "chan receive" {
		t.Errorf("state = %q (%v), want chan receive", g.State, g.States)
	}
	if g.CreatedBy == nil || !strings.Contains(g.CreatedBy.ID, "startGoroutines") {
		t.Errorf("createdBy = %+v, want startGoroutines", g.CreatedBy)
	}
	for _, f := range g.Frames {
		if f.ID == "" || f.File == "" || f.Line <= 0 {
			t.Errorf("frame without id or file:line: %+v", f)
		}
		if strings.HasPrefix(f.ID, "runtime.") {
			t.Errorf("runtime internals shown: %+v", f)
		}
	}
	if got.StatesUnknown > 5 {
		t.Errorf("statesUnknown = %d: the dump and the profile did not match", got.StatesUnknown)
	}

	// The state filter and minCount narrow it down.
	sel := call[goroutinesResult](t, c, GoroutinesToolName, map[string]any{"state": "SELECT", "minCount": 100})
	if len(sel.Groups) != 1 || !hasFrame(sel.Groups[0], "busyWaiter") {
		t.Errorf("state select, minCount 100: %+v", sel.Groups)
	}
	none := call[goroutinesResult](t, c, GoroutinesToolName, map[string]any{"function": "leakyWorker", "state": "select"})
	if len(none.Groups) != 0 || none.Matched != 0 {
		t.Errorf("leakyWorker in select: %+v", none.Groups)
	}
}

func TestGoroutineGroupsCapped(t *testing.T) {
	c := newTestClient(t, nil)
	got := call[goroutinesResult](t, c, GoroutinesToolName, map[string]any{"limit": 1})
	if len(got.Groups) != 1 || !got.Truncated || got.GroupsMatched < 2 {
		t.Errorf("limit 1: %d groups of %d, truncated %v", len(got.Groups), got.GroupsMatched, got.Truncated)
	}
}

func hasFrame(g goroutineGroup, substr string) bool {
	for _, f := range g.Frames {
		if strings.Contains(f.ID, substr) {
			return true
		}
	}
	return false
}

func TestVisibleFrame(t *testing.T) {
	for name, want := range map[string]bool{
		"main.main":                      true,
		"runtime.gopark":                 false,
		"runtime.Goexit":                 true,
		"runtime.(*Func).Name":           true,
		"runtime.(*mheap).alloc":         false,
		"runtime/pprof.writeGoroutine":   true,
		"net/http.(*conn).serve":         true,
		"internal/poll.runtime_pollWait": true,
		"nodot":                          false,
	} {
		if got := visibleFrame(name, "/x.go"); got != want {
			t.Errorf("visibleFrame(%q) = %v, want %v", name, got, want)
		}
	}
	if visibleFrame("main.T.M", "<autogenerated>") {
		t.Error("wrappers are shown")
	}
	if got := elideTypeArgs("a.(*T[go.shape.struct { F string \"json:\\\"f\\\"\" }]).M[go.shape.int]"); got != "a.(*T[...]).M[...]" {
		t.Errorf("elideTypeArgs = %q", got)
	}
}

func TestGoroutineSnapshotsOneAtATime(t *testing.T) {
	s := &state{snapshots: make(chan struct{}, 1)}
	tool, err := s.goroutinesTool()
	if err != nil {
		t.Fatal(err)
	}
	ts := mcp.NewToolSet()
	must(t, registerViews(ts))
	must(t, ts.Register(tool))
	c := mcptest.NewClient(t, mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{CallTimeout: 200 * time.Millisecond}),
		&mcptest.ClientOptions{Caller: mcptest.Caller("oncall", PermissionRead)})
	// While another snapshot is taken, a call waits, and gives up with its
	// context.
	s.snapshots <- struct{}{}
	start := time.Now()
	res, err := c.CallTool(GoroutinesToolName, map[string]any{})
	if err == nil && !res.IsError {
		t.Error("a call went ahead while another snapshot was being taken")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the waiting call took %v to give up", d)
	}
	<-s.snapshots
	// Concurrent calls take their turns, without the short timeout: on a
	// loaded machine one snapshot can take longer than it.
	c = mcptest.NewClient(t, mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), &mcptest.ClientOptions{Caller: mcptest.Caller("oncall", PermissionRead)})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if res, err := c.CallTool(GoroutinesToolName, map[string]any{"limit": 1}); err != nil || res.IsError {
				t.Errorf("concurrent calls: %v %s", err, mcptest.ResultText(res))
			}
		})
	}
	wg.Wait()
}

func TestGoroutineDumpDecision(t *testing.T) {
	yes, no := true, false
	def := dumpBound{pause: maxAutoDumpPause, goroutines: maxDumpGoroutines}
	may := def
	may.mayExceed = true
	if take, note := dumpDecision(nil, 2000, 1<<20, def); !take || note != "" {
		t.Errorf("default, a dump of 1 MiB: %v %q", take, note)
	}
	if take, note := dumpDecision(nil, 100000, 62_500_000, def); take || !strings.Contains(note, "a goroutine dump of 100000 goroutines would stop the process for about 500ms, above the bound of 50ms and 10000 goroutines. Callers holding permission diagnostics.runtime.profile may pass states: true") {
		t.Errorf("default, a dump of 62.5 MB: %v %q", take, note)
	}
	// Many goroutines of a tiny estimated dump: the count bounds it too.
	if take, note := dumpDecision(nil, 10001, 1<<20, def); take || !strings.Contains(note, "10001 goroutines") {
		t.Errorf("default, 10001 goroutines: %v %q", take, note)
	}
	if take, note := dumpDecision(&yes, 100000, 62_500_000, def); take || !strings.Contains(note, "The goroutine dump was refused") || !strings.Contains(note, "ask for that permission") {
		t.Errorf("states: true without the profile permission: %v %q", take, note)
	}
	if take, _ := dumpDecision(&yes, 100000, 62_500_000, may); !take {
		t.Error("states: true with the profile permission did not take the dump")
	}
	if take, _ := dumpDecision(&yes, 2000, 1<<20, def); !take {
		t.Error("states: true within the bound did not take the dump")
	}
	if take, note := dumpDecision(&no, 10, 1000, may); take || note == "" {
		t.Errorf("states: false: %v %q", take, note)
	}
	// The estimate the pause is reckoned from is of the dump's size: at
	// least the real size, and not many times more.
	startGoroutines(t, 200, func(stop chan struct{}, started *sync.WaitGroup) { leakyWorker(stop, started) })
	waitBlocked(t, "leakyWorker", 200)
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	dump := make([]byte, 8<<20)
	size, estimate := runtime.Stack(dump, true), dumpEstimate(p)
	t.Logf("dump of %d bytes estimated at %d", size, estimate)
	if estimate < size || estimate > 3*size {
		t.Errorf("dump of %d bytes estimated at %d", size, estimate)
	}
	c := newTestClient(t, nil)
	got := call[goroutinesResult](t, c, GoroutinesToolName, map[string]any{"states": false})
	if got.StatesUnknown == 0 || got.Note != "States and waits were not read (states: false)." {
		t.Errorf("states false: unknown %d of %d, note %q", got.StatesUnknown, got.Total, got.Note)
	}
	for _, g := range got.Groups {
		if g.State != "unknown" && g.State != "running" {
			t.Errorf("states false, a group in state %q", g.State)
		}
	}
}
