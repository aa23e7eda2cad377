package runtimetools

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

const sampleDump = `goroutine 1 [running]:
main.main()
	/src/main.go:49 +0x5c5

goroutine 19 [chan receive, 12 minutes]:
main.leak(...)
	/src/main.go:13
created by main.main in goroutine 1
	/src/main.go:29 +0xa6

goroutine 20 [chan receive, 3 minutes, locked to thread]:
main.leak(...)
	/src/main.go:13
created by main.main in goroutine 1
	/src/main.go:29 +0xa6

goroutine 21 [select labels:{"a": "b]:"}]:
runtime.gopark(0x0?)
	/go/src/runtime/proc.go:462 +0xce
main.(*T[...]).wait.func1(...)
	/src/main.go:19
main.(*T[...]).wait(0x0?, 0x36fc6ca84310)
	/src/main.go:23 +0x65
...additional frames elided...
created by main.main in goroutine 1
	/src/main.go:30 +0x45

goroutine 22 [IO wait]:
main.cut(`

func TestParseDump(t *testing.T) {
	seed := maphash.MakeSeed()
	d := parseDump([]byte(sampleDump), seed)
	if d.parsed != 4 {
		t.Errorf("parsed %d goroutines, want 4 (the last one is cut off)", d.parsed)
	}
	var leak *dumpGroup
	for _, g := range d.groups {
		if g.states["chan receive"] == 2 {
			leak = g
		}
	}
	if leak == nil || leak.maxWait != 12 || len(leak.creators) != 1 {
		t.Fatalf("leak group = %+v", leak)
	}
	for k := range leak.creators {
		if f := d.creators[k]; f != (Frame{ID: "main.main", File: shortFile("main.main", "/src/main.go"), Line: 29}) {
			t.Errorf("creator = %+v", f)
		}
	}
	var sel *dumpGroup
	for _, g := range d.groups {
		if g.states["select"] == 1 {
			sel = g
		}
	}
	if sel == nil {
		t.Fatalf("no select group (labels in the header): %+v", d.groups)
	}
	// The select goroutine's key is that of its frames outside the runtime,
	// with type arguments left out.
	var k stackKey
	k.reset(seed)
	k.add([]byte("runtime.gopark"), []byte("/go/src/runtime/proc.go"), 462)
	k.add([]byte("main.(*T[go.shape.int]).wait.func1"), []byte("/src/main.go"), 19)
	k.add([]byte("main.(*T[go.shape.int]).wait"), []byte("/src/main.go"), 23)
	if d.groups[k.sum()] != sel {
		t.Error("the profile's key of the select stack does not find the dump's group")
	}
}

// TestParseDumpHeaders: the header variants of the runtime's traceback
// (goroutineheader in runtime/traceback.go) give the state and the wait.
func TestParseDumpHeaders(t *testing.T) {
	for header, want := range map[string]struct {
		state string
		wait  int
	}{
		"goroutine 7 [chan receive]:":                                     {"chan receive", 0},
		"goroutine 7 [chan receive, 5 minutes]:":                          {"chan receive", 5},
		"goroutine 7 [select, 90 minutes, locked to thread]:":             {"select", 90},
		"goroutine 7 gp=0xc000007c00 m=nil [IO wait, 2 minutes]:":         {"IO wait", 2},
		"goroutine 7 gp=0xc000007c00 m=3 mp=0xc000080008 [running]:":      {"running", 0},
		"goroutine 7 [chan receive (durable), synctest bubble 1]:":        {"chan receive (durable)", 0},
		"goroutine 7 [sync.WaitGroup.Wait (leaked), 3 minutes]:":          {"sync.WaitGroup.Wait (leaked)", 3},
		`goroutine 7 [select, 4 minutes labels:{"k": "v, 9 minutes]:"}]:`: {"select", 4},
		`goroutine 7 [semacquire labels:{"a": "b", "labels:{": "x"}]:`:    {"semacquire", 0},
		"goroutine 7 [sleep, x minutes]:":                                 {"sleep", 0},
		"goroutine 7 []:":                                                 {"", 0},
		"goroutine 7 ]:":                                                  {"unknown", 0},
	} {
		st, wait := parseHeader([]byte(header))
		if string(st) != want.state || wait != want.wait {
			t.Errorf("parseHeader(%q) = %q, %d; want %q, %d", header, st, wait, want.state, want.wait)
		}
	}
}

