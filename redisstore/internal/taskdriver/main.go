// Command taskdriver drives replicas of redisstore/examples/replica (three,
// behind nginx, sharing one Redis; see scripts/tasks/run.sh) through the
// scenarios of the Tasks extension across replicas, and fails unless each
// holds:
//
//	cross    a task created on replica A, polled on B, cancelled on C ends
//	         cancelled; input asked on A, answered on B, done seen on C
//	listen   a subscriptions/listen stream on B hears a tool-list change
//	         made on C and the completion of a task running on A
//	bulk     N tasks created and polled through nginx by two callers: none
//	         lost, each with its own result, none visible to the other
//	kill     kill -9 of the replica running a task: the task is failed,
//	         saying why, within the lease (and the poll)
//	down     with Redis stopped: tools that must run as tasks fail with a
//	         clear error, optional ones are answered at once, the rest is
//	         served
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "taskdriver:", err)
		os.Exit(1)
	}
}

var (
	nginx    = flag.String("nginx", "", "URL of the MCP endpoint behind nginx")
	replicas = flag.String("replicas", "", "comma-separated URLs of the replicas A, B, C")
	pids     = flag.String("pids", "", "comma-separated process IDs of the replicas A, B, C (for kill)")
	scenario = flag.String("run", "cross,listen,bulk,kill", "comma-separated scenarios")
	tasks    = flag.Int("tasks", 10000, "tasks of the bulk scenario")
	workers  = flag.Int("workers", 32, "concurrent clients of the bulk scenario")
	lease    = flag.Duration("lease", 3*time.Second, "the replicas' task lease")
)

func run() error {
	flag.Parse()
	for _, s := range strings.Split(*scenario, ",") {
		start := time.Now()
		var err error
		switch s {
		case "cross":
			err = cross()
		case "listen":
			err = listen()
		case "bulk":
			err = bulk()
		case "kill":
			err = kill()
		case "down":
			err = down()
		default:
			err = fmt.Errorf("unknown scenario %q", s)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		fmt.Printf("  ✓ %s (%.1f s)\n", s, time.Since(start).Seconds())
	}
	return nil
}

var httpClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}

// reply is a decoded JSON-RPC response.
type reply struct {
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

func (r reply) str(k string) string { s, _ := r.Result[k].(string); return s }

const tasksCaps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// call posts one 2026-07-28 request as the holder of token.
func call(url, token, method, name, members string) (reply, error) {
	if members != "" {
		members += ","
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + members +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"taskdriver","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":` + tasksCaps + `}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("Authorization", "Bearer "+token)
	h.Set("Mcp-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", method)
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return reply{}, err
	}
	r := reply{raw: buf.String()}
	if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
		return r, fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, shorten(r.raw))
	}
	return r, nil
}

