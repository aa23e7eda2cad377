package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/embedmcp/mcp/tasks"
)

// A store keeps tasks as records; a change applies to the version it was
// made from, so that of two racing changes exactly one wins.
func ExampleNewMemoryStore() {
	ctx := context.Background()
	store := tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasks: 100})
	stop := store.Watch(func(ch tasks.Change) { fmt.Println("changed:", ch.ID, ch.Version, ch.Status) })
	defer stop()

	now := time.Now()
	rec := &tasks.Record{ID: "t1", Version: 1, Status: tasks.Working, Created: now, Updated: now,
		Expires: now.Add(time.Hour), Principal: "alice", Tool: "report", Owner: "replica-a"}
	if err := store.Create(ctx, rec, 30*time.Second); err != nil {
		panic(err)
	}

	done := *rec
	done.Version, done.Status, done.Owner = 2, tasks.Completed, ""
	fmt.Println("first swap:", store.Swap(ctx, &done, 0))
	fmt.Println("same version again is a conflict:", errors.Is(store.Swap(ctx, &done, 0), tasks.ErrConflict))

	got, err := store.Get(ctx, "t1")
	fmt.Println(got.Status, got.Status.Terminal(), err)
	// Output:
	// changed: t1 1 working
	// changed: t1 2 completed
	// first swap: <nil>
	// same version again is a conflict: true
	// completed true <nil>
}

// TestStore checks a Store implementation against the contract, as
// testing/fstest.TestFS checks a file system; call it from a test.
func ExampleTestStore() {
	if err := tasks.TestStore(context.Background(), tasks.NewMemoryStore(nil)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the memory store keeps the contract")
	// Output:
	// the memory store keeps the contract
}
