package runtimetools

import (
	"os"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/mcptest"
)

// TestTextAnswers: every tool's text is lines a model reads, not the JSON
// of its structured content, and names no file by the build machine's
// absolute path.
func TestTextAnswers(t *testing.T) {
	srv, _ := recordedServer(t)
	c := mcptest.NewClient(t, srv, &mcptest.ClientOptions{Caller: mcptest.Caller("oncall", allGrants...)})
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]string{
		GoroutinesToolName: "created by github.com/embedmcp/mcp/runtimetools.leakForRecording github.com/embedmcp/mcp/runtimetools/recorded_test.go:",
		MetricsToolName:    "/sched/goroutines:goroutines gauge ",
		ProfileToolName:    "flat% flat cum% function file:line",
		LogsToolName:       `ERROR `,
		BuildToolName:      " dependencies:",
		VarsToolName:       "checkout ",
		HealthToolName:     "cache failed ",
	} {
		args := map[string]any{}
		if tool == ProfileToolName {
			args["kind"] = "goroutine"
		}
		if tool == VarsToolName {
			args["names"] = []string{"checkout"}
		}
		res, err := c.CallTool(tool, args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", tool, err, mcptest.ResultText(res))
		}
		text := res.Content[0].Text
		if strings.HasPrefix(text, "{") || !strings.Contains(text, want) || strings.Contains(text, wd) {
			t.Errorf("%s: text without %q, or JSON, or with %s:\n%s", tool, want, wd, text)
		}
	}
}
