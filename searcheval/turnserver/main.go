// Command turnserver serves a TURN relay (pion/turn) with the code tools at
// /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/turnsnap ./turnserver
//	go run ./turnserver -snapshot /tmp/turnsnap -public 203.0.113.5 -user alice=secret
package main

import (
	"flag"
	"strings"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/turnapp"
)

func main() {
	f := evalcmd.New("turnserver", "127.0.0.1:9003")
	udp := flag.String("turn", "0.0.0.0:3478", "TURN UDP listen `address`")
	public := flag.String("public", "127.0.0.1", "public `IP` of the relayed addresses")
	user := flag.String("user", "", "`name=password` of the one account")
	flag.Parse()
	users := map[string]string{}
	if name, pw, ok := strings.Cut(*user, "="); ok {
		users[name] = pw
	}
	cfg := turnapp.Config{ListenUDP: *udp, PublicIP: *public, Realm: "example.org", Users: users,
		MinPort: 50000, MaxPort: 55000, AllocationsPer: 10}
	if f.Evaluating() {
		cfg.ListenUDP = "127.0.0.1:0"
	}
	mcpSrv, relay, h, err := turnapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	if !f.Evaluating() {
		defer relay.Close()
	}
	f.Serve(mcpSrv, turnapp.Grants, h, "turn", *udp)
}
