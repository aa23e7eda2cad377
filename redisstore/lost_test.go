package redisstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/redisstore"
	"github.com/embedmcp/mcp/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// outcome is what a replica answers for a task: "completed", "working",
// "lost" (failed, saying the task store lost it), "failed", "missing"
// (not found), or the error's code.
func outcome(r replica, id string) string {
	resp := r.do("tasks/get", `"taskId":"`+id+`"`)
	if e, ok := resp["error"].(map[string]any); ok {
		if strings.Contains(fmt.Sprint(e["message"]), "Task not found") {
			return "missing"
		}
		return fmt.Sprint(e["code"])
	}
	res := result(resp)
	st, _ := res["status"].(string)
	if st == "failed" && strings.Contains(fmt.Sprint(res["statusMessage"]), "task store lost") {
		return "lost"
	}
	return st
}

// storeReplicas returns n Servers sharing prefix on rdb, each with a Store
// of its own (opts, whose Prefix is set).
func storeReplicas(t *testing.T, n int, rdb redis.UniversalClient, ts *mcp.ToolSet, opts redisstore.Options) []replica {
	return leasedReplicas(t, n, rdb, ts, opts, 10*time.Second)
}

func leasedReplicas(t *testing.T, n int, rdb redis.UniversalClient, ts *mcp.ToolSet, opts redisstore.Options, lease time.Duration) []replica {
	var out []replica
	for i := range n {
		st := redisstore.NewUnchecked(rdb, &opts)
		t.Cleanup(func() { st.Close() })
		out = append(out, replica{t, mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Logger: slog.New(slog.DiscardHandler),
			Tasks: mcp.TaskOptions{Store: st, Replica: fmt.Sprintf("r%d", i), Lease: lease, MaxRunning: -1}})})
		// A Store follows the births once used (Open uses it).
		if got := outcome(out[i], "AAAAAAAAAAAAAAAAAAAAAA"); got != "missing" {
			t.Fatalf("an unknown task: %s", got)
		}
	}
	return out
}

// TestLostTaskAnyReplica: a task created on A whose record Redis loses
// (FLUSHALL) is answered failed, saying the store lost it, by B and C,
// which never ran it, as by A; a replica started afterwards answers the
// same (the failed task was written back). Without RememberTasks, B and C
// answer "not found": what the remembered births fix.
func TestLostTaskAnyReplica(t *testing.T) {
	t.Parallel()
	_, _, rdb := ownRedis(t)
	ts, _ := jobTools(t)
	prefix := redistest.Prefix(t.Name())
	r := storeReplicas(t, 3, rdb, ts, redisstore.Options{Prefix: prefix})
	blind := storeReplicas(t, 1, rdb, ts, redisstore.Options{Prefix: prefix, RememberTasks: -1})[0]
	var ids []string
	for i := range 6 {
		id, _ := result(r[0].do("tools/call", `"name":"job","arguments":{"ms":`+fmt.Sprint(30000+i)+`}`))["taskId"].(string)
		if id == "" {
			t.Fatal("not created")
		}
		ids = append(ids, id)
	}
	for _, id := range ids { // every replica follows the feed once it used the store
		for _, x := range r[1:] {
			if got := outcome(x, id); got != "working" {
				t.Fatalf("before the loss: %s", got)
			}
		}
	}
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	if got := outcome(blind, ids[0]); got != "missing" {
		t.Errorf("a replica remembering no births: %s, want missing", got)
	}
	for i, id := range ids {
		if got := outcome(r[1+i%2], id); got != "lost" {
			t.Errorf("task %d on a replica that did not run it: %s, want lost", i, got)
		}
	}
	later := storeReplicas(t, 1, rdb, ts, redisstore.Options{Prefix: prefix})[0]
	for i, id := range ids {
		deadline := time.Now().Add(3 * time.Second)
		got := outcome(later, id)
		for ; got != "lost" && time.Now().Before(deadline); got = outcome(later, id) {
			time.Sleep(20 * time.Millisecond)
		}
		if got != "lost" {
			t.Errorf("task %d on a replica started after the loss: %s, want lost", i, got)
		}
		if got := outcome(r[0], id); got != "lost" {
			t.Errorf("task %d on the replica that ran it: %s", i, got)
		}
	}
}