func shorten(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func tool(url, token, name, args string) (reply, error) {
	return call(url, token, "tools/call", name, `"name":"`+name+`","arguments":`+args)
}

func get(url, token, id string) (reply, error) {
	return call(url, token, "tasks/get", id, `"taskId":"`+id+`"`)
}

// start calls a tool that runs as a task and returns the task's ID.
func start(url, token, name, args string) (string, error) {
	r, err := tool(url, token, name, args)
	if err != nil {
		return "", err
	}
	if r.str("resultType") != "task" || r.str("taskId") == "" {
		return "", fmt.Errorf("%s created no task: %s", name, shorten(r.raw))
	}
	return r.str("taskId"), nil
}

// await polls until the task's status is want, or fails when it ends
// otherwise or within takes longer.
func await(url, token, id, want string, within time.Duration) (reply, error) {
	deadline := time.Now().Add(within)
	for {
		r, err := get(url, token, id)
		if err != nil {
			return r, err
		}
		st := r.str("status")
		if st == want {
			return r, nil
		}
		if r.Error != nil || st == "completed" || st == "failed" || st == "cancelled" || time.Now().After(deadline) {
			return r, fmt.Errorf("task %s: want %s, got %s", id, want, shorten(r.raw))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func replicaURLs() ([]string, error) {
	urls := strings.Split(*replicas, ",")
	if len(urls) != 3 {
		return nil, errors.New("-replicas must name three URLs")
	}
	return urls, nil
}

func cross() error {
	r, err := replicaURLs()
	if err != nil {
		return err
	}
	a, b, c := r[0], r[1], r[2]
	id, err := start(a, "token-a", "slow", `{"seconds":60}`)
	if err != nil {
		return err
	}
	if _, err := await(b, "token-a", id, "working", time.Second); err != nil {
		return fmt.Errorf("poll on B: %w", err)
	}
	if x, err := call(c, "token-a", "tasks/cancel", id, `"taskId":"`+id+`"`); err != nil || x.Error != nil {
		return fmt.Errorf("cancel on C: %v %s", err, x.raw)
	}
	if _, err := await(b, "token-a", id, "cancelled", 5*time.Second); err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond) // A's tool stops; its outcome must not overwrite the cancellation
	if x, err := get(a, "token-a", id); err != nil || x.str("status") != "cancelled" {
		return fmt.Errorf("after the tool on A stopped: %v %s", err, x.raw)
	}
	id, err = start(a, "token-a", "ask", `{}`)
	if err != nil {
		return err
	}
	x, err := await(b, "token-a", id, "input_required", 5*time.Second)
	if err != nil {
		return err
	}
	var keys []string
	for k := range x.Result["inputRequests"].(map[string]any) {
		keys = append(keys, k)
	}
	if len(keys) != 1 {
		return fmt.Errorf("inputRequests: %s", x.raw)
	}
	if x, err := call(b, "token-a", "tasks/update", id, `"taskId":"`+id+`","inputResponses":{"`+keys[0]+`":{"action":"accept","content":{"name":"Ada"}}}`); err != nil || x.Error != nil {
		return fmt.Errorf("update on B: %v %s", err, x.raw)
	}
	x, err = await(c, "token-a", id, "completed", 5*time.Second)
	if err != nil {
		return err
	}
	if !strings.Contains(x.raw, `Ada`) {
		return fmt.Errorf("result: %s", x.raw)
	}
	fmt.Println("    created on A, polled on B, cancelled on C: cancelled; asked on A, answered on B, completed seen on C")
	return nil
}

// listen opens subscriptions/listen on B and checks it hears a tool-list
// change made on C and the completion of a task running on A.
func listen() error {
	r, err := replicaURLs()
	if err != nil {
		return err
	}
	id, err := start(r[0], "token-a", "slow", `{"seconds":1}`)
	if err != nil {
		return err
	}
	body := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"taskIds":["` + id + `"]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + tasksCaps + `}}}`
	req, _ := http.NewRequest(http.MethodPost, r[1], strings.NewReader(body))
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	h.Set("Authorization", "Bearer token-a")
	h.Set("Mcp-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", "subscriptions/listen")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- d
			}
		}
		close(events)
	}()
	next := func(want string) error {
		for {
			select {
			case e, ok := <-events:
				if !ok {
					return fmt.Errorf("stream ended waiting for %s", want)
				}
				if strings.Contains(e, want) {
					return nil
				}
			case <-time.After(10 * time.Second):
				return fmt.Errorf("no %s within 10s", want)
			}
		}
	}
	if err := next(`"notifications/subscriptions/acknowledged"`); err != nil {
		return err
	}
	if x, err := tool(r[2], "token-a", "toggle", `{}`); err != nil || x.Error != nil {
		return fmt.Errorf("toggle on C: %v %s", err, x.raw)
	}
	if err := next(`"notifications/tools/list_changed"`); err != nil {
		return fmt.Errorf("a change on C, listening on B: %w", err)
	}
	if err := next(`"status":"completed"`); err != nil {
		return fmt.Errorf("a task on A, listening on B: %w", err)
	}
	fmt.Println("    listening on B: heard the tool-list change made on C and the completion of the task on A")
	return nil
}

