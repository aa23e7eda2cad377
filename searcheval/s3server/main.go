// Command s3server serves a fake S3 (gofakes3 with its in-memory backend)
// with the code tools at /mcp: the real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/s3snap ./s3server
//	go run ./s3server -snapshot /tmp/s3snap [-addr 127.0.0.1:9000]
package main

import (
	"flag"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/embedmcp/mcp/searcheval/s3app"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "listen `address`")
	snap := flag.String("snapshot", "", "source snapshot `directory` written by mcpsnapshot")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var fsys fs.FS
	if *snap != "" {
		fsys = os.DirFS(*snap)
	}
	_, h, err := s3app.NewService(fsys, logger)
	if err != nil {
		logger.Error("s3server", "error", err)
		os.Exit(1)
	}
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("s3server", "addr", *addr)
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("s3server", "error", err)
		os.Exit(1)
	}
}
