// Command gossipserver runs one node of a cache fleet registry
// (hashicorp/memberlist): gossip membership with advertised roles and
// zones and drain marks spread to every member, with an HTTP API and the
// code tools at /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/gossipsnap ./gossipserver
//	go run ./gossipserver -snapshot /tmp/gossipsnap -name cache-1 -bind 10.0.0.5 -port 7946
//	go run ./gossipserver -snapshot /tmp/gossipsnap -name cache-2 -bind 10.0.0.6 -port 7946 -seeds 10.0.0.5:7946 -addr 10.0.0.6:9020
//	curl -X PUT -d '{"reason":"kernel upgrade"}' http://10.0.0.6:9020/drain/cache-1
package main

import (
	"flag"
	"strings"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/gossipapp"
)

func main() {
	f := evalcmd.New("gossipserver", "127.0.0.1:9020")
	name := flag.String("name", "cache-1", "the node's unique `name`")
	bind := flag.String("bind", "127.0.0.1", "gossip `address` (UDP and TCP)")
	port := flag.Int("port", 7946, "gossip `port`")
	seeds := flag.String("seeds", "", "comma-separated `host:port` of members to join")
	role := flag.String("role", "cache", "advertised `role`")
	zone := flag.String("zone", "", "advertised `zone`")
	key := flag.String("key", "", "base64 gossip encryption `key`")
	cluster := flag.String("cluster", "", "cluster `label`")
	flag.Parse()
	cfg := gossipapp.Config{Name: *name, BindAddr: *bind, BindPort: *port, Role: *role, Zone: *zone, Key: *key, Cluster: *cluster}
	for _, s := range strings.Split(*seeds, ",") {
		if s != "" {
			cfg.Seeds = append(cfg.Seeds, s)
		}
	}
	if f.Evaluating() {
		cfg.BindAddr, cfg.BindPort, cfg.Seeds = "127.0.0.1", 0, nil
	}
	mcpSrv, reg, h, err := gossipapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer reg.Close()
	f.Serve(mcpSrv, gossipapp.Grants, h, "gossip", reg.Addr(), "node", cfg.Name)
}
