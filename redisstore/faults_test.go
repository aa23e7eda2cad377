package redisstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
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

// syncBuffer is a log a test reads while servers write it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ownRedis starts a redis-server this test may stop, fill or flush, behind
// a proxy; the client goes through the proxy.
func ownRedis(t *testing.T, extra ...string) (*redistest.Server, *redistest.Proxy, *redis.Client) {
	t.Helper()
	srv, err := redistest.StartOwn(extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	px, err := redistest.NewProxy("127.0.0.1:0", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(px.Close)
	rdb := redis.NewClient(&redis.Options{Addr: px.Addr, DialTimeout: 300 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return srv, px, rdb
}

// TestNoTaskStoppedAtBirth: 3 000 short tasks with a 60 ms lease, through a
// proxy that delays every exchange with Redis by 2 ms each way. A renewal
// that reached Redis before the task's record used to find none and stop
// the task at its birth; now a task is renewed only once stored, so every
// one completes.
func TestNoTaskStoppedAtBirth(t *testing.T) {
	_, px, rdb := ownRedis(t)
	px.SetDelay(2 * time.Millisecond)
	var stopped atomic.Int32
	ts := mcp.NewToolSet()
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "brief", TaskSupport: mcp.TaskRequired},
		func(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
			select {
			case <-time.After(time.Duration(len(req.TaskID())%7) * time.Millisecond):
				return mcp.TextResult("done"), nil
			case <-ctx.Done():
				stopped.Add(1)
				return nil, ctx.Err()
			}
		})); err != nil {
		t.Fatal(err)
	}
	s := replica{t, mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{
		Store: redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: redistest.Prefix(t.Name()), MaxTasksPerPrincipal: -1}),
		Lease: 60 * time.Millisecond, MaxRunning: -1}})}
	const n, workers = 3000, 32
	var next, notDone atomic.Int32
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first string
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= n {
				id, _ := result(s.do("tools/call", `"name":"brief"`))["taskId"].(string)
				var res map[string]any
				for range 2000 {
					res = result(s.do("tasks/get", `"taskId":"`+id+`"`))
					if st, _ := res["status"].(string); st != "working" {
						break
					}
					time.Sleep(2 * time.Millisecond)
				}
				if res["status"] != "completed" {
					notDone.Add(1)
					mu.Lock()
					if first == "" {
						first = fmt.Sprint(id, res)
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d tasks, lease 60 ms, 4 ms added to each round trip: %d tools stopped, %d tasks not completed", n, stopped.Load(), notDone.Load())
	if stopped.Load() != 0 || notDone.Load() != 0 {
		t.Errorf("%d tools stopped, %d tasks not completed; first: %s", stopped.Load(), notDone.Load(), first)
	}
}

// TestOpenChecks: Open refuses a lease shorter than 10 round trips, and a
// Redis that may evict tasks unless told to allow it.
func TestOpenChecks(t *testing.T) {
	_, px, rdb := ownRedis(t)
	ctx := context.Background()
	if _, err := redisstore.Open(ctx, rdb, &redisstore.Options{Lease: 10 * time.Second}); err != nil {
		t.Fatalf("a sound Redis: %v", err)
	}
	px.SetDelay(5 * time.Millisecond)
	_, err := redisstore.Open(ctx, rdb, &redisstore.Options{Lease: 50 * time.Millisecond})
	if !errors.Is(err, redisstore.ErrLeaseTooShort) || !strings.Contains(err.Error(), "make mcp.TaskOptions.Lease") {
		t.Errorf("a 50 ms lease with a 10 ms round trip: %v", err)
	}
	px.SetDelay(0)
	if err := rdb.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err(); err != nil {
		t.Fatal(err)
	}
	_, err = redisstore.Open(ctx, rdb, nil)
	if !errors.Is(err, redisstore.ErrEviction) || !strings.Contains(err.Error(), "allkeys-lru") {
		t.Errorf("allkeys-lru: %v", err)
	}
	var log syncBuffer
	if _, err := redisstore.Open(ctx, rdb, &redisstore.Options{AllowEviction: true,
		Logger: slog.New(slog.NewTextHandler(&log, nil))}); err != nil {
		t.Errorf("allkeys-lru allowed: %v", err)
	}
	if !strings.Contains(log.String(), "level=ERROR") || !strings.Contains(log.String(), "allkeys-lru") {
		t.Errorf("allowed eviction not logged at ERROR: %s", log.String())
	}
	if _, err := redisstore.Open(ctx, rdb, &redisstore.Options{Prefix: "a{b"}); err == nil {
		t.Error("a prefix with a brace was accepted")
	}
}

// TestOutcomeOutlivesOutage: a tool that finishes while Redis is
// unreachable for 5 s is completed once it is back.
func TestOutcomeOutlivesOutage(t *testing.T) {
	_, px, rdb := ownRedis(t)
	tl := newTools()
	var log syncBuffer
	s := replica{t, mcp.NewServer(tl.set(t), mcp.AllowAll(), &mcp.Options{Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Tasks: mcp.TaskOptions{Lease: 10 * time.Second,
			Store: redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: redistest.Prefix(t.Name())})}})}
	id, _ := result(s.do("tools/call", `"name":"slow"`))["taskId"].(string)
	<-tl.started
	px.SetDown(true)
	tl.release <- "finished during the outage"
	time.Sleep(5 * time.Second)
	px.SetDown(false)
	back := time.Now()
	res := s.waitFor(id, "completed")
	t.Logf("completed %v after Redis came back", time.Since(back).Round(time.Millisecond))
	if !strings.Contains(fmt.Sprint(res["result"]), "finished during the outage") {
		t.Errorf("result: %v", res)
	}
	if !strings.Contains(log.String(), "retrying until it is stored") {
		t.Errorf("the retry was not logged: %s", log.String())
	}
}

