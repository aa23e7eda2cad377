// Package s3app is the real service of the search evaluation: gofakes3
// (github.com/johannesboyne/gofakes3, a fake S3 server nobody here wrote)
// with its in-memory backend, and, at /mcp, the code tools and the tool
// enquiry over a source snapshot of the service and its dependencies, as an
// adopter would serve them. Command s3server runs it.
package s3app

import (
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// NewService returns the MCP server over snapshot (a directory written by
// mcpsnapshot; nil for none) and the HTTP handler that serves S3 at / and
// MCP at /mcp.
func NewService(snapshot fs.FS, logger *slog.Logger) (*mcp.Server, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "s3server"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "s3server", Version: "0.1.0", Logger: logger})
	s3 := gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(true))
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.Handle("/", s3.Server())
	return srv, mux, nil
}
