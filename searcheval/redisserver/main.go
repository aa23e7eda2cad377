// Command redisserver serves an embedded Redis server (miniredis) with an
// admin API and the code tools at /mcp: a real service of the search
// evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/redissnap ./redisserver
//	go run ./redisserver -snapshot /tmp/redissnap [-addr 127.0.0.1:9001] [-redis 127.0.0.1:6379]
package main

import (
	"flag"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/embedmcp/mcp/internal/searcheval"
	"github.com/embedmcp/mcp/searcheval/redisapp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9001", "HTTP listen `address`")
	redis := flag.String("redis", "127.0.0.1:6379", "Redis listen `address`")
	password := flag.String("password", "", "Redis `password` (AUTH)")
	snap := flag.String("snapshot", "", "source snapshot `directory` written by mcpsnapshot")
	eval := flag.String("eval", "", "run the code_search evaluation set `file` over this service, print the report as JSON and exit")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var fsys fs.FS
	if *snap != "" {
		fsys = os.DirFS(*snap)
	}
	if *eval != "" {
		*redis = "127.0.0.1:0"
	}
	mcpSrv, svc, h, err := redisapp.NewService(fsys, redisapp.Config{RedisAddr: *redis, Password: *password, TickEvery: time.Second}, logger)
	if err != nil {
		logger.Error("redisserver", "error", err)
		os.Exit(1)
	}
	defer svc.Close()
	if *eval != "" {
		c := &searcheval.Client{Server: mcpSrv, Caller: searcheval.Caller(redisapp.Grants)}
		if err := c.EvaluateTo(*eval, os.Stdout); err != nil {
			logger.Error("evaluation", "error", err)
			os.Exit(1)
		}
		return
	}
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("redisserver", "addr", *addr, "redis", svc.Addr())
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("redisserver", "error", err)
		os.Exit(1)
	}
}
