package redisstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/redisstore"
	"github.com/embedmcp/mcp/redisstore/internal/redistest"
	"github.com/embedmcp/mcp/tasks"
	"github.com/redis/go-redis/v9"
)

// TestTopologies runs the store on a single node, a Redis Cluster
// (REDIS_CLUSTER, the nodes' addresses) and a primary under Sentinel
// (REDIS_SENTINEL, the sentinels' addresses; REDIS_SENTINEL_MASTER), as
// scripts/tasks/topologies.sh starts them: the store's contract, the
// per-caller cap, the multi-replica scenarios, one round trip per create and per get, the
// throughput of 3 replicas and WAIT's cost, then the failover of a primary
// while tasks run. It prints the figures as tables.
func TestTopologies(t *testing.T) {
	clusterAddrs, sentinelAddrs := os.Getenv("REDIS_CLUSTER"), os.Getenv("REDIS_SENTINEL")
	if clusterAddrs == "" && sentinelAddrs == "" {
		t.Skip("REDIS_CLUSTER / REDIS_SENTINEL unset (scripts/tasks/topologies.sh sets them)")
	}
	type topology struct {
		name   string
		client func() redis.UniversalClient
		kill   func(t *testing.T) string // kills a primary, returns its address
	}
	tops := []topology{{name: "single node", client: func() redis.UniversalClient {
		return redis.NewClient(&redis.Options{Addr: redisAddr, DialTimeout: 500 * time.Millisecond})
	}}}
	if clusterAddrs != "" {
		tops = append(tops, topology{name: "cluster 3+3",
			client: func() redis.UniversalClient {
				return redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(clusterAddrs, ","),
					DialTimeout: 500 * time.Millisecond})
			},
			kill: func(t *testing.T) string {
				cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(clusterAddrs, ",")})
				defer cc.Close()
				m, err := cc.MasterForKey(context.Background(), "a") // slot 15495
				if err != nil {
					t.Fatal(err)
				}
				return shutdown(t, m.Options().Addr)
			}})
	}
	if sentinelAddrs != "" {
		master := os.Getenv("REDIS_SENTINEL_MASTER")
		tops = append(tops, topology{name: "sentinel 1+1, 3 sentinels",
			client: func() redis.UniversalClient {
				return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: master,
					SentinelAddrs: strings.Split(sentinelAddrs, ","), DialTimeout: 500 * time.Millisecond})
			},
			kill: func(t *testing.T) string {
				sc := redis.NewSentinelClient(&redis.Options{Addr: strings.Split(sentinelAddrs, ",")[0]})
				defer sc.Close()
				addr, err := sc.GetMasterAddrByName(context.Background(), master).Result()
				if err != nil {
					t.Fatal(err)
				}
				return shutdown(t, addr[0]+":"+addr[1])
			}})
	}
	var perf, fail []string
	for _, top := range tops {
		if only := os.Getenv("TOPO_ONLY"); only != "" && !strings.Contains(top.name, only) {
			continue
		}
		mk := func(t *testing.T) redis.UniversalClient {
			c := top.client()
			t.Cleanup(func() { c.Close() })
			return c
		}
		t.Run(top.name, func(t *testing.T) {
			t.Run("contract", func(t *testing.T) {
				store := redisstore.NewUnchecked(mk(t), &redisstore.Options{Prefix: redistest.Prefix(t.Name())})
				if err := tasks.TestStore(context.Background(), store); err != nil {
					t.Fatal(err)
				}
			})
			t.Run("quota", func(t *testing.T) {
				if _, ok := mk(t).(*redis.ClusterClient); ok {
					clusterQuota(t, mk(t))
					return
				}
				store := redisstore.NewUnchecked(mk(t), &redisstore.Options{Prefix: redistest.Prefix(t.Name()), MaxTasksPerPrincipal: 5})
				defer store.Close()
				if _, err := checkQuota(context.Background(), store, 5, true); err != nil {
					t.Fatal(err)
				}
			})
			t.Run("replicas", func(t *testing.T) { shareTasks(t, mk) })
			t.Run("round trips", func(t *testing.T) { roundTrips(t, mk(t)) })
			t.Run("throughput", func(t *testing.T) {
				n := 10000
				if testing.Short() {
					n = 1000
				}
				perf = append(perf, fmt.Sprintf("%-26s %s", top.name, throughput(t, mk, n, nil)))
				// As before: no births remembered, and the change feed
				// unsubscribed as soon as no task ran on a replica, to
				// subscribe again (a connection and SSUBSCRIBE per shard
				// on a cluster) in the path of its next create.
				perf = append(perf, fmt.Sprintf("%-26s %s", top.name+", as before (feed churn)", throughput(t, mk, n/5,
					&redisstore.Options{RememberTasks: -1}, func(s *redisstore.Store) { redisstore.SetFeedLinger(s, 0) })))
				if top.kill != nil {
					perf = append(perf, fmt.Sprintf("%-26s %s", top.name+", WAIT 1", throughput(t, mk, n/5,
						&redisstore.Options{WaitReplicas: 1, WaitTimeout: time.Second})))
				}
			})
			if top.kill != nil {
				t.Run("failover", func(t *testing.T) { fail = append(fail, top.name+": "+failover(t, mk, top.kill)) })
			}
		})
	}
	fmt.Printf("\n%-26s %s\n", "topology", "tasks (3 replicas, 8 callers): create p50/p99, get p50/p99, tasks/s")
	for _, l := range perf {
		fmt.Println(l)
	}
	fmt.Println()
	for _, l := range fail {
		fmt.Println("failover,", l)
	}
}

