// Command imapserver serves a helpdesk's ticket archive over IMAP
// (emersion/go-imap): shared queue mailboxes that agents read, flag and
// reassign in their mail clients, an HTTP intake for new tickets and the
// code tools at /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/imapsnap ./imapserver
//	go run ./imapserver -snapshot /tmp/imapsnap -imap 127.0.0.1:1143 -agents sam=s3cret,kim=k3y -queues billing,outages -insecure-login
//	curl --data-binary @ticket.eml http://127.0.0.1:9021/tickets/billing
package main

import (
	"flag"
	"strings"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/imapapp"
)

func main() {
	f := evalcmd.New("imapserver", "127.0.0.1:9021")
	imapAddr := flag.String("imap", "127.0.0.1:1143", "IMAP listen `address`")
	agents := flag.String("agents", "", "comma-separated `name=password` of the agents")
	queues := flag.String("queues", "", "comma-separated `queues` besides INBOX")
	insecure := flag.Bool("insecure-login", false, "allow LOGIN without TLS")
	flag.Parse()
	cfg := imapapp.Config{Addr: *imapAddr, Agents: map[string]string{}, InsecureLogin: *insecure}
	for _, a := range strings.Split(*agents, ",") {
		if name, pw, ok := strings.Cut(a, "="); ok {
			cfg.Agents[name] = pw
		}
	}
	for _, q := range strings.Split(*queues, ",") {
		if q != "" {
			cfg.Queues = append(cfg.Queues, q)
		}
	}
	if f.Evaluating() {
		cfg.Addr, cfg.Agents = "127.0.0.1:0", map[string]string{"eval": "eval"}
	}
	mcpSrv, a, h, err := imapapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer a.Close()
	f.Serve(mcpSrv, imapapp.Grants, h, "imap", a.Addr())
}
