package redisstore_test

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/redisstore"
	"github.com/redis/go-redis/v9"
)

// Every replica of a service behind a load balancer opens the same Redis:
// tasks created on one are read, answered and cancelled from any, and a
// tool-list change on one reaches the subscriptions/listen streams of all.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()

	ts := mcp.NewToolSet()
	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "reindex", Description: "Rebuild the search index.",
		Permission: "search.admin", TaskSupport: mcp.TaskRequired},
		func(ctx context.Context, req *mcp.Request, in struct{}) (string, error) {
			return "reindexed", nil // minutes of work, honouring ctx
		})
	if err != nil {
		log.Fatal(err)
	}
	changes := redisstore.NewChangeNotifier(rdb, ts, nil)
	defer changes.Close()
	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{
		Changes: changes,
		Tasks:   mcp.TaskOptions{Store: redisstore.NewStore(rdb, nil), Lease: 30 * time.Second},
	})
	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: mcp.NewHandler(server, nil)}
	go srv.ListenAndServe()

	// On shutdown: the HTTP server, then the tasks still running here.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	_ = server.Shutdown(ctx)
}
