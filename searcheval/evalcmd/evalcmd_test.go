package evalcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/testsupport/searcheval"
)

// TestCheckIDs checks that -check passes a set whose ids all resolve and
// names the ids that do not: a typo in a set must fail, not count as a
// miss. The catalog is this test binary's own (no snapshot), which links
// checkIDs.
func TestCheckIDs(t *testing.T) {
	ts := mcp.NewToolSet()
	if err := codetools.Register(ts, codetools.NewCatalog(&codetools.Options{Server: "evalcmd-test"})); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil)
	c := &searcheval.Client{Server: srv, Caller: searcheval.Caller([]string{"diagnostics.*"})}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const id = "github.com/embedmcp/mcp/searcheval/evalcmd.checkIDs"
	good := write("good.tsv", "# a set\nphrase\tcheck the ids of a set\t"+id+"\n")
	if err := checkIDs(c, good); err != nil {
		t.Errorf("a set whose id resolves: %v", err)
	}
	bad := write("bad.tsv", "phrase\tcheck the ids of a set\t"+id+" | "+id+"Typo\nstd\tx\t"+id+"\n")
	err := checkIDs(c, bad)
	if err == nil || !strings.Contains(err.Error(), id+"Typo") || strings.Contains(err.Error(), id+",") {
		t.Errorf("a set with one unknown id: %v, want an error naming that id alone", err)
	}
	if err := checkIDs(c, write("kind.tsv", "nokind\tx\t"+id+"\n")); err == nil {
		t.Error("a set with an unknown kind: no error")
	}
}
