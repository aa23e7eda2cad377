package redisstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/redisstore"
	"github.com/embedmcp/mcp/redisstore/internal/redistest"
	"github.com/embedmcp/mcp/tasks"
	"github.com/redis/go-redis/v9"
)

// The tests run against a real Redis: REDIS_ADDR, or a redis-server they
// start. Without one they are skipped, unless REDISSTORE_REQUIRE=1 (as
// scripts/test.d/tasks.sh sets), which makes that a failure.

var redisAddr string

func TestMain(m *testing.M) {
	srv, err := redistest.Start()
	if err != nil {
		if os.Getenv("REDISSTORE_REQUIRE") == "1" {
			fmt.Fprintln(os.Stderr, "redisstore tests need Redis:", err)
			os.Exit(1)
		}
		fmt.Println("redisstore: tests skipped:", err)
		os.Exit(0)
	}
	redisAddr = srv.Addr
	redis.SetLogger(quiet{}) // the client's log of a Redis the tests stopped
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func client(t testing.TB) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func TestStoreContract(t *testing.T) {
	t.Parallel()
	store := redisstore.NewUnchecked(client(t), &redisstore.Options{Prefix: redistest.Prefix(t.Name())})
	if err := tasks.TestStore(context.Background(), store); err != nil {
		t.Fatal(err)
	}
}

// tools are the tools of the replica tests; slow blocks until released
// or cancelled.
type tools struct {
	started, ended chan string
	release        chan string
}

func newTools() *tools {
	return &tools{started: make(chan string, 16), ended: make(chan string, 16), release: make(chan string, 16)}
}

func (tl *tools) set(t *testing.T) *mcp.ToolSet {
	ts := mcp.NewToolSet()
	err := ts.Register(
		mcp.NewRawTool(mcp.ToolInfo{Name: "slow", TaskSupport: mcp.TaskRequired}, func(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
			tl.started <- req.TaskID()
			select {
			case s := <-tl.release:
				return mcp.TextResult(s), nil
			case <-ctx.Done():
				tl.ended <- context.Cause(ctx).Error()
				return nil, ctx.Err()
			}
		}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "maybe", TaskSupport: mcp.TaskOptional}, func(context.Context, *mcp.Request) (*mcp.Result, error) {
			return mcp.TextResult("maybe ran"), nil
		}),
		mcp.NewRawTool(mcp.ToolInfo{Name: "ask", TaskSupport: mcp.TaskRequired}, func(_ context.Context, req *mcp.Request) (*mcp.Result, error) {
			if raw, ok := req.InputResponse("name"); ok {
				return mcp.TextResult("hello " + string(raw)), nil
			}
			return nil, &mcp.InputRequired{Requests: map[string]mcp.InputRequest{"name": mcp.Elicitation("Name?", map[string]any{"type": "object"})}}
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// client of one replica, speaking 2026-07-28 with the Tasks extension.
type replica struct {
	t *testing.T
	s *mcp.Server
}

func (r replica) do(method, members string) map[string]any {
	r.t.Helper()
	if members != "" {
		members += ","
	}
	_, body := r.s.Handle(context.Background(), mcp.Caller{Principal: "alice"}, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+
		`","params":{`+members+`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`))
	var resp map[string]any
	if err := json.Unmarshal(body, &resp); err != nil {
		r.t.Fatalf("%s: %v: %s", method, err, body)
	}
	return resp
}

func result(resp map[string]any) map[string]any { m, _ := resp["result"].(map[string]any); return m }

func (r replica) status(id string) string {
	s, _ := result(r.do("tasks/get", `"taskId":"`+id+`"`))["status"].(string)
	return s
}

func (r replica) waitFor(id, want string) map[string]any {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		res := result(r.do("tasks/get", `"taskId":"`+id+`"`))
		if res["status"] == want {
			return res
		}
	}
	r.t.Fatalf("task %s never %s: %v", id, want, r.do("tasks/get", `"taskId":"`+id+`"`))
	return nil
}

func replicas(t *testing.T, n int, tl *tools, o mcp.TaskOptions) []replica {
	rdb := client(t)
	prefix := redistest.Prefix(t.Name())
	var out []replica
	for i := range n {
		o := o
		o.Store, o.Replica = redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: prefix, MaxTasksPerPrincipal: -1}), fmt.Sprintf("r%d", i)
		out = append(out, replica{t, mcp.NewServer(tl.set(t), mcp.AllowAll(), &mcp.Options{Tasks: o})})
	}
	return out
}

func TestReplicasShareTasks(t *testing.T) {
	t.Parallel()
	tl := newTools()
	r := replicas(t, 3, tl, mcp.TaskOptions{Lease: 10 * time.Second})
	// Created on A, polled on B, cancelled on C: A's tool stops.
	id, _ := result(r[0].do("tools/call", `"name":"slow"`))["taskId"].(string)
	if id == "" {
		t.Fatal("no task")
	}
	<-tl.started
	if st := r[1].status(id); st != "working" {
		t.Fatalf("B sees %q", st)
	}
	start := time.Now()
	r[2].do("tasks/cancel", `"taskId":"`+id+`"`)
	select {
	case cause := <-tl.ended:
		t.Logf("A's tool stopped %v after the cancellation on C: %s", time.Since(start), cause)
	case <-time.After(10 * time.Second):
		t.Fatal("the cancellation on C did not stop the tool on A")
	}
	if st := r[1].status(id); st != "cancelled" {
		t.Errorf("after cancel: %q", st)
	}
	// Asked on A, answered on B, completed on C.
	id, _ = result(r[0].do("tools/call", `"name":"ask"`))["taskId"].(string)
	got := r[1].waitFor(id, "input_required")
	if _, ok := got["inputRequests"].(map[string]any)["name#1"]; !ok {
		t.Fatalf("input_required: %v", got)
	}
	if resp := r[1].do("tasks/update", `"taskId":"`+id+`","inputResponses":{"name#1":{"action":"accept","content":{"n":"Bo"}}}`); resp["error"] != nil {
		t.Fatal(resp)
	}
	done := r[2].waitFor(id, "completed")
	if !strings.Contains(fmt.Sprint(done["result"]), `hello {"action":"accept","content":{"n":"Bo"}}`) {
		t.Errorf("result: %v", done)
	}
}

