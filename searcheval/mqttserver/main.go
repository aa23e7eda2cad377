// Command mqttserver serves an MQTT broker (mochi-mqtt) with the code tools
// at /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/mqttsnap ./mqttserver
//	go run ./mqttserver -snapshot /tmp/mqttsnap [-addr 127.0.0.1:9002] [-mqtt 127.0.0.1:1883]
package main

import (
	"flag"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/embedmcp/mcp/internal/searcheval"
	"github.com/embedmcp/mcp/searcheval/mqttapp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9002", "HTTP listen `address`")
	tcp := flag.String("mqtt", "127.0.0.1:1883", "MQTT listen `address`")
	ws := flag.String("ws", "", "MQTT over websockets listen `address`")
	snap := flag.String("snapshot", "", "source snapshot `directory` written by mcpsnapshot")
	eval := flag.String("eval", "", "run the code_search evaluation set `file` over this service, print the report as JSON and exit")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var fsys fs.FS
	if *snap != "" {
		fsys = os.DirFS(*snap)
	}
	if *eval != "" {
		*tcp = ""
	}
	mcpSrv, broker, h, err := mqttapp.NewService(fsys, mqttapp.Config{TCPAddr: *tcp, WebsocketAddr: *ws, AuditTopics: []string{"audit/"}}, logger)
	if err != nil {
		logger.Error("mqttserver", "error", err)
		os.Exit(1)
	}
	if *eval != "" {
		c := &searcheval.Client{Server: mcpSrv, Caller: searcheval.Caller(mqttapp.Grants)}
		if err := c.EvaluateTo(*eval, os.Stdout); err != nil {
			logger.Error("evaluation", "error", err)
			os.Exit(1)
		}
		return
	}
	if err := broker.Serve(); err != nil {
		logger.Error("mqttserver", "error", err)
		os.Exit(1)
	}
	defer broker.Close()
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("mqttserver", "addr", *addr, "mqtt", *tcp)
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("mqttserver", "error", err)
		os.Exit(1)
	}
}
