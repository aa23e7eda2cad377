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
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/embedmcp/mcp/internal/searcheval"
	"github.com/embedmcp/mcp/searcheval/turnapp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9003", "HTTP listen `address`")
	udp := flag.String("turn", "0.0.0.0:3478", "TURN UDP listen `address`")
	public := flag.String("public", "127.0.0.1", "public `IP` of the relayed addresses")
	user := flag.String("user", "", "`name=password` of the one account")
	snap := flag.String("snapshot", "", "source snapshot `directory` written by mcpsnapshot")
	eval := flag.String("eval", "", "run the code_search evaluation set `file` over this service, print the report as JSON and exit")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var fsys fs.FS
	if *snap != "" {
		fsys = os.DirFS(*snap)
	}
	users := map[string]string{}
	if name, pw, ok := strings.Cut(*user, "="); ok {
		users[name] = pw
	}
	cfg := turnapp.Config{ListenUDP: *udp, PublicIP: *public, Realm: "example.org", Users: users,
		MinPort: 50000, MaxPort: 55000, AllocationsPer: 10}
	if *eval != "" {
		cfg.ListenUDP = "127.0.0.1:0"
	}
	mcpSrv, relay, h, err := turnapp.NewService(fsys, cfg, logger)
	if err != nil {
		logger.Error("turnserver", "error", err)
		os.Exit(1)
	}
	if *eval != "" {
		c := &searcheval.Client{Server: mcpSrv, Caller: searcheval.Caller(turnapp.Grants)}
		if err := c.EvaluateTo(*eval, os.Stdout); err != nil {
			logger.Error("evaluation", "error", err)
			os.Exit(1)
		}
		return
	}
	defer relay.Close()
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("turnserver", "addr", *addr, "turn", *udp)
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("turnserver", "error", err)
		os.Exit(1)
	}
}