// TestLostTask: a running task whose record vanishes (FLUSHALL, as a
// Redis restarted empty) is reported lost by the replica that runs it, from
// its own ledger (the Store remembering no births: RememberTasks -1): ERROR
// log with its id, its tool stopped, a failed notification on the listen
// stream following it, and tasks/get says the store lost it.
func TestLostTask(t *testing.T) {
	srv, _, rdb := ownRedis(t)
	tl := newTools()
	var log syncBuffer
	s := replica{t, mcp.NewServer(tl.set(t), mcp.AllowAll(), &mcp.Options{Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Tasks: mcp.TaskOptions{Lease: 300 * time.Millisecond,
			Store: redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: redistest.Prefix(t.Name()), RememberTasks: -1})}})}
	id, _ := result(s.do("tools/call", `"name":"slow"`))["taskId"].(string)
	<-tl.started
	notes := make(chan string, 16)
	ctx, cancel := context.WithCancel(mcp.ContextWithExchange(context.Background(), &mcp.Exchange{
		Notify: func(method string, params json.RawMessage) error { notes <- method + " " + string(params); return nil }}))
	defer cancel()
	go s.s.Handle(ctx, mcp.Caller{Principal: "alice"}, []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"taskIds":["`+id+`"]},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`))
	for n := range notes {
		if strings.Contains(n, `"status":"working"`) {
			break
		}
	}
	direct := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer direct.Close()
	if err := direct.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	flushed := time.Now()
	select {
	case cause := <-tl.ended:
		t.Logf("tool stopped %v after the flush: %s", time.Since(flushed).Round(time.Millisecond), cause)
		if !strings.Contains(cause, "lost") {
			t.Errorf("cause: %s", cause)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the tool of a lost task was not stopped")
	}
	deadline := time.After(3 * time.Second)
	for heard := false; !heard; {
		select {
		case n := <-notes:
			heard = strings.Contains(n, `"status":"failed"`) && strings.Contains(n, "task store lost")
		case <-deadline:
			t.Fatal("the listen stream heard no failure")
		}
	}
	res := result(s.do("tasks/get", `"taskId":"`+id+`"`))
	if res["status"] != "failed" || !strings.Contains(fmt.Sprint(res["statusMessage"]), "task store lost this task") {
		t.Errorf("tasks/get of the lost task: %v", res)
	}
	if l := log.String(); !strings.Contains(l, "level=ERROR msg=\"mcp: task lost") || !strings.Contains(l, id) {
		t.Errorf("log: %s", l)
	}
	if strings.Contains(log.String(), "expired") && !strings.Contains(log.String(), "before it expired") {
		t.Errorf("a lost task reported as expired: %s", log.String())
	}
}

// TestStoreFull: with noeviction and maxmemory reached, a task that must
// be stored is refused with -32001 and Retry-After (the store is full, not
// unavailable), and a finished task can still be read.
func TestStoreFull(t *testing.T) {
	srv, _, rdb := ownRedis(t)
	tl := newTools()
	server := mcp.NewServer(tl.set(t), mcp.AllowAll(), &mcp.Options{Tasks: mcp.TaskOptions{
		Store: redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: redistest.Prefix(t.Name())})}})
	s := replica{t, server}
	id, _ := result(s.do("tools/call", `"name":"slow"`))["taskId"].(string)
	<-tl.started
	tl.release <- "before the store filled up"
	s.waitFor(id, "completed")
	direct := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer direct.Close()
	ctx := context.Background()
	used, err := direct.Info(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	var mem int64
	for _, line := range strings.Split(used, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			fmt.Sscan(v, &mem)
		}
	}
	if err := direct.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	// Below what Redis uses: every write is refused, reads are served.
	if err := direct.ConfigSet(ctx, "maxmemory", fmt.Sprint(mem/2)).Err(); err != nil {
		t.Fatal(err)
	}
	if err := direct.Set(ctx, "junk", "x", 0).Err(); !redis.IsOOMError(err) {
		t.Fatalf("a write to a full Redis: %v", err)
	}
	h := mcp.NewHandler(server, &mcp.HandlerOptions{Authenticator: mcp.StaticTokens(map[string]mcp.Caller{"t": {Principal: "alice"}})})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow",` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json", "Authorization": "Bearer t",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "slow"} {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var resp struct {
		Error *struct {
			Code    int
			Message string
		}
	}
	_ = json.Unmarshal(w.Body.Bytes(), &resp)
	if resp.Error == nil || resp.Error.Code != mcp.CodeLimitExceeded || !strings.Contains(resp.Error.Message, "task store is full") ||
		w.Header().Get("Retry-After") == "" {
		t.Errorf("tools/call with Redis full: %d Retry-After %q %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if res := result(s.do("tasks/get", `"taskId":"`+id+`"`)); res["status"] != "completed" {
		t.Errorf("tasks/get of a finished task with Redis full: %v", s.do("tasks/get", `"taskId":"`+id+`"`))
	}
	st := redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: redistest.Prefix(t.Name())})
	now := time.Now()
	err = st.Create(ctx, &tasks.Record{ID: "FullFullFullFullFull01", Version: 1, Status: tasks.Working, Created: now,
		Updated: now, Expires: now.Add(time.Hour), Owner: "r"}, time.Second)
	if !errors.Is(err, tasks.ErrStoreFull) {
		t.Errorf("Create on a full Redis: %v, want ErrStoreFull", err)
	}
}

