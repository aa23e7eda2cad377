// Command raftserver runs one node of a replicated configuration store
// (hashicorp/raft) with a key-value and admin API and the code tools at
// /mcp: a real service of the search evaluation.
//
// Usage:
//
//	go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -deps -o /tmp/raftsnap ./raftserver
//	go run ./raftserver -snapshot /tmp/raftsnap -id cfg-1 -raft 127.0.0.1:7001 -data /var/lib/cfg-1 -bootstrap
//	go run ./raftserver -snapshot /tmp/raftsnap -id cfg-2 -raft 127.0.0.1:7002 -data /var/lib/cfg-2 -addr 127.0.0.1:9012
//	curl -X POST -d '{"id":"cfg-2","addr":"127.0.0.1:7002","voter":true}' http://127.0.0.1:9011/admin/peers
package main

import (
	"flag"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/raftapp"
)

func main() {
	f := evalcmd.New("raftserver", "127.0.0.1:9011")
	id := flag.String("id", "cfg-1", "the node's `id` in the cluster")
	raftAddr := flag.String("raft", "127.0.0.1:7001", "Raft transport `address`; \"\" for in-memory")
	dataDir := flag.String("data", "", "snapshot `directory`; \"\" keeps them in memory")
	bootstrap := flag.Bool("bootstrap", false, "form a new cluster of this node alone")
	maxKeys := flag.Int("max-keys", 10000, "`keys` the store holds at most")
	flag.Parse()
	cfg := raftapp.Config{NodeID: *id, RaftAddr: *raftAddr, DataDir: *dataDir, Bootstrap: *bootstrap, MaxKeys: *maxKeys}
	if f.Evaluating() {
		cfg.RaftAddr, cfg.DataDir, cfg.Bootstrap = "", "", true
	}
	mcpSrv, node, h, err := raftapp.NewService(f.Snapshot(), cfg, f.Logger)
	f.Check(err)
	defer node.Close()
	f.Serve(mcpSrv, raftapp.Grants, h, "raft", node.Addr(), "node", cfg.NodeID)
}
