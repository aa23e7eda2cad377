package mcp_test

import (
	"slices"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/google/jsonschema-go/jsonschema"
)

// TestSchemaFastPathToolPackages runs the fast path's differential check
// on the input and output schemas of every tool the tool packages build:
// each schema the fast path takes gives the same answers as jsonschema-go.
func TestSchemaFastPathToolPackages(t *testing.T) {
	t.Parallel()
	schemas := map[string]*jsonschema.Schema{}
	for _, tools := range packageTools(t) {
		for _, tool := range tools {
			info := tool.Info()
			out := info.OutputSchema
			if out == nil && info.Guide != nil {
				out = info.Guide.OutputSchema // checked by NewTool, shown by tool_detail
			}
			for which, s := range map[string]*jsonschema.Schema{"input": info.InputSchema, "output": out} {
				if s != nil {
					schemas[info.Name+" "+which] = s
				}
			}
		}
	}
	fast, compared := mcp.SchemaFastPathDifferential(t, schemas)
	for name := range schemas {
		if !slices.Contains(fast, name) {
			t.Logf("jsonschema-go only: %s", name)
		}
	}
	t.Logf("%d of %d tool schemas on the fast path, %d instances compared", len(fast), len(schemas), compared)
	if len(fast) < len(schemas)/2 || compared < 1000 {
		t.Errorf("%d of %d tool schemas on the fast path, %d instances compared", len(fast), len(schemas), compared)
	}
}
