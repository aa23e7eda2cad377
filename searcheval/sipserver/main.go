// Command sipserver serves an office phone system's SIP registrar and
// stateful proxy (sipgo) with an admin API and the code tools at /mcp: a
// real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/sipsnap ./sipserver
//	go run ./sipserver -snapshot /tmp/sipsnap -users 201:secret,202:secret [-sip 127.0.0.1:5060]
package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/sipapp"
)

func main() {
	f := evalcmd.New("sipserver", "127.0.0.1:9017")
	sipAddr := flag.String("sip", "127.0.0.1:5060", "SIP (UDP) listen `address`")
	users := flag.String("users", "", "comma-separated `extension:password` accounts")
	realm := flag.String("realm", "office", "digest `realm`")
	maxExpires := flag.Duration("max-expires", 0, "longest registration granted (`duration`; 0 for one hour)")
	flag.Parse()
	cfg := sipapp.Config{SIPAddr: *sipAddr, Realm: *realm, Users: map[string]string{}, MaxExpires: *maxExpires}
	for _, acct := range strings.Split(*users, ",") {
		if acct == "" {
			continue
		}
		ext, password, ok := strings.Cut(acct, ":")
		if !ok {
			f.Check(fmt.Errorf("account %q: want extension:password", acct))
		}
		cfg.Users[ext] = password
	}
	if f.Evaluating() {
		cfg.SIPAddr = ""
	}
	mcpSrv, reg, h, err := sipapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer reg.Close()
	f.Serve(mcpSrv, sipapp.Grants, h, "sip", reg.Addr())
}
