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
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/embedmcp/mcp/internal/searcheval"
	"github.com/embedmcp/mcp/searcheval/smtpapp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9004", "HTTP listen `address`")
	smtpAddr := flag.String("smtp", "127.0.0.1:2525", "SMTP listen `address`")
	snap := flag.String("snapshot", "", "source snapshot `directory` written by mcpsnapshot")
	eval := flag.String("eval", "", "run the code_search evaluation set `file` over this service, print the report as JSON and exit")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var fsys fs.FS
	if *snap != "" {
		fsys = os.DirFS(*snap)
	}
	mcpSrv, s, _, h, err := smtpapp.NewService(fsys, []string{"example.org"}, logger)
	if err != nil {
		logger.Error("smtpserver", "error", err)
		os.Exit(1)
	}
	if *eval != "" {
		c := &searcheval.Client{Server: mcpSrv, Caller: searcheval.Caller(smtpapp.Grants)}
		if err := c.EvaluateTo(*eval, os.Stdout); err != nil {
			logger.Error("evaluation", "error", err)
			os.Exit(1)
		}
		return
	}
	s.Addr = *smtpAddr
	go func() {
		if err := s.ListenAndServe(); err != nil {
			logger.Error("smtp", "error", err)
		}
	}()
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("smtpserver", "addr", *addr, "smtp", *smtpAddr)
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("smtpserver", "error", err)
		os.Exit(1)
	}
}
