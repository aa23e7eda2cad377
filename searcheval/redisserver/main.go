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
	"time"

	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/embedmcp/mcp/searcheval/redisapp"
)

func main() {
	f := evalcmd.New("redisserver", "127.0.0.1:9001")
	redis := flag.String("redis", "127.0.0.1:6379", "Redis listen `address`")
	password := flag.String("password", "", "Redis `password` (AUTH)")
	flag.Parse()
	if f.Evaluating() {
		*redis = "127.0.0.1:0"
	}
	mcpSrv, svc, h, err := redisapp.NewService(f.Snapshot(), redisapp.Config{RedisAddr: *redis, Password: *password, TickEvery: time.Second}, f.Logger)
	f.Check(err)
	defer svc.Close()
	f.Serve(mcpSrv, redisapp.Grants, h, "redis", svc.Addr())
}
