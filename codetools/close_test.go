package codetools

import (
	"context"
	"slices"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestCloseStopsWatch: Register follows the ToolSet's changes until Close,
// which stops the watch it started.
func TestCloseStopsWatch(t *testing.T) {
	c := NewCatalog(nil)
	ts := mcp.NewToolSet()
	if err := Register(ts, c); err != nil {
		t.Fatal(err)
	}
	known := func(name string) bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return slices.ContainsFunc(c.tools, func(d regDoc) bool { return d.id == ToolIDPrefix+name })
	}
	tool := func(name string) mcp.Tool {
		return mcp.NewRawTool(mcp.ToolInfo{Name: name, Description: "A tool."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult(""), nil })
	}
	if err := ts.Register(tool("before_close")); err != nil {
		t.Fatal(err)
	}
	if !known("before_close") {
		t.Fatal("a tool registered before Close is not in the catalog")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ts.Register(tool("after_close")); err != nil {
		t.Fatal(err)
	}
	if known("after_close") {
		t.Error("Close did not stop the watch: a tool registered after it reached the catalog")
	}
	if err := c.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}