// shutdown kills the Redis at addr (SHUTDOWN NOSAVE: no data written, as
// a crash).
func shutdown(t *testing.T, addr string) string {
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	_ = c.ShutdownNoSave(context.Background()).Err() // the connection closes: an error
	return addr
}

// topoReplicas returns n Servers, each with its own client, sharing one
// prefix.
func topoReplicas(t *testing.T, mk func(*testing.T) redis.UniversalClient, n int, ts *mcp.ToolSet, o mcp.TaskOptions,
	so *redisstore.Options, adjust ...func(*redisstore.Store)) []replica {
	prefix := redistest.Prefix(t.Name())
	var out []replica
	for i := range n {
		o := o
		opts := redisstore.Options{}
		if so != nil {
			opts = *so
		}
		opts.Prefix = prefix
		if opts.MaxTasksPerPrincipal == 0 { // one caller makes every task
			opts.MaxTasksPerPrincipal = -1
		}
		st := redisstore.NewUnchecked(mk(t), &opts)
		for _, fn := range adjust {
			fn(st)
		}
		t.Cleanup(func() { st.Close() })
		o.Store, o.Replica = st, fmt.Sprintf("r%d", i)
		logger := slog.New(slog.DiscardHandler)
		if so != nil && so.Logger != nil {
			logger = so.Logger
		}
		out = append(out, replica{t, mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Tasks: o, Logger: logger})})
	}
	return out
}

// shareTasks: created on A, polled on B, cancelled on C (A's tool stops);
// input asked on A, answered on B, completed on C.
func shareTasks(t *testing.T, mk func(*testing.T) redis.UniversalClient) {
	tl := newTools()
	r := topoReplicas(t, mk, 3, tl.set(t), mcp.TaskOptions{Lease: 10 * time.Second}, nil)
	id, _ := result(r[0].do("tools/call", `"name":"slow"`))["taskId"].(string)
	<-tl.started
	if st := r[1].status(id); st != "working" {
		t.Fatalf("B sees %q", st)
	}
	r[2].do("tasks/cancel", `"taskId":"`+id+`"`)
	select {
	case <-tl.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the cancellation on C did not stop the tool on A")
	}
	id, _ = result(r[0].do("tools/call", `"name":"ask"`))["taskId"].(string)
	r[1].waitFor(id, "input_required")
	if resp := r[1].do("tasks/update", `"taskId":"`+id+`","inputResponses":{"name#1":{"action":"accept","content":{"n":"Bo"}}}`); resp["error"] != nil {
		t.Fatal(resp)
	}
	if done := r[2].waitFor(id, "completed"); !strings.Contains(fmt.Sprint(done["result"]), "Bo") {
		t.Errorf("result: %v", done)
	}
}

