// Command dhcpserver serves the addresses of a test lab over DHCP
// (insomniacslk/dhcp) with an admin API and the code tools at /mcp: a
// real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/dhcpsnap ./dhcpserver
//	go run ./dhcpserver -snapshot /tmp/dhcpsnap -iface eth1 -server 10.9.0.1 -range 10.9.0.100-10.9.0.199 [-dhcp 0.0.0.0:67]
package main

import (
	"flag"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/embedmcp/mcp/searcheval/dhcpapp"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
)

func main() {
	f := evalcmd.New("dhcpserver", "127.0.0.1:9009")
	dhcpAddr := flag.String("dhcp", "0.0.0.0:67", "DHCP listen `address`")
	iface := flag.String("iface", "", "network `interface` to serve")
	server := flag.String("server", "10.9.0.1", "the server's own `address`, also the router")
	pool := flag.String("range", "10.9.0.100-10.9.0.199", "`first-last` addresses to lease")
	dns := flag.String("dns", "", "comma-separated name server `addresses`")
	lease := flag.Duration("lease", time.Hour, "lease `time`")
	flag.Parse()
	first, last, ok := strings.Cut(*pool, "-")
	if !ok {
		f.Check(fmt.Errorf("range %q: want first-last", *pool))
	}
	cfg := dhcpapp.Config{Addr: *dhcpAddr, Interface: *iface, ServerIP: net.ParseIP(*server), Router: net.ParseIP(*server),
		RangeStart: net.ParseIP(first), RangeEnd: net.ParseIP(last), Netmask: net.CIDRMask(24, 32), LeaseTime: *lease}
	for _, s := range strings.Split(*dns, ",") {
		if s != "" {
			cfg.DNS = append(cfg.DNS, net.ParseIP(s))
		}
	}
	if f.Evaluating() {
		cfg.Addr, cfg.Interface = "127.0.0.1:0", ""
	}
	mcpSrv, ds, _, h, err := dhcpapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer ds.Close()
	f.Serve(mcpSrv, dhcpapp.Grants, h, "dhcp", cfg.Addr)
}
