// Command replica is one replica of a service whose tasks live in Redis:
// run several behind a load balancer and any of them answers for any task.
// scripts/tasks/run.sh runs three behind nginx and drives them.
//
//	go run ./examples/replica -addr 127.0.0.1:8081 -redis 127.0.0.1:6379 -name a
//
// It serves, over Streamable HTTP at /mcp, to the bearer tokens "token-a"
// (principal a) and "token-b" (principal b):
//
//	quick    a task that completes at once with the n it was given
//	slow     a task that computes for the given seconds
//	ask      a task that asks for a name (input_required), then greets
//	maybe    runs as a task when it can, at once otherwise
//	toggle   adds or removes the tool "extra" (a tool-list change)
//	echo     answered at once
//
// Flags:
//
//	-addr host:port   listen address (default 127.0.0.1:8081)
//	-redis host:port  the Redis all replicas share (default 127.0.0.1:6379)
//	-cluster a,b,...  a Redis Cluster instead: some of its nodes' addresses
//	-sentinel a,b,... a primary under Sentinel instead: the sentinels'
//	                  addresses (with -master)
//	-master name      the primary's name in Sentinel (default mymaster)
//	-name name        this replica's name (default: the host name)
//	-prefix p         key prefix in Redis (default embedmcp:)
//	-lease d          task lease (default 30s)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/redisstore"
	"github.com/redis/go-redis/v9"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replica", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8081", "listen address")
	redisAddr := fs.String("redis", "127.0.0.1:6379", "Redis address")
	cluster := fs.String("cluster", "", "comma-separated addresses of Redis Cluster nodes")
	sentinel := fs.String("sentinel", "", "comma-separated addresses of Redis Sentinels")
	master := fs.String("master", "mymaster", "the primary's name in Sentinel")
	name := fs.String("name", "", "replica name")
	prefix := fs.String("prefix", "", "key prefix in Redis")
	lease := fs.Duration("lease", 30*time.Second, "task lease")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	redis.SetLogger(redisstore.NewLogger(logger, nil)) // go-redis's own lines, rate-limited (one logger per process)
	// One of the three configurations; the store takes any of them.
	var rdb redis.UniversalClient
	switch {
	case *cluster != "":
		rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(*cluster, ","), DialTimeout: time.Second})
	case *sentinel != "":
		rdb = redis.NewFailoverClient(&redis.FailoverOptions{MasterName: *master,
			SentinelAddrs: strings.Split(*sentinel, ","), DialTimeout: time.Second})
	default:
		rdb = redis.NewClient(&redis.Options{Addr: *redisAddr, DialTimeout: time.Second, DialerRetries: 1, MaxRetries: 1})
	}
	defer rdb.Close()
	// No cap on one caller's stored tasks: the bulk scenario of
	// scripts/tasks/run.sh makes 10 000 as one caller.
	ropts := &redisstore.Options{Prefix: *prefix, Logger: logger, Lease: *lease, MaxTasksPerPrincipal: -1}
	// Open checks Redis first: no eviction, a lease long enough for the
	// round trip; it refuses to start otherwise.
	octx, ocancel := context.WithTimeout(ctx, 10*time.Second)
	store, err := redisstore.Open(octx, rdb, ropts)
	ocancel()
	if err != nil {
		return err
	}
	defer store.Close()
	ts := mcp.NewToolSet()
	if err := register(ts); err != nil {
		return err
	}
	changes := redisstore.NewChangeNotifier(rdb, ts, ropts)
	defer changes.Close()
	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{
		Name: "replica", Version: "1.0.0", Logger: logger, Changes: changes,
		Tasks: mcp.TaskOptions{Store: store, Replica: *name, Lease: *lease,
			PollInterval: 100 * time.Millisecond, MaxRunning: -1, MaxRunningPerPrincipal: -1},
	})
	handler := mcp.NewHandler(server, &mcp.HandlerOptions{Logger: logger,
		Authenticator: mcp.StaticTokens(map[string]mcp.Caller{
			"token-a": {Principal: "a", Grants: []string{"replica.*"}},
			"token-b": {Principal: "b", Grants: []string{"replica.*"}},
		})})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	srv.RegisterOnShutdown(func() { handler.Close() })
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "replica %s listening on http://%s/mcp\n", *name, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdown)
	return errors.Join(err, server.Shutdown(shutdown))
}

type (
	quickIn struct {
		N int `json:"n" jsonschema:"a number the result repeats"`
	}
	slowIn struct {
		Seconds float64 `json:"seconds" jsonschema:"how long to work, 0 to 600"`
	}
	empty struct{}
)

// register adds the replica's tools.
func register(ts *mcp.ToolSet) error {
	var errs []error
	add := func(_ mcp.Tool, err error) { errs = append(errs, err) }
	add(mcp.AddTool(ts, mcp.ToolInfo{Name: "quick", Description: "A task that completes at once.",
		Permission: "replica.tasks", TaskSupport: mcp.TaskRequired},
		func(_ context.Context, req *mcp.Request, in quickIn) (string, error) {
			return fmt.Sprintf("n=%d task=%s", in.N, req.TaskID()), nil
		}))
	add(mcp.AddTool(ts, mcp.ToolInfo{Name: "slow", Description: "A task that works for the given seconds.",
		Permission: "replica.tasks", TaskSupport: mcp.TaskRequired},
		func(ctx context.Context, _ *mcp.Request, in slowIn) (string, error) {
			if in.Seconds < 0 || in.Seconds > 600 {
				return "", fmt.Errorf("seconds must be between 0 and 600, got %v", in.Seconds)
			}
			t := time.NewTimer(time.Duration(in.Seconds * float64(time.Second)))
			defer t.Stop()
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-t.C:
				return fmt.Sprintf("worked %vs", in.Seconds), nil
			}
		}))
	add(mcp.AddTool(ts, mcp.ToolInfo{Name: "ask", Description: "A task that asks for a name, then greets.",
		Permission: "replica.tasks", TaskSupport: mcp.TaskRequired},
		func(_ context.Context, req *mcp.Request, _ empty) (string, error) {
			raw, ok := req.InputResponse("name")
			if !ok {
				return "", &mcp.InputRequired{Requests: map[string]mcp.InputRequest{"name": mcp.Elicitation("Your name?",
					map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}})}}
			}
			return "hello " + string(raw), nil
		}))
	add(mcp.AddTool(ts, mcp.ToolInfo{Name: "maybe", Description: "A task when it can be, answered at once otherwise.",
		Permission: "replica.tasks", TaskSupport: mcp.TaskOptional},
		func(_ context.Context, req *mcp.Request, _ empty) (string, error) {
			return "maybe: task=" + req.TaskID(), nil
		}))
	add(mcp.AddTool(ts, mcp.ToolInfo{Name: "toggle", Description: "Adds or removes the tool extra.", Permission: "replica.admin"},
		func(context.Context, *mcp.Request, empty) (string, error) {
			if ts.Remove("extra") > 0 {
				return "removed extra", nil
			}
			_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "extra", Description: "Comes and goes.", Permission: "replica.admin"},
				func(context.Context, *mcp.Request, empty) (string, error) { return "extra", nil })
			return "added extra", err
		}))
	add(mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Returns the text.", Permission: "replica.echo"},
		func(_ context.Context, _ *mcp.Request, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		}))
	return errors.Join(errs...)
}
