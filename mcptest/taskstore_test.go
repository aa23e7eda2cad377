package mcptest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp/mcptest"
	"github.com/embedmcp/mcp/tasks"
)

// forgetful loses every task it is given: Create succeeds, Get finds none.
type forgetful struct{ *tasks.MemoryStore }

func (forgetful) Create(context.Context, *tasks.Record, time.Duration) error { return nil }

// CheckTaskStore, deprecated, still reports tasks.TestStore's violations
// as mcptest Violations under "task-store/".
func TestCheckTaskStoreWrapsTestStore(t *testing.T) {
	t.Parallel()
	if err := mcptest.CheckTaskStore(context.Background(), tasks.NewMemoryStore(nil)); err != nil {
		t.Fatalf("the memory store: %v", err)
	}
	err := mcptest.CheckTaskStore(context.Background(), forgetful{tasks.NewMemoryStore(nil)})
	var v *mcptest.Violation
	if !errors.As(err, &v) {
		t.Fatalf("a store that loses every task: %v (%T), want a *mcptest.Violation", err, err)
	}
	if !strings.HasPrefix(v.Rule, "task-store/") {
		t.Errorf("Violation.Rule = %q, want it under task-store/", v.Rule)
	}
	var tv *tasks.Violation
	if errors.As(err, &tv) {
		t.Errorf("CheckTaskStore leaks a *tasks.Violation: %v", tv)
	}
}
