package enquiry

import (
	"testing"

	"github.com/embedmcp/mcp"
)

// A tool only views call (visibility app) is not the model's: the
// enquiry tools do not show it.
func TestAppOnlyToolsAreNotShown(t *testing.T) {
	ts := mcp.NewToolSet()
	if err := ts.Register(
		mcp.NewRawTool(mcp.ToolInfo{Name: "chart_page", Description: "A page of the chart.", Visibility: mcp.VisibleToApp}, nil),
		mcp.NewRawTool(mcp.ToolInfo{Name: "chart", Description: "The chart.", Visibility: mcp.VisibleToModel | mcp.VisibleToApp}, nil),
	); err != nil {
		t.Fatal(err)
	}
	if err := Register(ts, &Options{}); err != nil {
		t.Fatal(err)
	}
	if a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"chart"}`); a.Status != "ok" {
		t.Errorf("chart: %s", asJSON(a))
	}
	if a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"chart_page"}`); a.Status == "ok" && a.Match == "exact" {
		t.Errorf("the app-only tool is shown: %s", asJSON(a))
	}
}
