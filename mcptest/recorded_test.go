package mcptest

import (
	"flag"
	"slices"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/mcptest/internal/examples"
	"github.com/embedmcp/mcp/testsupport/shop"
)

var update = flag.Bool("update", false, "rewrite the recorded calls in testdata/recorded and the pages in docs/tools")

// ownTools are the example tools echo and add, which the tests of this
// package call.
func ownTools(t *testing.T) *mcp.ToolSet {
	t.Helper()
	tools, err := examples.Tools()
	if err != nil {
		t.Fatal(err)
	}
	ts := mcp.NewToolSet()
	if err := ts.Register(tools...); err != nil {
		t.Fatal(err)
	}
	return ts
}

// recordedTools are the tools whose recorded calls live in testdata/recorded
// and whose pages live in docs/tools: ownTools, the code tools over the
// catalog of the shop fixture (its source snapshot, registered
// documentation and build, plus the test binary's function table and the
// tools of this registry), and the enquiry tools over this registry.
func recordedTools(t *testing.T) *mcp.ToolSet {
	t.Helper()
	ts := ownTools(t)
	if err := enquiry.Register(ts, nil); err != nil {
		t.Fatal(err)
	}
	if err := codetools.Register(ts, shop.Catalog("shopd")); err != nil {
		t.Fatal(err)
	}
	return ts
}

// shopServer serves the shop fixture's registry, with the enquiry tools
// (product prefix "shop"); scenarios call it with "-- fixture --\nshop".
func shopServer(t *testing.T) mcp.Protocol {
	t.Helper()
	tools, err := shop.Tools()
	if err != nil {
		t.Fatal(err)
	}
	ts := mcp.NewToolSet()
	if err := ts.Register(tools...); err != nil {
		t.Fatal(err)
	}
	if err := enquiry.Register(ts, &enquiry.Options{Prefix: shop.Prefix}); err != nil {
		t.Fatal(err)
	}
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "shop", Version: "1.0.0"})
}

// ownMask masks the volatile values of recordedTools: timings, the server's
// clock, and the counts of the code catalog that come from the function
// table of the running (test) binary, which differ between Go releases,
// platforms and build flags such as -race; and the data only views read
// (docs/views.md), which their packages' tests check.
var ownMask = map[string]string{
	"_meta.embedmcp/view":                    "<view data>",
	"structuredContent.meta.serverMs":        "<timing>",
	"structuredContent.observedAt":           "<time>",
	"structuredContent.coverage.entries":     "<binary>",
	"structuredContent.coverage.deps":        "<binary>",
	"structuredContent.coverage.std":         "<binary>",
	"structuredContent.coverage.packages":    "<binary>",
	"structuredContent.coverage.byKind.func": "<binary>",
}

func TestRecordedCalls(t *testing.T) {
	srv := mcp.NewServer(recordedTools(t), mcp.GrantsAuthorizer{}, &mcp.Options{Name: "examples", Version: "1.0.0"})
	Replay(t, srv, "testdata/recorded", &ReplayOptions{
		Caller:   Caller("tester", "examples.*", codetools.Permission, "shop.*"),
		Fixtures: map[string]mcp.Protocol{"shop": shopServer(t)},
		Mask:     ownMask,
		Update:   *update,
	})
}

// ownDocs show whole answers: the code tools answer with their coverage
// first, which would push the results past the default cut.
var ownDocs = &DocOptions{MaxLines: 100}

func TestToolDocs(t *testing.T) {
	tools := slices.Collect(recordedTools(t).All())
	if *update {
		if err := WriteToolDocs(tools, "testdata/recorded", "../docs/tools", ownDocs); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckToolDocs(tools, "testdata/recorded", "../docs/tools", ownDocs); err != nil {
		t.Fatal(err)
	}
}

func TestRecordedToolsMeetTheContracts(t *testing.T) {
	ts := recordedTools(t)
	for tool := range ts.All() {
		// The enquiry tools need no permission: they only show tools the
		// caller may use anyway.
		name := tool.Info().Name
		opts := &CheckOptions{AllowNoPermission: name == enquiry.DefaultDetailName || name == enquiry.DefaultCatalogueName}
		if err := CheckTool(tool, opts); err != nil {
			t.Errorf("%s:\n%v", tool.Info().Name, err)
		}
	}
	if err := CheckRegistry(ts); err != nil {
		t.Error(err)
	}
}
