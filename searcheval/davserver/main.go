// Command davserver serves a team's calendars over CalDAV and a shared
// directory over WebDAV (emersion/go-webdav) with an admin API and the
// code tools at /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/davsnap ./davserver
//	go run ./davserver -snapshot /tmp/davsnap -users alice:secret,bob:secret [-files /srv/share -readonly]
package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/embedmcp/mcp/searcheval/davapp"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
)

func main() {
	f := evalcmd.New("davserver", "127.0.0.1:9008")
	users := flag.String("users", "", "comma-separated `name:password` accounts")
	files := flag.String("files", "", "`directory` shared under /files/")
	readOnly := flag.Bool("readonly", false, "share the directory read-only")
	flag.Parse()
	cfg := davapp.Config{Users: map[string]string{}, FilesDir: *files, ReadOnlyFiles: *readOnly}
	for _, acct := range strings.Split(*users, ",") {
		if acct == "" {
			continue
		}
		name, password, ok := strings.Cut(acct, ":")
		if !ok {
			f.Check(fmt.Errorf("account %q: want name:password", acct))
		}
		cfg.Users[name] = password
	}
	mcpSrv, _, h, err := davapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	f.Serve(mcpSrv, davapp.Grants, h, "dav", "/dav/", "files", *files)
}
