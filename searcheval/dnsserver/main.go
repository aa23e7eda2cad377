// Command dnsserver serves a team's service zone over DNS (miekg/dns) with
// an admin API to add and remove records and the code tools at /mcp: a
// real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/dnssnap ./dnsserver
//	go run ./dnsserver -snapshot /tmp/dnssnap -zone svc.example.internal. [-dns 127.0.0.1:5353] [-secondaries 10.0.0.2,10.0.0.3] [-tsig xfr.:c2VjcmV0]
package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/embedmcp/mcp/searcheval/dnsapp"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
)

func main() {
	f := evalcmd.New("dnsserver", "127.0.0.1:9011")
	dnsAddr := flag.String("dns", "127.0.0.1:5353", "DNS listen `address` (UDP and TCP)")
	zone := flag.String("zone", "svc.example.internal.", "the `zone` served")
	secondaries := flag.String("secondaries", "", "comma-separated `addresses` that may transfer the zone")
	tsig := flag.String("tsig", "", "comma-separated TSIG `name:secret` keys that transfers must be signed with")
	qps := flag.Float64("qps", 20, "`queries` per second one client may send")
	flag.Parse()
	cfg := dnsapp.Config{Zone: *zone, Addr: *dnsAddr, QPS: *qps, TSIGKeys: map[string]string{}}
	for _, s := range strings.Split(*secondaries, ",") {
		if s != "" {
			cfg.Secondaries = append(cfg.Secondaries, s)
		}
	}
	for _, key := range strings.Split(*tsig, ",") {
		if key == "" {
			continue
		}
		name, secret, ok := strings.Cut(key, ":")
		if !ok {
			f.Check(fmt.Errorf("tsig key %q: want name:secret", key))
		}
		cfg.TSIGKeys[name] = secret
	}
	if f.Evaluating() {
		cfg.Addr, cfg.Secondaries = "127.0.0.1:0", nil
	}
	mcpSrv, z, h, err := dnsapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer z.Close()
	f.Serve(mcpSrv, dnsapp.Grants, h, "dns", z.Addr())
}
