package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// replicas returns n Servers sharing one store, as replicas behind a load
// balancer share Redis, each with its own gate.
func replicas(t *testing.T, n int, store tasks.Store, o mcp.TaskOptions) ([]*mcp.Server, []*gate) {
	t.Helper()
	var servers []*mcp.Server
	var gates []*gate
	for i := range n {
		g := newGate()
		o := o
		o.Store, o.Replica = store, "replica-"+string(rune('a'+i))
		servers = append(servers, mcp.NewServer(taskTools(t, g), grantsAll, &mcp.Options{Tasks: o}))
		gates = append(gates, g)
	}
	return servers, gates
}

func TestTaskAcrossReplicas(t *testing.T) {
	t.Parallel()
	store := tasks.NewMemoryStore(nil)
	srv, gates := replicas(t, 3, store, mcp.TaskOptions{Lease: time.Minute})
	a, b, c := newTaskClient(t, srv[0], "alice"), newTaskClient(t, srv[1], "alice"), newTaskClient(t, srv[2], "alice")

	// Create on A, poll on B, cancel on C: A's tool is stopped.
	id := a.start("slow", `{}`)
	gates[0].awaitStart(t)
	if r := b.get(id); r.str("status") != "working" {
		t.Fatalf("B sees %s", r.Raw)
	}
	start := time.Now()
	if r := c.do("tasks/cancel", `"taskId":"`+id+`"`); r.Error != nil {
		t.Fatalf("cancel on C: %s", r.Raw)
	}
	select {
	case cause := <-gates[0].ended:
		t.Logf("A's tool stopped %v after the cancellation on C (%v)", time.Since(start), cause)
	case <-time.After(10 * time.Second):
		t.Fatal("the tool running on A was not stopped by the cancellation on C")
	}
	if r := b.get(id); r.str("status") != "cancelled" {
		t.Errorf("B after the cancellation: %s", r.Raw)
	}

	// Input across replicas: asked on A, answered in parts on B and C; the
	// tool resumes on C, the replica that got the last answer.
	id = a.start("ask", `{}`)
	a.wait(id, tasks.InputRequired)
	if r := b.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"name#1":{"action":"accept","content":{"name":"Bo"}}}`); r.Error != nil {
		t.Fatal(r.Raw)
	}
	if r := c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"confirm#1":{"action":"accept"}}`); r.Error != nil {
		t.Fatal(r.Raw)
	}
	b.wait(id, tasks.InputRequired)
	if r := a.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"again#2":{"action":"accept"}}`); r.Error != nil {
		t.Fatal(r.Raw)
	}
	if r := c.wait(id, tasks.Completed); !strings.Contains(r.Raw, "state r2") {
		t.Errorf("resumed task: %s", r.Raw)
	}
}

func TestTaskLeaseExpiry(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		store := tasks.NewMemoryStore(nil)
		// On the bubble's clock: only the library's own timers move it.
		const lease, ghostLease = time.Second, 300 * time.Millisecond
		srv, gates := replicas(t, 2, store, mcp.TaskOptions{Lease: lease})
		a, b := newTaskClient(t, srv[0], "alice"), newTaskClient(t, srv[1], "alice")

		// A task whose replica is gone: its lease ends, and the next reader
		// fails it, saying why.
		now := time.Now()
		ghost := &tasks.Record{ID: "GhostGhostGhostGhost01", Version: 1, Status: tasks.Working, Created: now, Updated: now,
			Expires: now.Add(time.Hour), PollInterval: time.Second, Principal: "alice", Permission: "tasks.slow",
			Tool: "slow", Arguments: json.RawMessage(`{}`), ProtocolVersion: mcp.Version20260728, Owner: "replica-dead"}
		if err := store.Create(context.Background(), ghost, ghostLease); err != nil {
			t.Fatal(err)
		}
		if r := b.get(ghost.ID); r.str("status") != "working" {
			t.Fatalf("within the lease: %s", r.Raw)
		}
		advance(2 * ghostLease)
		r := b.get(ghost.ID)
		e, _ := r.Result["error"].(map[string]any)
		if r.str("status") != "failed" || e["code"] != float64(mcp.CodeInternalError) ||
			!strings.Contains(r.str("statusMessage"), "stopped") || !strings.Contains(r.str("statusMessage"), "lease") {
			t.Fatalf("after the lease: %s", r.Raw)
		}

		// A live replica renews its lease: a task outliving many leases stays
		// working, seen from the other replica, until it completes.
		id := a.start("slow", `{}`)
		gates[0].awaitStart(t)
		for end := time.Now().Add(5 * lease / 2); time.Now().Before(end); advance(lease / 10) {
			if r := b.get(id); r.str("status") != "working" {
				t.Fatalf("a renewed task: %s", r.Raw)
			}
		}
		gates[0].release <- "late"
		if r := b.wait(id, tasks.Completed); !strings.Contains(r.Raw, "late") {
			t.Errorf("%s", r.Raw)
		}
	})
}

func TestTaskStoreDown(t *testing.T) {
	t.Parallel()
	_, c, _ := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{Store: failingStore{}}})
	// An optional tool runs at once instead.
	if r := c.call("oops", `{}`); r.str("resultType") != "complete" || r.Result["isError"] != true {
		t.Errorf("optional tool, store down: %s", r.Raw)
	}
	// A required one fails, saying why.
	r := c.call("must", `{}`)
	if r.Error == nil || r.Error.Code != mcp.CodeInternalError ||
		r.Error.Message != `Internal error: the task store is unavailable, and tool "must" runs only as a task; try again later` {
		t.Errorf("required tool, store down: %s", r.Raw)
	}
	if strings.Contains(r.Raw, "connection refused") {
		t.Errorf("the store's error reached the client: %s", r.Raw)
	}
	r = c.get("AAAAAAAAAAAAAAAAAAAAAA")
	if r.Error == nil || r.Error.Message != "Internal error: the task store is unavailable; retry later" {
		t.Errorf("tasks/get, store down: %s", r.Raw)
	}
	// Everything else is served.
	if r := c.do("tools/list", ""); r.Error != nil || len(r.Result["tools"].([]any)) == 0 {
		t.Errorf("tools/list, store down: %s", r.Raw)
	}
	if r := c.call("sync", `{}`); r.str("resultType") != "complete" {
		t.Errorf("sync tool, store down: %s", r.Raw)
	}
}

func TestTaskShutdown(t *testing.T) {
	t.Parallel()
	s, c, g := taskFixture(t, nil)
	id := c.start("slow", `{}`)
	g.awaitStart(t)
	quick := c.start("must", `{}`)
	c.wait(quick, tasks.Completed)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a task still running = %v", err)
	}
	r := c.wait(id, tasks.Failed)
	if !strings.Contains(r.Raw, "shut down") {
		t.Errorf("task cut by shutdown: %s", r.Raw)
	}
	if r := c.call("oops", `{}`); r.str("resultType") != "complete" {
		t.Errorf("optional tool after shutdown: %s", r.Raw)
	}
	if r := c.call("must", `{}`); r.Error == nil || !strings.Contains(r.Error.Message, "this server is shutting down") {
		t.Errorf("required tool after shutdown: %s", r.Raw)
	}
	if r := c.get(quick); r.str("status") != "completed" {
		t.Errorf("tasks/get after shutdown: %s", r.Raw)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Errorf("second Shutdown = %v", err)
	}
}

// TestTaskMaxRunning: beyond MaxRunning a task-only tool is refused with
// -32001 (503) naming the limit, and an optional one runs at once.
func TestTaskMaxRunning(t *testing.T) {
	t.Parallel()
	_, c, g := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{MaxRunning: 1}})
	c.start("slow", `{}`)
	g.awaitStart(t)
	r := c.call("must", `{}`)
	if r.Status != 503 || r.Error == nil || r.Error.Code != mcp.CodeLimitExceeded || !strings.Contains(r.Error.Message, "MaxRunning") {
		t.Errorf("beyond MaxRunning: %d %s", r.Status, r.Raw)
	}
	done := make(chan taskReply, 1)
	go func() { done <- c.call("slow", `{}`) }()
	g.awaitStart(t)
	g.release <- "x"
	g.release <- "x"
	if r := <-done; r.Error != nil || r.str("resultType") != "complete" {
		t.Errorf("optional tool beyond MaxRunning: %s, want it answered at once", r.Raw)
	}
}

func TestTaskDisabled(t *testing.T) {
	t.Parallel()
	_, c, _ := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{Disabled: true}})
	if r := c.do("server/discover", ""); strings.Contains(r.Raw, tasks.Extension) {
		t.Errorf("discover advertises disabled tasks: %s", r.Raw)
	}
	if r := c.get("AAAAAAAAAAAAAAAAAAAAAA"); r.Error == nil || r.Error.Code != mcp.CodeMethodNotFound {
		t.Errorf("tasks/get, disabled: %s", r.Raw)
	}
	if r := c.call("oops", `{}`); r.str("resultType") != "complete" {
		t.Errorf("optional tool, disabled: %s", r.Raw)
	}
	if r := c.call("must", `{}`); r.Error == nil || r.Error.Code != mcp.CodeInternalError {
		t.Errorf("required tool, disabled: %s", r.Raw)
	}
}

func TestTaskExpiry(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		_, c, _ := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{TTL: 150 * time.Millisecond}})
		id := c.start("must", `{}`)
		if r := c.wait(id, tasks.Completed); r.Result["ttlMs"] != 150.0 {
			t.Errorf("ttlMs: %s", r.Raw)
		}
		advance(time.Second) // well past the time to live
		if r := c.get(id); r.Error == nil || !strings.Contains(r.Error.Message, "Task not found") {
			t.Errorf("expired task: %s", r.Raw)
		}
	})
}

func TestTaskRoutingHeaders(t *testing.T) {
	t.Parallel()
	_, c, _ := taskFixture(t, nil)
	id := c.start("must", `{}`)
	c.wait(id, tasks.Completed)
	for _, tc := range []struct {
		name, want string
	}{{id, `"status":"completed"`}, {"", "required header Mcp-Name is missing"}, {"other", "Mcp-Name header value"}} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Mcp-Method": {"tasks/get"}, "Mcp-Protocol-Version": {"2026-07-28"}}
			if tc.name != "" {
				h.Set("Mcp-Name", tc.name)
			}
			hc := *c
			hc.ctx = mcp.ContextWithExchange(context.Background(), &mcp.Exchange{ProtocolVersion: "2026-07-28", Header: h})
			r := hc.get(id)
			if !strings.Contains(r.Raw, tc.want) || (tc.name != id && (r.Status != 400 || r.Error.Code != mcp.CodeHeaderMismatch)) {
				t.Errorf("tasks/get with Mcp-Name %q: %d %s", tc.name, r.Status, r.Raw)
			}
		})
	}
}

// TestTaskCreationCost: a task costs one durable write before the answer,
// and no other store operation until its tool ends.
func TestTaskCreationCost(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		store := &countingStore{Store: tasks.NewMemoryStore(nil)}
		s := mcp.NewServer(taskTools(t, g), grantsAll, &mcp.Options{Tasks: mcp.TaskOptions{Store: store}})
		c := newTaskClient(t, s, "alice")
		for range 20 {
			store.mu.Lock()
			clear(store.ops)
			store.mu.Unlock()
			id := c.start("slow", `{}`)
			g.awaitStart(t)
			synctest.Wait() // whatever the start does in the background is done
			store.mu.Lock()
			ops := store.ops["create"] + store.ops["get"] + store.ops["swap"]
			creates := store.ops["create"]
			store.mu.Unlock()
			if creates != 1 || ops != 1 {
				t.Fatalf("creating a task made %v store operations, want one Create", store.ops)
			}
			g.release <- "x"
			c.wait(id, tasks.Completed)
		}
	})
}

// TestTaskNoGoroutineLeft: once its tasks have ended, a Server runs no
// goroutine of its own (the heartbeat and the store watch end with the
// last task).
func TestTaskNoGoroutineLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := leakSnapshot()
		// A lease of 600 ms on the bubble's clock, its heartbeat every 200 ms.
		_, c, g := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{Lease: 600 * time.Millisecond}})
		var ids []string
		for range 5 {
			ids = append(ids, c.start("slow", `{}`))
			g.awaitStart(t)
		}
		advance(250 * time.Millisecond) // a heartbeat
		for range ids {
			g.release <- "x"
		}
		for _, id := range ids {
			c.wait(id, tasks.Completed)
		}
		base.check(t)
	})
}

// TestTaskOutlivesItsRequest: a task's tool runs on after the request
// that created it is answered and its context cancelled, and keeps of the
// transport only what it said of the request, not the request itself.
func TestTaskOutlivesItsRequest(t *testing.T) {
	t.Parallel()
	seen := make(chan *mcp.Exchange, 1)
	proceed := make(chan struct{}) // closed once the request is cancelled
	ts := mcp.NewToolSet()
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "late", TaskSupport: mcp.TaskRequired},
		func(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
			<-proceed
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			seen <- mcp.ExchangeFromContext(ctx)
			return mcp.TextResult("still here"), nil
		})); err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(ts, mcp.AllowAll(), nil)
	c := newTaskClient(t, s, "alice")
	ctx, cancel := context.WithCancel(context.Background())
	r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	c.ctx = mcp.ContextWithExchange(ctx, &mcp.Exchange{Transport: mcp.TransportHTTP, HTTPRequest: r,
		Notify: func(string, json.RawMessage) error { t.Error("a task sent a notification"); return nil }})
	id := c.start("late", `{}`)
	cancel() // the client went away
	close(proceed)
	c.ctx = nil
	if done := c.wait(id, tasks.Completed); !strings.Contains(done.Raw, "still here") {
		t.Errorf("%s", done.Raw)
	}
	if ex := <-seen; ex == nil || ex.Transport != mcp.TransportHTTP || ex.HTTPRequest != nil || ex.Notify != nil {
		t.Errorf("the task's tool saw the Exchange %+v", ex)
	}
}
