package mcp_test

import (
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/runtimetools"
	"github.com/google/jsonschema-go/jsonschema"
)

// TestSchemaFastPathToolPackages runs the fast path's differential check
// on the input and output schemas of every tool the tool packages build:
// each schema the fast path takes gives the same answers as jsonschema-go.
func TestSchemaFastPathToolPackages(t *testing.T) {
	code, err := codetools.Tools(codetools.NewCatalog(nil))
	if err != nil {
		t.Fatal(err)
	}
	logs, err := runtimetools.NewLogRing(slog.DiscardHandler, nil)
	if err != nil {
		t.Fatal(err)
	}
	health, err := runtimetools.NewHealth(nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime, err := runtimetools.Tools(&runtimetools.Options{
		Logs: logs, Health: health, Vars: func(func(string, fmt.Stringer)) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	enq, err := enquiry.Tools(mcp.NewToolSet(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range append(append(code, runtime...), enq...) {
		info := tool.Info()
		for which, s := range map[string]*jsonschema.Schema{"input": info.InputSchema, "output": info.OutputSchema} {
			if s != nil {
				schemas[info.Name+" "+which] = s
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
