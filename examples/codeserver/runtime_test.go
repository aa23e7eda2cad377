package main

import (
	"math"
	"strings"
	"sync"
	"testing"
)

// parkedForTest waits in a closure until release is closed: a goroutine
// whose frames include a closure, for code_definition to resolve.
//
//go:noinline
func parkedForTest(release <-chan struct{}, started *sync.WaitGroup) {
	func() {
		started.Done()
		<-release
	}()
}

// spinForTest burns CPU until stop is closed.
//
//go:noinline
func spinForTest(stop <-chan struct{}) (x float64) {
	for {
		select {
		case <-stop:
			return x
		default:
		}
		for i := range 100000 {
			x += math.Sqrt(float64(i))
		}
	}
}

// TestCodeServerRuntimeIDsResolve: the ids the runtime tools answer (a
// goroutine's frames and creator, a CPU profile's functions, the
// source of a log record) are ids code_definition resolves.
func TestCodeServerRuntimeIDsResolve(t *testing.T) {
	url := start(t, "")
	release, stop := make(chan struct{}), make(chan struct{})
	var started, done sync.WaitGroup
	started.Add(5)
	done.Add(6)
	for range 5 {
		go func() {
			defer done.Done()
			parkedForTest(release, &started)
		}()
	}
	go func() {
		defer done.Done()
		spinForTest(stop)
	}()
	t.Cleanup(func() {
		close(release)
		close(stop)
		done.Wait()
	})
	started.Wait()

	ids := map[string]bool{}
	groups := call(t, url, "", "runtime_goroutines", `{"function":"parkedForTest","limit":1}`)["groups"].([]any)
	if len(groups) != 1 {
		t.Fatalf("groups = %v", groups)
	}
	g := groups[0].(map[string]any)
	if g["count"] != 5.0 {
		t.Errorf("count = %v, want 5", g["count"])
	}
	var frames []string
	for _, f := range g["frames"].([]any) {
		frames = append(frames, f.(map[string]any)["id"].(string))
	}
	if !strings.HasSuffix(frames[0], "parkedForTest.func1") {
		t.Errorf("innermost frame %q, want the closure of parkedForTest", frames[0])
	}
	for _, id := range frames {
		ids[id] = true
	}
	ids[g["createdBy"].(map[string]any)["id"].(string)] = true

	// The spinning goroutine must be among the profile's functions, and
	// every Go function the profile names must resolve. Under load (the
	// race detector's runtime, other processes on the machine) the
	// spinner may fall out of a short list or get no sample in one window:
	// the whole list (top 50) is asked for, up to three windows.
	found := false
	for try := 0; try < 3 && !found; try++ {
		prof := call(t, url, "", "runtime_profile", `{"kind":"cpu","seconds":1,"top":50}`)
		for _, f := range prof["top"].([]any) {
			id := f.(map[string]any)["id"].(string)
			if f.(map[string]any)["native"] == true {
				continue // C, C++ or assembly outside Go's packages (the race detector's, say)
			}
			ids[id] = true
			found = found || strings.HasSuffix(id, ".spinForTest")
		}
		if !found {
			t.Logf("window %d: spinForTest is not among the CPU profile's functions: %v", try+1, prof["top"])
		}
	}
	if !found {
		t.Error("spinForTest is not in the CPU profile in three windows of one second")
	}

	records := call(t, url, "", "runtime_logs", `{"limit":5}`)["records"].([]any)
	if len(records) == 0 {
		t.Fatal("no log records: the server's request log does not reach runtime_logs")
	}
	for _, r := range records {
		if src, ok := r.(map[string]any)["source"].(map[string]any); ok {
			ids[src["id"].(string)] = true
		}
	}

	for id := range ids {
		status, out := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code_definition","arguments":{"name":`+quote(id)+`}}}`)
		res, _ := out["result"].(map[string]any)
		if status != 200 || res == nil || res["isError"] == true {
			t.Errorf("code_definition does not resolve %q: %v", id, out)
		}
	}
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
