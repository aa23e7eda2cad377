// Package redisstore keeps the state embedmcp replicas share in Redis: the
// tasks of the Tasks extension (Store, an tasks.Store) and the tool-list
// changes that subscriptions/listen reports (ChangeNotifier). It is a
// module of its own, so that the library's go.mod stays free of the Redis
// client (github.com/redis/go-redis/v9).
//
// Every replica of a service behind a load balancer opens the same Redis
// and sets both in its Options:
//
//	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"})
//	ts := mcp.NewToolSet()
//	changes := redisstore.NewChangeNotifier(rdb, ts, nil)
//	defer changes.Close()
//	store, err := redisstore.Open(ctx, rdb, nil)
//	if err != nil {
//		return err
//	}
//	server := mcp.NewServer(ts, authorizer, &mcp.Options{
//		Changes: changes,
//		Tasks:   mcp.TaskOptions{Store: store},
//	})
//
// Open checks, at start, that Redis keeps tasks as they need (no
// eviction, a lease long enough for the round trip), and
// NewLogger sends go-redis's own log lines to the service's slog logger.
// The same code runs on a single node, a primary under Sentinel
// (redis.NewFailoverClient) and a Redis Cluster (redis.NewClusterClient):
// a task's keys share a hash tag, and on a cluster the change feed uses
// sharded pub/sub.
//
// A task created on one replica is then read, answered and cancelled from
// any; the replica running it renews its lease in Redis, and a task whose
// replica dies fails when the lease ends. When Redis is down, tools/call
// of tools that would run as tasks fail with a clear error (or are
// answered at once, for TaskOptional tools), and everything else is
// served.
package redisstore
