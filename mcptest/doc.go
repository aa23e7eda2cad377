// Package mcptest is the net/http/httptest of embedmcp: helpers to test MCP
// tools, registries, authorizers and handlers.
//
// # Fakes
//
// Caller builds an mcp.Caller with given grants; Context builds the context
// a tool's Validate and Execute receive from a Server (caller, Authorizer,
// Exchange). Record, Grants and CallerGrants return an Authorizer that
// records every question it is asked (Record(mcp.AllowAll()) allows
// everything), so a test can assert which permissions were checked.
//
// # Clients
//
// NewClient returns a Client that calls a Protocol in process, as a chosen
// caller under a chosen protocol revision: Initialize, ListTools, CallTool,
// Do and Raw, and the typed helper Call. NewHTTPServer starts an
// httptest.Server for an http.Handler; its MCPClient speaks JSON-RPC over
// HTTP with the headers of the revision.
//
// # Checkers
//
// CheckTool, CheckRegistry, CheckViews and CheckAuthorizer check the contracts the
// library relies on, as testing/fstest.TestFS does for file systems, and
// return every Violation found. A task store is checked by
// tasks.TestStore.
//
// # Recorded calls
//
// Replay replays recorded calls (txtar files, see Scenario) against a
// Protocol and fails with a line diff when an answer changes; volatile
// values are masked by path. WriteToolDocs renders a Markdown page per
// tool from its description and its recorded calls, and CheckToolDocs
// fails when the committed pages differ, so the docs cannot drift. Wire
// both to a flag of your test binary:
//
//	var update = flag.Bool("update", false, "rewrite recorded calls and tool docs")
//
//	func TestRecordedCalls(t *testing.T) {
//		srv := mcp.NewServer(registry(), mcp.GrantsAuthorizer{}, nil)
//		mcptest.Replay(t, srv, "testdata/recorded", &mcptest.ReplayOptions{
//			Caller: mcptest.Caller("tester", "myapp.*"),
//			Mask:   map[string]string{"structuredContent.meta.serverMs": "<timing>"},
//			Update: *update,
//		})
//	}
//
//	func TestToolDocs(t *testing.T) {
//		tools := slices.Collect(registry().All())
//		if *update {
//			if err := mcptest.WriteToolDocs(tools, "testdata/recorded", "docs/tools", nil); err != nil {
//				t.Fatal(err)
//			}
//		}
//		if err := mcptest.CheckToolDocs(tools, "testdata/recorded", "docs/tools", nil); err != nil {
//			t.Fatal(err)
//		}
//	}
//
// Run go test -update to record new answers and regenerate the pages;
// review the change with git diff. Scenario directories whose names begin
// with "_" hold protocol-level calls (tools/list, errors) that are
// replayed but belong to no tool page.
package mcptest
