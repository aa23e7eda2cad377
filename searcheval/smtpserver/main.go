// Command smtpserver serves a mail sink (go-smtp) with the code tools at
// /mcp: the service of the search evaluation's tuning set.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/smtpsnap ./smtpserver
//	go run ./smtpserver -snapshot /tmp/smtpsnap [-addr 127.0.0.1:9004] [-smtp 127.0.0.1:2525]
package main

import (
	"flag"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/smtpapp"
)

func main() {
	f := evalcmd.New("smtpserver", "127.0.0.1:9004")
	smtpAddr := flag.String("smtp", "127.0.0.1:2525", "SMTP listen `address`")
	flag.Parse()
	mcpSrv, s, _, h, err := smtpapp.NewService(f.Snapshot(), []string{"example.org"}, f.Logger)
	f.Check(err)
	if !f.Evaluating() {
		s.Addr = *smtpAddr
		go func() {
			if err := s.ListenAndServe(); err != nil {
				f.Logger.Error("smtp", "error", err)
			}
		}()
	}
	f.Serve(mcpSrv, smtpapp.Grants, h, "smtp", *smtpAddr)
}
