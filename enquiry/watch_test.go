package enquiry

import (
	"sync/atomic"
	"testing"

	"github.com/embedmcp/mcp"
)

// countingSource counts the watches of a ToolSet that are not stopped.
type countingSource struct {
	*mcp.ToolSet
	active atomic.Int64
}

func (c *countingSource) Watch(fn func()) func() {
	stop := c.ToolSet.Watch(fn)
	c.active.Add(1)
	return func() {
		stop()
		c.active.Add(-1)
	}
}

// TestWatchNotLeaked: tools that cannot be made start no watch, and tools
// that are made start one whose stop function (which Register calls when
// the tools cannot be registered) ends it.
func TestWatchNotLeaked(t *testing.T) {
	src := &countingSource{ToolSet: mcp.NewToolSet()}
	if _, _, err := newTools(src, &Options{DetailName: "bad name"}); err == nil {
		t.Fatal("a bad tool name was accepted")
	}
	if n := src.active.Load(); n != 0 {
		t.Errorf("failed Tools left %d watches", n)
	}
	tools, stop, err := newTools(src, nil)
	if err != nil || len(tools) != 2 {
		t.Fatalf("newTools: %v, %d tools", err, len(tools))
	}
	if n := src.active.Load(); n != 1 {
		t.Errorf("%d watches, want 1", n)
	}
	stop()
	if n := src.active.Load(); n != 0 {
		t.Errorf("%d watches after stop, want 0", n)
	}
}
