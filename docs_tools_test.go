package mcp_test

import (
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/runtimetools"
)

// TestReadmeNamesEveryTool: the README's table of packages names exactly
// the tools each tool package returns, and its table of runtime tools
// gives each tool's permission.
func TestReadmeNamesEveryTool(t *testing.T) {
	tools := packageTools(t)
	readme := readFile(t, "README.md")
	toolName := regexp.MustCompile("`([a-z]+_[a-z_]+)`")
	row := func(prefix string) string {
		for line := range strings.Lines(readme) {
			if strings.HasPrefix(line, prefix) {
				return line
			}
		}
		t.Fatalf("README.md has no table row starting with %q", prefix)
		return ""
	}
	for pkg, tools := range tools {
		var listed, want []string
		for _, m := range toolName.FindAllStringSubmatch(row("| `mcp/"+pkg+"` |"), -1) {
			listed = append(listed, m[1])
		}
		for _, tool := range tools {
			want = append(want, tool.Info().Name)
		}
		slices.Sort(listed)
		slices.Sort(want)
		if !slices.Equal(listed, want) {
			t.Errorf("README.md lists the tools of %s as %v; the package returns %v", pkg, listed, want)
		}
	}
	for _, tool := range tools["runtimetools"] {
		info := tool.Info()
		if !strings.Contains(row("| `"+info.Name+"` |"), "| `"+info.Permission+"` |") {
			t.Errorf("README.md does not give %s's permission %s", info.Name, info.Permission)
		}
	}
}

// packageTools returns the tools each tool package builds (every one:
// runtimetools with logs, health checks and variables), by package name.
func packageTools(t *testing.T) map[string][]mcp.Tool {
	t.Helper()
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
	return map[string][]mcp.Tool{"codetools": code, "runtimetools": runtime, "enquiry": enq}
}
