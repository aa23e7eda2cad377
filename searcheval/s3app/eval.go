package s3app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
)

// WriteSnapshot writes the -deps snapshot of s3server into dir with
// mcpsnapshot, as an adopter's go generate would; module is the directory
// of the searcheval module.
func WriteSnapshot(module, dir string) error {
	cmd := exec.Command("go", "run", "github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot", "-deps", "-o", dir, "./s3server")
	cmd.Dir = module
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mcpsnapshot: %v\n%s", err, out)
	}
	return nil
}

// RepositoryServer returns an MCP server with the code tools over this
// repository's code as the codeserver example embeds it: its snapshot (in
// repo/examples/codeserver/snapshot) and its main module.
func RepositoryServer(repo string) (*mcp.Server, error) {
	bi, _ := debug.ReadBuildInfo()
	if bi == nil {
		bi = &debug.BuildInfo{}
	}
	own := *bi
	own.Main = debug.Module{Path: "github.com/embedmcp/mcp"}
	own.Path = "github.com/embedmcp/mcp/examples/codeserver"
	snap := filepath.Join(repo, "examples", "codeserver", "snapshot")
	if _, err := os.Stat(snap); err != nil {
		return nil, err
	}
	ts := mcp.NewToolSet()
	cat := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(snap), BuildInfo: &own})
	if err := codetools.Register(ts, cat); err != nil {
		return nil, err
	}
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), nil
}