// roundTrips: a task costs one round trip until its tool ends, a
// tasks/get one.
func roundTrips(t *testing.T, rdb redis.UniversalClient) {
	count := &trips{}
	rdb.AddHook(count)
	tl := newTools()
	store, err := redisstore.Open(context.Background(), rdb, &redisstore.Options{Prefix: redistest.Prefix(t.Name())})
	if err != nil {
		t.Fatal(err)
	}
	s := replica{t, mcp.NewServer(tl.set(t), mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{Store: store}})}
	for range 8 {
		count.take()
		id, _ := result(s.do("tools/call", `"name":"slow"`))["taskId"].(string)
		<-tl.started
		time.Sleep(20 * time.Millisecond)
		created := count.take()
		s.status(id)
		got := count.take()
		if !slices.Equal(created, []string{"evalsha"}) || len(got) != 1 {
			t.Errorf("create: %v, get: %v; want one round trip each", created, got)
		}
		tl.release <- "x"
		s.waitFor(id, "completed")
	}
}

// throughput creates n tasks from 8 callers through 3 replicas, polling
// each until completed, and returns create and get latencies.
func throughput(t *testing.T, mk func(*testing.T) redis.UniversalClient, n int, so *redisstore.Options,
	adjust ...func(*redisstore.Store)) string {
	ts, _ := jobTools(t)
	var cnt nodeCounts // what the clients send, node by node
	counted := func(t *testing.T) redis.UniversalClient {
		c := mk(t)
		if cc, ok := c.(*redis.ClusterClient); ok {
			cc.OnNewNode(func(n *redis.Client) { n.AddHook(&cnt) })
		} else {
			c.AddHook(&cnt)
		}
		return c
	}
	r := topoReplicas(t, counted, 3, ts, mcp.TaskOptions{Lease: 10 * time.Second, MaxRunning: -1}, so, adjust...)
	var next atomic.Int64
	var mu sync.Mutex
	var creates, gets []time.Duration
	var wg sync.WaitGroup
	begin := time.Now()
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var cl, gl []time.Duration
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				t0 := time.Now()
				resp := r[(int(i)+c)%3].do("tools/call", `"name":"job","arguments":{"ms":0}`)
				cl = append(cl, time.Since(t0))
				id, _ := result(resp)["taskId"].(string)
				if id == "" {
					t.Errorf("not created: %v", resp)
					return
				}
				for k := 0; ; k++ {
					t1 := time.Now()
					res := result(r[(int(i)+c+1)%3].do("tasks/get", `"taskId":"`+id+`"`))
					gl = append(gl, time.Since(t1))
					if res["status"] == "completed" {
						break
					}
					if k == 500 {
						t.Errorf("task %s: %v", id, res)
						return
					}
					time.Sleep(time.Millisecond)
				}
			}
			mu.Lock()
			creates, gets = append(creates, cl...), append(gets, gl...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(begin)
	return fmt.Sprintf("%6d tasks: create %v / %v, get %v / %v, %.0f tasks/s; %s", n, pctl(creates, 50), pctl(creates, 99),
		pctl(gets, 50), pctl(gets, 99), float64(n)/el.Seconds(), cnt.String())
}

// nodeCounts is a hook on the clients of Redis nodes counting what they
// send: connections dialled (subscriptions included), commands, MOVED and
// ASK redirections answered, and slot map reloads (CLUSTER SLOTS/SHARDS).
type nodeCounts struct {
	dials, cmds, moved, reloads atomic.Int64
}

func (c *nodeCounts) String() string {
	return fmt.Sprintf("%d dials, %d commands, %d MOVED/ASK, %d slot map reloads", c.dials.Load(), c.cmds.Load(),
		c.moved.Load(), c.reloads.Load())
}

func (c *nodeCounts) note(cmd redis.Cmder) {
	c.cmds.Add(1)
	if cmd.Name() == "cluster" {
		c.reloads.Add(1)
	}
	_, moved := redis.IsMovedError(cmd.Err())
	_, ask := redis.IsAskError(cmd.Err())
	if moved || ask {
		c.moved.Add(1)
	}
}

func (c *nodeCounts) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c.dials.Add(1)
		return next(ctx, network, addr)
	}
}

func (c *nodeCounts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		c.note(cmd)
		return err
	}
}

func (c *nodeCounts) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			c.note(cmd)
		}
		return err
	}
}

func pctl(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, len(d)*p/100)].Round(10 * time.Microsecond)
}

