// Command pgserver serves a service's metrics and inventory tables to BI
// tools over the PostgreSQL wire protocol (psql-wire) with an admin API and
// the code tools at /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/pgsnap ./pgserver
//	go run ./pgserver -snapshot /tmp/pgsnap -users grafana:secret,loader:secret -loaders loader [-pg 127.0.0.1:5432] [-cert c.pem -key k.pem]
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"strings"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/pgapp"
)

func main() {
	f := evalcmd.New("pgserver", "127.0.0.1:9015")
	pgAddr := flag.String("pg", "127.0.0.1:5432", "PostgreSQL wire protocol listen `address`")
	users := flag.String("users", "", "comma-separated `name:password` accounts")
	loaders := flag.String("loaders", "", "comma-separated `users` allowed to COPY into inventory")
	cert := flag.String("cert", "", "TLS certificate `file` (PEM); with -key, clients may upgrade to TLS")
	key := flag.String("key", "", "TLS private key `file` (PEM)")
	requireTLS := flag.Bool("require-tls", false, "refuse clients that do not upgrade to TLS")
	maxConns := flag.Int("max-conns", 32, "concurrent client `connections`")
	maxRows := flag.Int("max-rows", 10000, "`rows` one SELECT returns at most")
	flag.Parse()
	cfg := pgapp.Config{PGAddr: *pgAddr, Users: map[string]string{}, RequireTLS: *requireTLS, MaxConns: *maxConns, MaxRows: *maxRows}
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
	for _, u := range strings.Split(*loaders, ",") {
		if u != "" {
			cfg.Loaders = append(cfg.Loaders, u)
		}
	}
	if *cert != "" || *key != "" {
		pair, err := tls.LoadX509KeyPair(*cert, *key)
		f.Check(err)
		cfg.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}
	if f.Evaluating() {
		cfg.PGAddr = ""
	}
	mcpSrv, facade, h, err := pgapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer facade.Close(context.Background())
	f.Serve(mcpSrv, pgapp.Grants, h, "pg", facade.Addr())
}