// TestParseDumpAncestors: with GODEBUG=tracebackancestors=N the dump
// follows each goroutine's creator with the stacks of its ancestors; they
// are not part of its stack, whose key stays that of the profile.
func TestParseDumpAncestors(t *testing.T) {
	const plain = `goroutine 9 [chan receive, 2 minutes]:
main.(*T[...]).wait(...)
	/src/main.go:14
created by main.main in goroutine 1
	/src/main.go:23 +0x1dc

`
	const withAncestors = `goroutine 9 [chan receive, 2 minutes]:
main.(*T[...]).wait(...)
	/src/main.go:14
created by main.main in goroutine 1
	/src/main.go:23 +0x1dc
[originating from goroutine 1]:
main.main(...)
	/src/main.go:24 +0x1dc

`
	seed := maphash.MakeSeed()
	a, b := parseDump([]byte(plain), seed), parseDump([]byte(withAncestors), seed)
	if len(a.groups) != 1 || len(b.groups) != 1 {
		t.Fatalf("groups: %d and %d, want 1 each", len(a.groups), len(b.groups))
	}
	for k := range a.groups {
		if g := b.groups[k]; g == nil || g.states["chan receive"] != 1 || g.maxWait != 2 {
			t.Errorf("the ancestors' frames changed the stack's key: %+v", b.groups)
		}
	}
}

// FuzzParseDump: any text, cut anywhere, parses without panicking, and
// every goroutine read is counted once in its group.
func FuzzParseDump(f *testing.F) {
	f.Add([]byte(sampleDump))
	buf := make([]byte, 1<<16)
	f.Add(buf[:runtime.Stack(buf, true)])
	f.Add([]byte("goroutine 1 [running]:\n\tx.go:1\ncreated by \n\t:\n\ngoroutine [\n"))
	f.Add([]byte("goroutine ]:\n(\n)\n\t +0x\ngoroutine 2 [a, b, 3 minutes, c labels:{]:\n...\n\n"))
	seed := maphash.MakeSeed()
	f.Fuzz(func(t *testing.T, b []byte) {
		d := parseDump(b, seed)
		headers := 0
		for line := range bytes.Lines(b) {
			if bytes.HasPrefix(line, []byte("goroutine ")) {
				headers++
			}
		}
		if d.parsed > headers {
			t.Fatalf("%d goroutines read from %d headers", d.parsed, headers)
		}
		n := 0
		for _, g := range d.groups {
			for _, c := range g.states {
				n += c
			}
			if g.maxWait < 0 {
				t.Fatalf("negative wait %d", g.maxWait)
			}
		}
		if n != d.parsed {
			t.Fatalf("groups count %d goroutines, %d read", n, d.parsed)
		}
	})
}

type genericWaiter[T any] struct{ c chan T }

//go:noinline
func (w *genericWaiter[T]) wait(started *sync.WaitGroup) {
	started.Done()
	<-w.c
}

type embeddedMutex struct{ sync.Mutex }

// lockThroughInterface locks through the promoted method's wrapper,
// which the dump hides and the profile shows as <autogenerated>.
//
//go:noinline
func lockThroughInterface(l sync.Locker, started *sync.WaitGroup) {
	started.Done()
	l.Lock()
	//lint:ignore SA2001 the goroutine is to block in Lock
	l.Unlock()
}

// labelledWait waits with pprof labels, shown in the dump's header.
//
//go:noinline
func labelledWait(release <-chan int, started *sync.WaitGroup) {
	pprof.Do(context.Background(), pprof.Labels("route", `/a]:, 5 minutes"`), func(context.Context) {
		started.Done()
		<-release
	})
}

