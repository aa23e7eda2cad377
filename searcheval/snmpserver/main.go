// Command snmpserver monitors a team's switches and routers over SNMP
// (gosnmp): a trap receiver and an interface counter poller, with an admin
// API and the code tools at /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/snmpsnap ./snmpserver
//	go run ./snmpserver -snapshot /tmp/snmpsnap -communities public -devices core1=10.0.0.1,edge2=10.0.0.2:1161 [-traps 0.0.0.0:162]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/snmpapp"
)

func main() {
	f := evalcmd.New("snmpserver", "127.0.0.1:9017")
	trapAddr := flag.String("traps", "0.0.0.0:162", "trap receiver UDP listen `address`")
	communities := flag.String("communities", "public", "comma-separated v2c `communities` whose traps are accepted")
	devices := flag.String("devices", "", "comma-separated `name=host[:port]` devices polled with the first community")
	interval := flag.Duration("interval", time.Minute, "`time` between poll rounds")
	timeout := flag.Duration("timeout", 2*time.Second, "`time` one request waits for its answer")
	retries := flag.Int("retries", 2, "`number` of retries after a timeout")
	flag.Parse()
	cfg := snmpapp.Config{TrapAddr: *trapAddr, PollInterval: *interval, PollTimeout: *timeout, Retries: *retries}
	for _, c := range strings.Split(*communities, ",") {
		if c != "" {
			cfg.Communities = append(cfg.Communities, c)
		}
	}
	for _, d := range strings.Split(*devices, ",") {
		if d == "" {
			continue
		}
		name, addr, ok := strings.Cut(d, "=")
		if !ok || len(cfg.Communities) == 0 {
			f.Check(fmt.Errorf("device %q: want name=host[:port] and a community", d))
		}
		cfg.Devices = append(cfg.Devices, snmpapp.Device{Name: name, Addr: addr, Community: cfg.Communities[0]})
	}
	if f.Evaluating() {
		cfg.TrapAddr, cfg.Devices = "", nil
	}
	mcpSrv, mon, h, err := snmpapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer mon.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go mon.Run(ctx)
	f.Serve(mcpSrv, snmpapp.Grants, h, "traps", mon.Addr())
}