func TestDeadReplicaFails(t *testing.T) {
	t.Parallel()
	rdb := client(t)
	prefix := redistest.Prefix(t.Name())
	store := redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: prefix})
	s := replica{t, mcp.NewServer(newTools().set(t), mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{Store: store}})}
	now := time.Now()
	ghost := &tasks.Record{ID: "DeadDeadDeadDeadDead01", Version: 1, Status: tasks.Working, Created: now, Updated: now,
		Expires: now.Add(time.Hour), Principal: "alice", Tool: "slow", ProtocolVersion: mcp.Version20260728, Owner: "gone"}
	if err := store.Create(context.Background(), ghost, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if st := s.status(ghost.ID); st != "working" {
		t.Fatalf("within the lease: %q", st)
	}
	time.Sleep(150 * time.Millisecond)
	res := result(s.do("tasks/get", `"taskId":"`+ghost.ID+`"`))
	if res["status"] != "failed" || !strings.Contains(res["statusMessage"].(string), "lease") {
		t.Errorf("after the lease: %v", res)
	}
}

// TestRedisDown: with Redis unreachable, tools that must run as tasks fail
// at once saying why (-32001, tasks.ErrUnavailable: retry), optional ones are answered at once, and the rest is
// served.
func TestRedisDown(t *testing.T) {
	t.Parallel()
	srv, err := redistest.StartOwn() // one this test may stop
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond, DialerRetries: 1})
	defer rdb.Close()
	s := replica{t, mcp.NewServer(newTools().set(t), mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{
		Store: redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: redistest.Prefix(t.Name())})}})}
	id, _ := result(s.do("tools/call", `"name":"ask"`))["taskId"].(string)
	s.waitFor(id, "input_required")
	srv.Kill()
	start := time.Now()
	resp := s.do("tools/call", `"name":"slow"`)
	e, _ := resp["error"].(map[string]any)
	if e["code"] != float64(mcp.CodeLimitExceeded) || !strings.HasPrefix(fmt.Sprint(e["message"]), "Task store unavailable: ") {
		t.Errorf("required tool, Redis down: %v", resp)
	}
	if res := result(s.do("tools/call", `"name":"maybe"`)); res["resultType"] != "complete" || !strings.Contains(fmt.Sprint(res["content"]), "maybe ran") {
		t.Errorf("optional tool, Redis down: %v", res)
	}
	if resp := s.do("tasks/get", `"taskId":"`+id+`"`); resp["error"].(map[string]any)["code"] != float64(mcp.CodeLimitExceeded) {
		t.Errorf("tasks/get, Redis down: %v", resp)
	}
	if res := result(s.do("tools/list", "")); len(res["tools"].([]any)) != 3 {
		t.Errorf("tools/list, Redis down: %v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answering with Redis down took %v", d)
	}
}

func TestChangeNotifierAcrossReplicas(t *testing.T) {
	t.Parallel()
	rdb := client(t)
	opts := &redisstore.Options{Prefix: redistest.Prefix(t.Name())}
	tsA, tsB := mcp.NewToolSet(), mcp.NewToolSet()
	a, b := redisstore.NewChangeNotifier(rdb, tsA, opts), redisstore.NewChangeNotifier(rdb, tsB, opts)
	defer a.Close()
	defer b.Close()
	var onA, onB atomic.Int32
	stopA := a.Watch(func() { onA.Add(1) })
	defer stopA()
	sB := mcp.NewServer(tsB, mcp.AllowAll(), &mcp.Options{Changes: b})
	notes := make(chan string, 8)
	ctx, cancel := context.WithCancel(mcp.ContextWithExchange(context.Background(), &mcp.Exchange{
		Notify: func(method string, _ json.RawMessage) error { notes <- method; onB.Add(1); return nil }}))
	defer cancel()
	go sB.Handle(ctx, mcp.Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	if n := <-notes; n != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first: %s", n)
	}
	// A change on replica A reaches a listener on replica B; the feed may
	// take a moment to subscribe, so the change is repeated until heard.
	for i := 0; ; i++ {
		name := fmt.Sprintf("t%d", i)
		if err := tsA.Register(mcp.NewRawTool(mcp.ToolInfo{Name: name}, nil)); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-notes:
			if n != "notifications/tools/list_changed" {
				t.Fatalf("got %s", n)
			}
		case <-time.After(500 * time.Millisecond):
			if i < 5 {
				continue
			}
			t.Fatal("a change on replica A never reached a listener on replica B")
		}
		break
	}
	// Local changes reach local watchers once, not again through Redis.
	before := onA.Load()
	tsA.Remove("t0")
	time.Sleep(200 * time.Millisecond)
	if got := onA.Load() - before; got != 1 {
		t.Errorf("a local change reached a local watcher %d times, want once", got)
	}
}