// TestGoroutineStatesOfEveryStackKind: the dump's state is found for the
// stacks of generic methods, method values, promoted methods (whose
// wrappers the dump hides), closures and goroutines with pprof labels
// shown in the dump's headers (GODEBUG=tracebacklabels=1).
func TestGoroutineStatesOfEveryStackKind(t *testing.T) {
	t.Setenv("GODEBUG", "tracebacklabels=1")
	release := make(chan int)
	var started, done sync.WaitGroup
	run := func(fn func()) {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			fn()
		}()
	}
	w := &genericWaiter[int]{c: release}
	method := w.wait
	run(func() { method(&started) })
	mu := &embeddedMutex{}
	mu.Lock()
	run(func() { lockThroughInterface(mu, &started) })
	run(func() { labelledWait(release, &started) })
	started.Wait()
	t.Cleanup(func() {
		mu.Unlock()
		close(release)
		done.Wait()
	})
	yes := true
	want := map[string]string{
		"genericWaiter[...]).wait": "chan receive",
		"lockThroughInterface":     "sync.Mutex.Lock",
		"labelledWait":             "chan receive",
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := goroutines(context.Background(), goroutinesArgs{Function: "runtimetools.", MinCount: 1, Limit: maxGroupLimit, States: &yes}, dumpBound{pause: maxAutoDumpPause, goroutines: maxDumpGoroutines, mayExceed: true})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, g := range res.Groups {
			for id := range want {
				if hasFrame(g, id) {
					got[id] = g.State
				}
			}
		}
		missing := ""
		for id, state := range want {
			if got[id] != state {
				missing += fmt.Sprintf(" %s: %q;", id, got[id])
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("states not found:%s unknown: %d, %s", missing, res.StatesUnknown, res.Note)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGroupGoroutinesStacksWithoutFrames: a stack wholly inside the
// runtime is shown with the runtime's frames, and one the runtime
// recorded no frames for comes after the others of its size.
func TestGroupGoroutinesStacksWithoutFrames(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function {
		return &profile.Function{ID: id, Name: name, Filename: "/src/" + strings.ReplaceAll(name, ".", "_") + ".go"}
	}
	gopark, ensure, worker := fn(1, "runtime.gopark"), fn(2, "runtime.ensureSigM.func1"), fn(3, "main.worker")
	loc := func(id uint64, f *profile.Function) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f, Line: int64(10 * id)}}}
	}
	l1, l2, l3 := loc(1, gopark), loc(2, ensure), loc(3, worker)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "goroutine", Unit: "count"}},
		Sample: []*profile.Sample{
			{Value: []int64{1}},
			{Value: []int64{1}, Location: []*profile.Location{l1, l2}},
			{Value: []int64{1}, Location: []*profile.Location{l1, l3}},
		},
		Location: []*profile.Location{l1, l2, l3},
		Function: []*profile.Function{gopark, ensure, worker},
	}
	res := groupGoroutines(p, &dumpInfo{seed: maphash.MakeSeed()}, goroutinesArgs{MinCount: 1, Limit: 10}, "no dump")
	if len(res.Groups) != 3 {
		t.Fatalf("groups = %+v", res.Groups)
	}
	if !hasFrame(res.Groups[0], "main.worker") || hasFrame(res.Groups[0], "gopark") {
		t.Errorf("first group = %+v", res.Groups[0])
	}
	if g := res.Groups[1]; len(g.Frames) != 2 || g.Frames[0].ID != "runtime.gopark" || g.Frames[1].ID != "runtime.ensureSigM.func1" {
		t.Errorf("a stack inside the runtime = %+v", g)
	}
	if g := res.Groups[2]; len(g.Frames) != 0 || g.State != "unknown" {
		t.Errorf("a stack without frames = %+v", g)
	}
	if res.StatesUnknown != 3 || res.Note != "no dump" {
		t.Errorf("unknown %d, note %q", res.StatesUnknown, res.Note)
	}
	ensureOnly := groupGoroutines(p, &dumpInfo{seed: maphash.MakeSeed()}, goroutinesArgs{Function: "ensureSigM", MinCount: 1, Limit: 10}, "")
	if len(ensureOnly.Groups) != 1 || ensureOnly.Groups[0].Frames[1].ID != "runtime.ensureSigM.func1" {
		t.Errorf("filtered by a runtime function: %+v", ensureOnly.Groups)
	}
	// Unknown states are counted of the goroutines the function filter
	// keeps, before the state filter: others do not concern the answer.
	if ensureOnly.StatesUnknown != 1 {
		t.Errorf("filtered by function: %d states unknown, want 1", ensureOnly.StatesUnknown)
	}
	selecting := groupGoroutines(p, &dumpInfo{seed: maphash.MakeSeed()}, goroutinesArgs{Function: "worker", State: "select", MinCount: 1, Limit: 10}, "no dump")
	if len(selecting.Groups) != 0 || selecting.StatesUnknown != 1 || selecting.Note != "no dump" {
		t.Errorf("filtered by function and state: %+v", selecting)
	}
}
