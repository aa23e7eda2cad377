// Command lspserver serves a language server for deployment manifests
// (.deploy files) to a web editor over a WebSocket at /lsp (tliron/glsp):
// diagnostics, completion, hover, go to definition and the outline, with
// the code tools at /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/lspsnap ./lspserver
//	go run ./lspserver -snapshot /tmp/lspsnap -origins editor.platform.internal -max-replicas 20
package main

import (
	"flag"
	"strings"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/lspapp"
)

func main() {
	f := evalcmd.New("lspserver", "127.0.0.1:9022")
	origins := flag.String("origins", "", "comma-separated `hosts` whose pages may connect besides this one")
	maxReplicas := flag.Int("max-replicas", 50, "`replicas` a service may ask for at most")
	debug := flag.Bool("debug-protocol", false, "log every JSON-RPC message")
	flag.Parse()
	cfg := lspapp.Config{MaxReplicas: *maxReplicas, DebugProtocol: *debug}
	for _, o := range strings.Split(*origins, ",") {
		if o != "" {
			cfg.AllowedHosts = append(cfg.AllowedHosts, o)
		}
	}
	mcpSrv, _, h, err := lspapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	f.Serve(mcpSrv, lspapp.Grants, h)
}