// bulk creates and polls N tasks through nginx, half as a, half as b.
func bulk() error {
	var next, lost, leaked atomic.Int64
	var mu sync.Mutex
	var createLat, getLat []time.Duration
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	begin := time.Now()
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var cl, gl []time.Duration
			defer func() {
				mu.Lock()
				createLat, getLat = append(createLat, cl...), append(getLat, gl...)
				mu.Unlock()
			}()
			for {
				n := next.Add(1)
				if n > int64(*tasks) {
					return
				}
				token, other := "token-a", "token-b"
				if n%2 == 0 {
					token, other = other, token
				}
				t0 := time.Now()
				id, err := start(*nginx, token, "quick", `{"n":`+strconv.FormatInt(n, 10)+`}`)
				cl = append(cl, time.Since(t0))
				if err != nil {
					fail(err)
					lost.Add(1)
					continue
				}
				var r reply
				for tries := 0; ; tries++ {
					t1 := time.Now()
					r, err = get(*nginx, token, id)
					gl = append(gl, time.Since(t1))
					if err != nil || r.Error != nil || r.str("status") == "completed" || tries == 200 {
						break
					}
					time.Sleep(2 * time.Millisecond)
				}
				if err != nil || r.str("status") != "completed" || !strings.Contains(r.raw, fmt.Sprintf(`n=%d task=%s`, n, id)) {
					fail(fmt.Errorf("task %s (n=%d): %v %s", id, n, err, shorten(r.raw)))
					lost.Add(1)
					continue
				}
				// The other caller sees nothing.
				x, err := get(*nginx, other, id)
				if err != nil || x.Error == nil || x.Error.Code != -32602 || !strings.Contains(x.Error.Message, "Task not found") {
					fail(fmt.Errorf("task %s of %s, read by %s: %v %s", id, token, other, err, shorten(x.raw)))
					leaked.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)
	fmt.Printf("    %d tasks through nginx in %.1f s (%.0f tasks/s, %d clients): %d lost, %d visible to the other caller\n",
		*tasks, elapsed.Seconds(), float64(*tasks)/elapsed.Seconds(), *workers, lost.Load(), leaked.Load())
	fmt.Printf("    tools/call creating a task: p50 %v, p99 %v; tasks/get: p50 %v, p99 %v (%d polls)\n",
		pct(createLat, 50), pct(createLat, 99), pct(getLat, 50), pct(getLat, 99), len(getLat))
	return firstErr
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, len(d)*p/100)].Round(10 * time.Microsecond)
}

// kill starts a long task on replica A, kills A with SIGKILL, and polls
// B until the task is failed.
func kill() error {
	r, err := replicaURLs()
	if err != nil {
		return err
	}
	ps := strings.Split(*pids, ",")
	if len(ps) != 3 {
		return errors.New("-pids must name three process IDs")
	}
	pid, err := strconv.Atoi(ps[0])
	if err != nil {
		return err
	}
	id, err := start(r[0], "token-a", "slow", `{"seconds":600}`)
	if err != nil {
		return err
	}
	if _, err := await(r[1], "token-a", id, "working", time.Second); err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill -9 %d: %w", pid, err)
	}
	killed := time.Now()
	x, err := await(r[1], "token-a", id, "failed", *lease+5*time.Second)
	if err != nil {
		return err
	}
	took := time.Since(killed)
	msg := x.str("statusMessage")
	if !strings.Contains(msg, "lease") {
		return fmt.Errorf("statusMessage %q does not say why", msg)
	}
	if took > *lease+time.Second {
		return fmt.Errorf("failed %v after the kill, more than the lease of %v", took, *lease)
	}
	fmt.Printf("    kill -9 of replica A: its task failed %.2f s later, seen on B (lease %v): %q\n", took.Seconds(), *lease, msg)
	return nil
}

// down checks the replicas with Redis stopped.
func down() error {
	x, err := tool(*nginx, "token-a", "slow", `{"seconds":1}`)
	if err != nil {
		return err
	}
	// Retryable: -32001 (tasks.ErrUnavailable), with a retry delay.
	if x.Error == nil || x.Error.Code != -32001 || !strings.Contains(x.Error.Message, "Task store unavailable") {
		return fmt.Errorf("required task, Redis down: %s", x.raw)
	}
	refused := x.Error.Message
	if x, err = tool(*nginx, "token-a", "maybe", `{}`); err != nil || x.str("resultType") != "complete" || !strings.Contains(x.raw, "maybe: task=") {
		return fmt.Errorf("optional task, Redis down: %v %s", err, shorten(x.raw))
	}
	if x, err = tool(*nginx, "token-a", "echo", `{"text":"still here"}`); err != nil || !strings.Contains(x.raw, "still here") {
		return fmt.Errorf("echo, Redis down: %v %s", err, shorten(x.raw))
	}
	if x, err = call(*nginx, "token-a", "tools/list", "", ""); err != nil || x.Error != nil {
		return fmt.Errorf("tools/list, Redis down: %v %s", err, shorten(x.raw))
	}
	fmt.Printf("    Redis down: a required task fails (%q), an optional one is answered at once, echo and tools/list are served\n", refused)
	return nil
}
