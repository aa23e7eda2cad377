package mcp_test

// Task records own exactly what they keep: nothing of the request body
// beyond the arguments and _meta they store stays alive with a task, and
// the memory store counts what its records hold.

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// heapAfterGC is the live heap once garbage is collected.
func heapAfterGC() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// retainServer serves "done", a tool that runs only as a task and finishes
// at once, keeping its tasks in store.
func retainServer(t *testing.T, store tasks.Store) *mcp.Server {
	t.Helper()
	ts := mcp.NewToolSet()
	hostileMust(t, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "done", Description: "Done.", TaskSupport: mcp.TaskRequired},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("ok"), nil })))
	return mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{Store: store, MaxRunningPerPrincipal: -1}})
}

// junkMember is a params member of about n bytes the Server ignores.
func junkMember(n int) string {
	s := `"` + strings.Repeat("j", 60000) + `",`
	return `"junk":[` + strings.Repeat(s, n/len(s)) + `"j"]`
}

// TestTaskRecordsDoNotPinBodies: 32 task creations, each carrying 3.9 MB
// outside the stored fields, leave the heap at most a quarter of those
// bodies above where it started once the tasks are done (before the fix
// each task kept its whole body alive for its time to live). Under -race,
// whose instrumentation makes parsing slow, the junk is 1 MB a request, in
// 128 requests.
func TestTaskRecordsDoNotPinBodies(t *testing.T) {
	store := tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasksPerPrincipal: -1})
	s := retainServer(t, store)
	c := newTaskClient(t, s, "alice")
	// Pinned, the bodies would keep 125 MB alive, four times the bound.
	junkBytes, n := 3_900_000, 32
	if raceEnabled {
		junkBytes, n = 1_000_000, 128
	}
	junk := junkMember(junkBytes)
	c.start("done", `{"n":1}`) // warm up
	before := heapAfterGC()
	for range n {
		r := c.do("tools/call", `"name":"done","arguments":{"n":1},`+junk)
		if r.str("resultType") != "task" {
			t.Fatalf("no task: %.300s", r.Raw)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil { // waits for the tasks to finish
		t.Fatal(err)
	}
	after := heapAfterGC()
	grew := int64(after) - int64(before)
	t.Logf("%d tasks: heap grew %d KiB; the store counts %d KiB", n+1, grew>>10, store.Bytes()>>10)
	if bound := int64(n*junkBytes) / 4; grew > bound {
		t.Errorf("%d tasks made with %d-byte bodies keep %d MiB alive, want at most %d MiB", n, junkBytes, grew>>20, bound>>20)
	}
	if store.Len() != n+1 {
		t.Errorf("store holds %d tasks, want %d", store.Len(), n+1)
	}
	runtime.KeepAlive(s)
}

// TestTaskStoreCountsWhatItKeeps: the heap a finished task keeps alive is
// at most 1.5 times what tasks.MemoryStore counts against MaxBytes, plus the
// engine's bounded record of the tasks it acknowledged.
func TestTaskStoreCountsWhatItKeeps(t *testing.T) {
	var n int64 = 4000
	if raceEnabled {
		n = 1000
	}
	store := tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasksPerPrincipal: -1})
	s := retainServer(t, store)
	c := newTaskClient(t, s, "alice")
	c.start("done", `{"n":1}`) // warm up
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	counted0 := store.Bytes()
	before := heapAfterGC()
	for i := range n {
		// Some bytes outside what is stored, and arguments of varied sizes.
		r := c.do("tools/call", `"name":"done","arguments":{"n":`+strings.Repeat("1", int(1+i%40))+`},"pad":"`+strings.Repeat("p", 2000)+`"`)
		if r.str("resultType") != "task" {
			t.Fatalf("no task: %.300s", r.Raw)
		}
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	after := heapAfterGC()
	counted := store.Bytes() - counted0
	grew := int64(after) - int64(before)
	ratio := float64(grew) / float64(counted)
	t.Logf("%d tasks: heap grew %d bytes per task; the store counts %d per task (ratio %.2f)", n, grew/n, counted/n, ratio)
	// The engine also remembers each task it acknowledged (its ledger, at
	// most 10 000 of them, a few hundred bytes each: id, owner, tool and
	// times), so that it can report a task the store lost; the store does
	// not own that, so it is allowed for beside the 1.5 times.
	const ledgerEntry = 512
	if limit := 1.5*float64(counted/n) + ledgerEntry; float64(grew/n) > limit {
		t.Errorf("a task keeps %d bytes alive, %.2f times the %d the store counts; want at most 1.5 times plus %d for the engine's ledger",
			grew/n, ratio, counted/n, ledgerEntry)
	}
	runtime.KeepAlive(s)
}
