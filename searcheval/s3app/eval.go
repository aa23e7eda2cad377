package s3app

import (
	"fmt"
	"os"
	"os/exec"
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

// WriteRepositorySnapshot writes the snapshot of the codeserver example
// into dir with mcpsnapshot, as its go generate would (that snapshot is
// not committed); repo is the repository's root.
func WriteRepositorySnapshot(repo, dir string) error {
	cmd := exec.Command("go", "run", "./codetools/cmd/mcpsnapshot", "-o", dir, "./examples/codeserver")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mcpsnapshot: %v\n%s", err, out)
	}
	return nil
}

// RepositoryServer returns an MCP server with the code tools over this
// repository's code as the codeserver example embeds it: its snapshot,
// which it writes into snap with [WriteRepositorySnapshot], and its main
// module; repo is the repository's root.
func RepositoryServer(repo, snap string) (*mcp.Server, error) {
	bi, _ := debug.ReadBuildInfo()
	if bi == nil {
		bi = &debug.BuildInfo{}
	}
	own := *bi
	own.Main = debug.Module{Path: "github.com/embedmcp/mcp"}
	own.Path = "github.com/embedmcp/mcp/examples/codeserver"
	if err := WriteRepositorySnapshot(repo, snap); err != nil {
		return nil, err
	}
	ts := mcp.NewToolSet()
	cat := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS(snap), BuildInfo: &own})
	if err := codetools.Register(ts, cat); err != nil {
		return nil, err
	}
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), nil
}
