package mcptest

import (
	"flag"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest/internal/examples"
)

var update = flag.Bool("update", false, "rewrite the recorded calls in testdata/recorded and the pages in docs/tools")

// ownTools are the tools whose recorded calls live in testdata/recorded and
// whose pages live in docs/tools.
func ownTools(t *testing.T) *mcp.ToolSet {
	t.Helper()
	tools, err := examples.Tools()
	if err != nil {
		t.Fatal(err)
	}
	ts := mcp.NewToolSet(nil)
	if err := ts.Register(tools...); err != nil {
		t.Fatal(err)
	}
	return ts
}

// ownMask masks the volatile values of ownTools.
var ownMask = map[string]string{
	"structuredContent.meta.serverMs": "<timing>",
	"**.observedAt":                   "<time>",
}

func TestRecordedCalls(t *testing.T) {
	srv := mcp.NewServer(ownTools(t), mcp.GrantsAuthorizer{}, &mcp.Options{Name: "examples", Version: "1.0.0"})
	Replay(t, srv, "testdata/recorded", &ReplayOptions{
		Caller: Caller("tester", "examples.*"),
		Mask:   ownMask,
		Update: *update,
	})
}

func TestToolDocs(t *testing.T) {
	tools := ownTools(t).Tools()
	if *update {
		if err := WriteToolDocs(tools, "testdata/recorded", "../docs/tools", nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckToolDocs(tools, "testdata/recorded", "../docs/tools", nil); err != nil {
		t.Fatal(err)
	}
}

func TestOwnToolsMeetTheContracts(t *testing.T) {
	ts := ownTools(t)
	for _, tool := range ts.Tools() {
		if err := CheckTool(tool, nil); err != nil {
			t.Errorf("%s:\n%v", tool.Info().Name, err)
		}
	}
	if err := CheckRegistry(ts, mcp.GrantsAuthorizer{}, nil); err != nil {
		t.Error(err)
	}
}
