// Command sftpserver serves a partners' drop box over SFTP (pkg/sftp) with
// an admin API and the code tools at /mcp: a real service of the search
// evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/sftpsnap ./sftpserver
//	go run ./sftpserver -snapshot /tmp/sftpsnap -partners acme:secret,globex:secret [-sftp 127.0.0.1:2022]
package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/sftpapp"
)

func main() {
	f := evalcmd.New("sftpserver", "127.0.0.1:9010")
	sftpAddr := flag.String("sftp", "127.0.0.1:2022", "SFTP listen `address`")
	partners := flag.String("partners", "", "comma-separated `name:password` accounts")
	quota := flag.Int64("quota", 100<<20, "`bytes` one partner may store")
	flag.Parse()
	cfg := sftpapp.Config{SSHAddr: *sftpAddr, Partners: map[string]string{}, QuotaBytes: *quota}
	for _, acct := range strings.Split(*partners, ",") {
		if acct == "" {
			continue
		}
		name, password, ok := strings.Cut(acct, ":")
		if !ok {
			f.Check(fmt.Errorf("account %q: want name:password", acct))
		}
		cfg.Partners[name] = password
	}
	if f.Evaluating() {
		cfg.SSHAddr = ""
	}
	mcpSrv, box, h, err := sftpapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer box.Close()
	f.Serve(mcpSrv, sftpapp.Grants, h, "sftp", box.Addr())
}