// TestLifetimeFromStoreClock: a record keeps the lifetime Create gave it,
// in Redis's clock: a Swap by a replica whose clock is an hour ahead does
// not shorten it.
func TestLifetimeFromStoreClock(t *testing.T) {
	rdb := client(t)
	prefix := redistest.Prefix(t.Name())
	st := redisstore.NewUnchecked(rdb, &redisstore.Options{Prefix: prefix})
	ctx := context.Background()
	now := time.Now()
	rec := &tasks.Record{ID: "ClockClockClockClock01", Version: 1, Status: tasks.Working, Created: now, Updated: now,
		Expires: now.Add(time.Hour), Owner: "r"}
	if err := st.Create(ctx, rec, time.Minute); err != nil {
		t.Fatal(err)
	}
	skewed := *rec
	skewed.Version, skewed.Status, skewed.Owner = 2, tasks.Completed, ""
	skewed.Updated = now.Add(time.Hour) // as a replica an hour ahead writes it
	if err := st.Swap(ctx, &skewed, time.Minute); err != nil {
		t.Fatal(err)
	}
	keys, err := rdb.Keys(ctx, prefix+"task:*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v %v", keys, err)
	}
	if left := rdb.PTTL(ctx, keys[0]).Val(); left < 59*time.Minute {
		t.Errorf("after a skewed replica's Swap the record has %v left, want about an hour", left)
	}
	if !strings.HasSuffix(keys[0], "task:{"+rec.ID+"}") {
		t.Errorf("key %s does not carry the task's hash tag", keys[0])
	}
}

// TestLogger: go-redis's lines reach slog at WARN, at most Burst per
// Interval, the suppressed ones counted.
func TestLogger(t *testing.T) {
	var log syncBuffer
	l := redisstore.NewLogger(slog.New(slog.NewTextHandler(&log, nil)), &redisstore.LoggerOptions{Interval: 200 * time.Millisecond, Burst: 2})
	for i := range 5 {
		l.Printf(context.Background(), "failed to dial %d", i)
	}
	time.Sleep(250 * time.Millisecond)
	l.Printf(context.Background(), "failed to dial %d", 5)
	got := log.String()
	if n := strings.Count(got, "level=WARN msg=\"redis client\""); n != 3 {
		t.Errorf("%d lines, want 3: %s", n, got)
	}
	if !strings.Contains(got, `message="failed to dial 5" suppressed=3`) {
		t.Errorf("suppressed lines not counted: %s", got)
	}
}
