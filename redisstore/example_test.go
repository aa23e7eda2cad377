package redisstore_test

import (
	"context"
	"log"
	"log/slog"
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
	logger := slog.Default()
	redis.SetLogger(redisstore.NewLogger(logger, nil)) // go-redis's own lines, once per process
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	// Open refuses a Redis that may evict tasks, or too far for the lease.
	store, err := redisstore.Open(context.Background(), rdb, &redisstore.Options{Lease: 30 * time.Second, Logger: logger})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close() // its subscription to the change feed (after the Server's Shutdown)

	ts := mcp.NewToolSet()
	_, err = mcp.AddTool(ts, mcp.ToolInfo{Name: "reindex", Description: "Rebuild the search index.",
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
		Logger:  logger,
		Tasks:   mcp.TaskOptions{Store: store, Lease: 30 * time.Second},
	})
	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: mcp.NewHandler(server, nil)}
	go srv.ListenAndServe()

	// On shutdown: the HTTP server, then the tasks still running here.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	_ = server.Shutdown(ctx)
}