// TestLostWrites: asynchronous replication loses the last writes of a
// primary that dies. A primary and its replica (replicating through a
// proxy); replication is cut; tasks are created and acknowledged on the
// primary alone; the primary is killed (SIGKILL) and the replica promoted
// (REPLICAOF NO ONE), the clients following it, as Sentinel makes them.
// Every task acknowledged in that window is answered failed, saying that
// the store lost it, by every replica of the service: never "not found".
// With WaitReplicas 1, the same window acknowledges no task: each create
// is refused with -32001 (retry), and every task acknowledged before it
// survives the failover.
func TestLostWrites(t *testing.T) {
	for _, wait := range []int{0, 1} {
		t.Run(fmt.Sprintf("WaitReplicas %d", wait), func(t *testing.T) {
			primary, link, _ := ownRedis(t) // the replica replicates through link
			host, port, _ := net.SplitHostPort(link.Addr)
			standby, err := redistest.StartOwn("--replicaof", host, port)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(standby.Stop)
			ctx := context.Background()
			sc := redis.NewClient(&redis.Options{Addr: standby.Addr})
			t.Cleanup(func() { sc.Close() })
			for i := 0; !strings.Contains(sc.Info(ctx, "replication").Val(), "master_link_status:up"); i++ {
				if i == 1000 {
					t.Fatal("the replica never synchronized")
				}
				time.Sleep(20 * time.Millisecond)
			}
			// The service's client dials whichever is the primary.
			var current atomic.Value
			current.Store(primary.Addr)
			rdb := redis.NewClient(&redis.Options{Addr: "primary", DialTimeout: 300 * time.Millisecond,
				Dialer: func(ctx context.Context, network, _ string) (net.Conn, error) {
					var d net.Dialer
					return d.DialContext(ctx, network, current.Load().(string))
				}})
			t.Cleanup(func() { rdb.Close() })
			ts, _ := jobTools(t)
			// A short lease without WAIT: the replica running a task
			// notices within a third of it that Redis lost it.
			lease := 3 * time.Second
			if wait > 0 {
				lease = 10 * time.Second // the leases outlive the cut
			}
			r := leasedReplicas(t, 3, rdb, ts, redisstore.Options{Prefix: redistest.Prefix(t.Name()),
				WaitReplicas: wait, WaitTimeout: 300 * time.Millisecond}, lease)
			create := func(i int) (string, map[string]any) {
				resp := r[i%3].do("tools/call", `"name":"job","arguments":{"ms":60000}`)
				id, _ := result(resp)["taskId"].(string)
				return id, resp
			}
			var before, window []string
			for i := range 6 {
				if id, resp := create(i); id != "" {
					before = append(before, id)
				} else {
					t.Fatalf("before the cut: %v", resp)
				}
			}
			if wait == 0 { // let the replica have them
				time.Sleep(200 * time.Millisecond)
			}
			link.SetDown(true)
			refused := 0
			for i := range 9 {
				id, resp := create(i)
				switch e, _ := resp["error"].(map[string]any); {
				case id != "":
					window = append(window, id)
				case e != nil && e["code"] == float64(mcp.CodeLimitExceeded):
					refused++
				default:
					t.Errorf("create while replication is cut: %v", resp)
				}
			}
			primary.Kill()
			if err := sc.ReplicaOf(ctx, "NO", "ONE").Err(); err != nil {
				t.Fatal(err)
			}
			current.Store(standby.Addr)
			// Every replica, starting with one that did not create the task;
			// an answer other than lost or working is asked again until a
			// lease has passed (see below).
			failedOver := time.Now()
			late := 0
			count := func(ids []string) map[string]int {
				n := map[string]int{}
				for k, id := range ids {
					for i := range 3 {
						x := r[(k+1+i)%3]
						o := outcome(x, id)
						if o != "lost" && o != "working" {
							late++
							t.Logf("task %d (created on r%d) on r%d: %s %v after the failover", k, k%3, (k+1+i)%3, o,
								time.Since(failedOver).Round(time.Millisecond))
							for time.Since(failedOver) < lease && o != "lost" {
								time.Sleep(50 * time.Millisecond)
								o = outcome(x, id)
							}
						}
						n[o]++
					}
				}
				return n
			}
			b, w := count(before), count(window)
			t.Logf("WaitReplicas %d: before the cut %d acknowledged, after the failover %v; during the cut %d acknowledged, %d refused (-32001), after the failover %v (%d answers lost only after a renewal)",
				wait, len(before), b, len(window), refused, w, late)
			if b["working"] != 3*len(before) {
				t.Errorf("tasks replicated before the cut, after the failover: %v", b)
			}
			if wait == 0 {
				if len(window) != 9 || w["lost"] != 3*len(window) {
					t.Errorf("tasks acknowledged but not replicated, after the failover: %v, want all %d answered lost by every replica", w, len(window))
				}
			} else if len(window) != 0 || refused != 9 {
				t.Errorf("with WAIT, %d tasks acknowledged and %d refused while replication was cut; want none acknowledged", len(window), refused)
			}
		})
	}
}
