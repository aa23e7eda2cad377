// Command coapserver serves a sensor network's gateway over CoAP
// (plgd-dev/go-coap) with an admin API and the code tools at /mcp: a real
// service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/coapsnap ./coapserver
//	go run ./coapserver -snapshot /tmp/coapsnap -devices boiler-1,greenhouse-2 [-coap 127.0.0.1:5683]
package main

import (
	"flag"
	"strings"
	"time"

	"github.com/embedmcp/mcp/searcheval/coapapp"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
)

func main() {
	f := evalcmd.New("coapserver", "127.0.0.1:9011")
	coapAddr := flag.String("coap", "127.0.0.1:5683", "CoAP (UDP) listen `address`")
	devices := flag.String("devices", "", "comma-separated `ids` of the devices registered at start")
	idle := flag.Duration("idle", 2*time.Minute, "drop a silent peer after this `duration`")
	flag.Parse()
	cfg := coapapp.Config{Addr: *coapAddr, IdleTimeout: *idle}
	for _, id := range strings.Split(*devices, ",") {
		if id != "" {
			cfg.Devices = append(cfg.Devices, id)
		}
	}
	if f.Evaluating() {
		cfg.Addr = "127.0.0.1:0"
	}
	mcpSrv, cs, _, addr, h, err := coapapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer cs.Stop()
	f.Serve(mcpSrv, coapapp.Grants, h, "coap", addr)
}