// failover kills a primary while 30 tasks run on 3 replicas and 4 callers
// create and poll; it reports the window in which callers got errors, what
// they got, and checks that each of them was -32001 (retry), and that
// every acknowledged task is then readable, on a replica that did not
// create it, and terminal (completed, or failed saying the store lost it:
// never missing).
func failover(t *testing.T, mk func(*testing.T) redis.UniversalClient, kill func(*testing.T) string) string {
	ts, _ := jobTools(t)
	var log syncBuffer
	r := topoReplicas(t, mk, 3, ts, mcp.TaskOptions{Lease: 15 * time.Second, PollInterval: 100 * time.Millisecond, MaxRunning: -1},
		&redisstore.Options{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelError}))})
	defer func() {
		if t.Failed() {
			lines := strings.Split(log.String(), "\n")
			t.Logf("replicas' log (last lines): %s", strings.Join(lines[max(0, len(lines)-8):], "\n"))
		}
	}()

	var mu sync.Mutex
	var ids []string
	var owner []int
	ack := func(id string, o int) {
		mu.Lock()
		ids, owner = append(ids, id), append(owner, o)
		mu.Unlock()
	}
	for i := range 30 {
		if id, _ := result(r[i%3].do("tools/call", `"name":"job","arguments":{"ms":4000}`))["taskId"].(string); id != "" {
			ack(id, i%3)
		}
	}
	stop := make(chan struct{})
	var lastErr, firstErr atomic.Int64
	errs := map[string]int{}
	var total, wrong int // errors seen, those not -32001
	var wg sync.WaitGroup
	var killed time.Time
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				o := (i + c) % 3
				resp := r[o].do("tools/call", `"name":"job","arguments":{"ms":500}`)
				if id, _ := result(resp)["taskId"].(string); id != "" {
					ack(id, o)
					resp = r[(o+1)%3].do("tasks/get", `"taskId":"`+id+`"`)
				}
				if e, ok := resp["error"].(map[string]any); ok {
					now := time.Now().UnixNano()
					firstErr.CompareAndSwap(0, now)
					lastErr.Store(now)
					mu.Lock()
					msg := fmt.Sprint(e["message"])
					errs[fmt.Sprintf("%v %s", e["code"], msg[:min(len(msg), 70)])]++
					total++
					if e["code"] != float64(mcp.CodeLimitExceeded) {
						wrong++
					}
					mu.Unlock()
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	killed = time.Now()
	addr := kill(t)
	time.Sleep(12 * time.Second)
	close(stop)
	wg.Wait()
	window := time.Duration(0)
	if l := lastErr.Load(); l > 0 {
		window = time.Unix(0, l).Sub(killed)
	}
	if wrong > 0 {
		t.Errorf("%d of the %d errors callers saw during the failover were not -32001 (retry): %v", wrong, total, errs)
	}
	var completed, lost, failed, missing int
	for i, id := range ids {
		deadline := time.Now().Add(30 * time.Second)
		for {
			// Asked of a replica that did not create the task.
			resp := r[(owner[i]+1)%3].do("tasks/get", `"taskId":"`+id+`"`)
			res := result(resp)
			st, _ := res["status"].(string)
			switch {
			case resp["error"] != nil && strings.Contains(fmt.Sprint(resp["error"]), "Task not found"):
				missing++
			case st == "completed":
				completed++
			case st == "failed" && strings.Contains(fmt.Sprint(res["statusMessage"]), "task store lost"):
				lost++
			case st == "failed" || st == "cancelled":
				failed++
			case time.Now().Before(deadline):
				time.Sleep(50 * time.Millisecond)
				continue
			default:
				t.Errorf("task %s not terminal 30 s after the failover: %v", id, resp)
			}
			break
		}
	}
	if missing > 0 {
		t.Errorf("%d acknowledged tasks missing after the failover", missing)
	}
	var seen []string
	for k, v := range errs {
		seen = append(seen, fmt.Sprintf("%d× %s", v, k))
	}
	slices.Sort(seen)
	if len(seen) == 0 {
		seen = []string{"no errors"}
	}
	return fmt.Sprintf("killed %s: callers saw %d errors (%d not -32001) for %v after the kill (%s); %d acknowledged tasks, asked of another replica: %d completed, %d reported lost, %d failed, %d missing",
		addr, total, wrong, window.Round(10*time.Millisecond), strings.Join(seen, "; "), len(ids), completed, lost, failed, missing)
}
