package codetools

import (
	"testing"

	"github.com/embedmcp/mcp/codetools/internal/index"
)

// TestKindNamesMatchTheIndex checks that the Kind constants of the API are
// the names the index gives its kinds, in the index's order, and that
// the index names a tool entry without ToolIDPrefix.
func TestKindNamesMatchTheIndex(t *testing.T) {
	want := []string{KindFunc, KindMethod, KindType, KindConst, KindVar, KindPackage, KindTool, KindDoc, KindField}
	for k := index.Kind(0); int(k) < len(index.KindNames); k++ {
		if got := k.String(); got != want[k] {
			t.Errorf("index kind %d is named %q, the API says %q", k, got, want[k])
		}
		if p, ok := index.ParseKind(want[k]); !ok || p != k {
			t.Errorf("ParseKind(%q) = %d, %v; want %d", want[k], p, ok, k)
		}
	}
	e := &index.Entry{ID: ToolIDPrefix + "code_search", Kind: index.KindTool}
	if got := index.EntryName(e); got != "code_search" {
		t.Errorf("the name of tool entry %s is %q, want code_search", e.ID, got)
	}
}
