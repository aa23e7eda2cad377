// Command sshserver serves a maintenance shell over SSH (gliderlabs/ssh)
// with an admin API and the code tools at /mcp: a real service of the
// search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/sshsnap ./sshserver
//	go run ./sshserver -snapshot /tmp/sshsnap -user alice -key ~/.ssh/id_ed25519.pub [-ssh 127.0.0.1:2222]
package main

import (
	"flag"
	"os"
	"strings"
	"time"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/sshapp"
)

func main() {
	f := evalcmd.New("sshserver", "127.0.0.1:9005")
	sshAddr := flag.String("ssh", "127.0.0.1:2222", "SSH listen `address`")
	user := flag.String("user", "", "`name` of the one account")
	keyFile := flag.String("key", "", "authorized_keys `file` of the account")
	forward := flag.String("forward", "", "comma-separated host:port `destinations` port forwarding may reach")
	flag.Parse()
	cfg := sshapp.Config{SSHAddr: *sshAddr, Banner: "maintenance shell\n", IdleTimeout: 10 * time.Minute, MaxSessionTime: 8 * time.Hour}
	if *user != "" && *keyFile != "" {
		data, err := os.ReadFile(*keyFile)
		f.Check(err)
		cfg.AuthorizedKeys = map[string][]string{*user: strings.Split(strings.TrimSpace(string(data)), "\n")}
	}
	if *forward != "" {
		cfg.ForwardTo = strings.Split(*forward, ",")
	}
	if f.Evaluating() {
		cfg.SSHAddr = ""
	}
	mcpSrv, svc, h, err := sshapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer svc.Close()
	f.Serve(mcpSrv, sshapp.Grants, h, "ssh", svc.Addr())
}
