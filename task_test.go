package mcp_test

import (
	"context"
	"encoding/base64"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

var isoMillis = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestTaskLifecycle(t *testing.T) {
	t.Parallel()
	_, c, g := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{TTL: time.Minute, PollInterval: 250 * time.Millisecond}})

	created := c.call("slow", `{}`)
	if created.Status != 200 || created.str("resultType") != "task" || created.str("status") != "working" {
		t.Fatalf("CreateTaskResult: %s", created.Raw)
	}
	id := created.str("taskId")
	raw, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil || len(raw) != 16 {
		t.Errorf("taskId %q is not 128 bits base64url", id)
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if !isoMillis.MatchString(created.str(k)) {
			t.Errorf("%s = %q, want ISO 8601 in UTC", k, created.str(k))
		}
	}
	if created.Result["ttlMs"] != 60000.0 || created.Result["pollIntervalMs"] != 250.0 {
		t.Errorf("ttlMs, pollIntervalMs = %v, %v", created.Result["ttlMs"], created.Result["pollIntervalMs"])
	}
	for _, k := range []string{"result", "error", "inputRequests", "requestState", "task"} {
		if _, has := created.Result[k]; has {
			t.Errorf("CreateTaskResult carries %q: %s", k, created.Raw)
		}
	}
	g.awaitStart(t)
	// Created before the answer: tasks/get finds it at once.
	if r := c.get(id); r.str("status") != "working" || r.str("resultType") != "complete" || r.str("taskId") != id {
		t.Fatalf("tasks/get of a working task: %s", r.Raw)
	}
	g.release <- "finished"
	done := c.wait(id, tasks.Completed)
	res, _ := done.Result["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != "finished" || res["resultType"] != "complete" {
		t.Errorf("completed task's result: %s", done.Raw)
	}
	if _, has := done.Result["error"]; has {
		t.Errorf("a completed task carries an error: %s", done.Raw)
	}
	if done.str("lastUpdatedAt") < done.str("createdAt") {
		t.Errorf("lastUpdatedAt %s before createdAt %s", done.str("lastUpdatedAt"), done.str("createdAt"))
	}
	// Cancelling a finished task changes nothing and is acknowledged.
	if r := c.do("tasks/cancel", `"taskId":"`+id+`"`); r.Error != nil || r.str("resultType") != "complete" || r.Result["taskId"] != nil {
		t.Errorf("tasks/cancel of a completed task: %s", r.Raw)
	}
	if r := c.get(id); r.str("status") != "completed" {
		t.Errorf("after cancelling a completed task: %s", r.Raw)
	}
}

func TestTaskOutcomes(t *testing.T) {
	t.Parallel()
	_, c, _ := taskFixture(t, &mcp.Options{MaxResultBytes: 1024})

	// An ordinary error is a tool result with isError: completed.
	r := c.wait(c.start("oops", `{}`), tasks.Completed)
	if res := r.Result["result"].(map[string]any); res["isError"] != true || !strings.Contains(r.Raw, "disk full") {
		t.Errorf("isError result: %s", r.Raw)
	}
	// An *Error is a JSON-RPC error: failed, with the error inlined.
	r = c.wait(c.start("boom", `{}`), tasks.Failed)
	e, _ := r.Result["error"].(map[string]any)
	if e["code"] != -32050.0 || e["message"] != "quota exceeded" || e["data"].(map[string]any)["retryAfter"] != 3.0 ||
		!strings.Contains(r.str("statusMessage"), "quota exceeded") {
		t.Errorf("failed task: %s", r.Raw)
	}
	if _, has := r.Result["result"]; has {
		t.Errorf("a failed task carries a result: %s", r.Raw)
	}
	// A panic is an internal error; the stack stays in the log.
	r = c.wait(c.start("panics", `{}`), tasks.Failed)
	if e := r.Result["error"].(map[string]any); e["code"] != float64(mcp.CodeInternalError) || strings.Contains(r.Raw, "kaboom") {
		t.Errorf("panicking task: %s", r.Raw)
	}
	// MaxResultBytes applies to a task's result as to any.
	r = c.wait(c.start("big", `{}`), tasks.Completed)
	if res := r.Result["result"].(map[string]any); res["isError"] != true || !strings.Contains(r.Raw, "more than the server's cap of 1024 bytes") {
		t.Errorf("oversized result: %s", r.Raw)
	}
}

func TestTaskCapabilityGating(t *testing.T) {
	t.Parallel()
	s, c, _ := taskFixture(t, nil)
	id := c.start("must", `{}`)

	plain := newTaskClient(t, s, "alice")
	plain.caps = noTasksCaps
	// Without the extension an optional tool is answered at once...
	if r := plain.call("big", `{}`); r.str("resultType") != "complete" || r.Result["content"] == nil || r.Result["taskId"] != nil {
		t.Errorf("optional tool without the extension: %s", r.Raw[:min(len(r.Raw), 300)])
	}
	// ...a required one is refused with -32021 naming the extension...
	r := plain.call("must", `{}`)
	if r.Error == nil || r.Error.Code != mcp.CodeMissingClientCapability || r.Status != 400 ||
		r.Error.Data["requiredCapabilities"].(map[string]any)["extensions"].(map[string]any)[tasks.Extension] == nil ||
		!strings.Contains(r.Error.Message, `tool "must" runs only as a task`) {
		t.Errorf("required tool without the extension: %d %s", r.Status, r.Raw)
	}
	// ...and so are the tasks/* methods, whatever the task.
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		members := `"taskId":"` + id + `"`
		if m == "tasks/update" {
			members += `,"inputResponses":{}`
		}
		if r := plain.do(m, members); r.Error == nil || r.Error.Code != mcp.CodeMissingClientCapability {
			t.Errorf("%s without the extension: %s", m, r.Raw)
		}
	}
	// A tool that never runs as a task is answered at once even with it.
	if r := c.call("sync", `{}`); r.str("resultType") != "complete" {
		t.Errorf("TaskNever tool: %s", r.Raw)
	}
	// The extension is advertised; removed and unknown methods are unknown.
	if r := c.do("server/discover", ""); r.Result["capabilities"].(map[string]any)["extensions"].(map[string]any)[tasks.Extension] == nil {
		t.Errorf("server/discover does not advertise the extension: %s", r.Raw)
	}
	for _, m := range []string{"tasks/result", "tasks/list"} {
		if r := c.do(m, `"taskId":"`+id+`"`); r.Error == nil || r.Error.Code != mcp.CodeMethodNotFound {
			t.Errorf("%s: %s", m, r.Raw)
		}
	}
	// Before 2026-07-28 the extension does not exist.
	_, body := s.Handle(context.Background(), mcp.Caller{Principal: "alice"},
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"`+id+`"}}`))
	if !strings.Contains(string(body), `"code":-32601`) {
		t.Errorf("tasks/get under 2025-03-26: %s", body)
	}
	_, body = s.Handle(context.Background(), mcp.Caller{Principal: "alice"},
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"must"}}`))
	if !strings.Contains(string(body), `"code":-32021`) || !strings.Contains(string(body), "protocol 2026-07-28") {
		t.Errorf("required tool under 2025-03-26: %s", body)
	}
}

func TestTaskBadInput(t *testing.T) {
	t.Parallel()
	_, c, _ := taskFixture(t, nil)
	done := c.start("must", `{}`)
	c.wait(done, tasks.Completed)
	cases := []struct{ method, members, want string }{
		{"tasks/get", ``, "Invalid params: taskId is required"},
		{"tasks/get", `"taskId":12`, "Invalid params: taskId must be a string, got integer"},
		{"tasks/get", `"taskId":"short"`, `Invalid params: taskId "short" is not a task ID this server issues`},
		{"tasks/get", `"taskId":"` + strings.Repeat("!", 22) + `"`, "is not a task ID this server issues"},
		{"tasks/cancel", `"taskId":"` + strings.Repeat("é", 200) + `"`, "…"},
		{"tasks/get", `"taskId":"AAAAAAAAAAAAAAAAAAAAAA"`, `Task not found: "AAAAAAAAAAAAAAAAAAAAAA" (no such task for this caller, or it expired)`},
		{"tasks/update", `"taskId":"` + done + `"`, "Invalid params: inputResponses is required"},
		{"tasks/update", `"taskId":"` + done + `","inputResponses":[]`, "inputResponses must be an object, got array"},
		{"tasks/update", `"taskId":"` + done + `","inputResponses":{"k":1}`, `inputResponses["k"] must be an object, got integer`},
	}
	for i, tc := range cases {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			r := c.do(tc.method, tc.members)
			if r.Error == nil || r.Error.Code != mcp.CodeInvalidParams || !strings.Contains(r.Error.Message, tc.want) || len(r.Error.Message) > 400 {
				t.Errorf("%s %s: want -32602 %q, got %s", tc.method, tc.members[:min(len(tc.members), 40)], tc.want, r.Raw[:min(len(r.Raw), 400)])
			}
		})
	}
	if r := c.get(done); r.str("status") != "completed" || r.Result["result"] == nil {
		t.Errorf("bad input changed the task: %s", r.Raw)
	}
	// An unknown TaskSupport is refused when the tool is registered.
	err := mcp.NewToolSet().Register(mcp.NewRawTool(mcp.ToolInfo{Name: "x", TaskSupport: "sometimes"}, nil))
	if !errors.Is(err, mcp.ErrInvalidToolInfo) {
		t.Errorf("Register with TaskSupport \"sometimes\" = %v, want ErrInvalidToolInfo", err)
	}
}

func TestTaskInputRequired(t *testing.T) {
	t.Parallel()
	_, c, _ := taskFixture(t, nil)
	id := c.start("ask", `{}`)
	r := c.wait(id, tasks.InputRequired)
	reqs, _ := r.Result["inputRequests"].(map[string]any)
	if len(reqs) != 2 || reqs["name#1"] == nil || reqs["confirm#1"] == nil ||
		reqs["name#1"].(map[string]any)["method"] != "elicitation/create" || r.str("statusMessage") == "" {
		t.Fatalf("input_required task: %s", r.Raw)
	}
	if r := c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"nope":{"x":1}}`); r.Error != nil ||
		r.str("resultType") != "complete" || !strings.Contains(r.Raw, `"io.github.embedmcp/ignoredInputResponses":["nope"]`) {
		t.Errorf("update with an unknown key only: %s", r.Raw)
	}
	// Partial: one of two answered, the other still asked for.
	if r := c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"name#1":{"action":"accept","content":{"name":"Ada"}}}`); r.Error != nil {
		t.Fatalf("partial update: %s", r.Raw)
	}
	r = c.get(id)
	reqs, _ = r.Result["inputRequests"].(map[string]any)
	if r.str("status") != "input_required" || len(reqs) != 1 || reqs["confirm#1"] == nil {
		t.Fatalf("after a partial update: %s", r.Raw)
	}
	if r := c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"confirm#1":{"action":"accept","content":{"ok":true}},"name#1":{"action":"decline"}}`); r.Error != nil ||
		!strings.Contains(r.Raw, `["name#1"]`) {
		t.Fatalf("completing update (an answered key again is ignored): %s", r.Raw)
	}
	// The tool ran again with both answers, and asks again: new keys.
	r = c.wait(id, tasks.InputRequired)
	reqs, _ = r.Result["inputRequests"].(map[string]any)
	if len(reqs) != 1 || reqs["again#2"] == nil || !strings.Contains(r.Raw, `Again? ({\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}`) {
		t.Fatalf("second round: %s", r.Raw)
	}
	if r := c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"again#2":{"action":"accept"}}`); r.Error != nil {
		t.Fatalf("second update: %s", r.Raw)
	}
	r = c.wait(id, tasks.Completed)
	if !strings.Contains(r.Raw, "done; state r2; task true") {
		t.Errorf("final result: %s", r.Raw)
	}
	// A task that waits for no input has no key outstanding: SEP-2663's
	// servers ignore such keys (a client's retry of its last update, say),
	// so the update is acknowledged, names every key ignored and changes
	// nothing.
	if r := c.do("tasks/update", `"taskId":"`+id+`","inputResponses":{"again#2":{},"b":{}}`); r.Error != nil ||
		r.str("resultType") != "complete" || !strings.Contains(r.Raw, `"io.github.embedmcp/ignoredInputResponses":["again#2","b"]`) {
		t.Errorf("update of a completed task: %s", r.Raw)
	}
	if r := c.get(id); r.str("status") != "completed" || !strings.Contains(r.Raw, "done; state r2; task true") {
		t.Errorf("an update of a completed task changed it: %s", r.Raw)
	}
	g := newGate()
	s2 := mcp.NewServer(taskTools(t, g), grantsAll, nil)
	c2 := newTaskClient(t, s2, "alice")
	w := c2.start("slow", `{}`)
	r = c2.do("tasks/update", `"taskId":"`+w+`","inputResponses":{"x#1":{}}`)
	if r.Error != nil || r.str("resultType") != "complete" || !strings.Contains(r.Raw, `"io.github.embedmcp/ignoredInputResponses":["x#1"]`) {
		t.Errorf("update of a working task: %s", r.Raw)
	}
	if r := c2.get(w); r.str("status") != "working" || r.Result["inputRequests"] != nil {
		t.Errorf("an update of a working task changed it: %s", r.Raw)
	}
	g.release <- "x"
	c2.wait(w, tasks.Completed)
	// Another caller's task, even one waiting for input, answers as an
	// unknown one: -32602, as for tasks/get.
	asker := c.start("ask", `{}`)
	c.wait(asker, tasks.InputRequired)
	other := newTaskClient(t, c.s, "mallory")
	if r := other.do("tasks/update", `"taskId":"`+asker+`","inputResponses":{"name#1":{"action":"accept"}}`); r.Error == nil || r.Error.Code != mcp.CodeInvalidParams {
		t.Errorf("update of another caller's task: %s", r.Raw)
	}
	if r := c.get(asker); r.str("status") != "input_required" || len(r.Result["inputRequests"].(map[string]any)) != 2 {
		t.Errorf("another caller's update changed the task: %s", r.Raw)
	}
}

func TestTaskInputNeedsCapability(t *testing.T) {
	t.Parallel()
	_, c, _ := taskFixture(t, nil)
	c.caps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}` // no elicitation
	r := c.wait(c.start("ask", `{}`), tasks.Failed)
	if e := r.Result["error"].(map[string]any); e["code"] != float64(mcp.CodeMissingClientCapability) || !strings.Contains(r.Raw, "elicitation") {
		t.Errorf("input the client cannot give: %s", r.Raw)
	}
}

func TestTaskAfterMultiRoundTrip(t *testing.T) {
	t.Parallel()
	_, c, _ := taskFixture(t, nil)
	// Round 1 is answered at once: input required, no task.
	r := c.call("pre", `{}`)
	if r.str("resultType") != "input_required" || r.Result["taskId"] != nil {
		t.Fatalf("round 1: %s", r.Raw)
	}
	// Round 2 carries the answer: the task starts, and sees it.
	r = c.do("tools/call", `"name":"pre","arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}}`)
	if r.str("resultType") != "task" || r.Result["requestState"] != nil || r.Result["inputRequests"] != nil {
		t.Fatalf("round 2: %s", r.Raw)
	}
	id := r.str("taskId")
	done := c.wait(id, tasks.Completed)
	if !strings.Contains(done.Raw, "Hello, Alice (task "+id+")") {
		t.Errorf("result: %s", done.Raw)
	}
}

func TestTaskCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		_, c, g := taskFixture(t, nil)
		id := c.start("slow", `{}`)
		g.awaitStart(t)
		if r := c.do("tasks/cancel", `"taskId":"`+id+`"`); r.Error != nil || r.str("resultType") != "complete" {
			t.Fatalf("tasks/cancel: %s", r.Raw)
		}
		select {
		case cause := <-g.ended:
			if cause == nil || !strings.Contains(cause.Error(), "cancelled by the client") {
				t.Errorf("the tool's context ended with %v", cause)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the running tool's context was not cancelled")
		}
		r := c.get(id)
		if r.str("status") != "cancelled" || r.Result["result"] != nil || r.Result["error"] != nil {
			t.Errorf("cancelled task: %s", r.Raw)
		}
		// The tool's late outcome does not overwrite the cancellation.
		synctest.Wait()
		if r := c.get(id); r.str("status") != "cancelled" {
			t.Errorf("after the tool ended: %s", r.Raw)
		}
	})
}

// TestTaskCancelRacesCompletion: whichever of a cancellation and a
// completion lands first, the task ends in one final state, whole.
func TestTaskCancelRacesCompletion(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for i := range 60 {
		s, c, g := taskFixture(t, nil)
		id := c.start("slow", `{}`)
		g.awaitStart(t)
		// The release and the cancellation start together; one of them is
		// held back by a few microseconds, in turn.
		start, done := make(chan struct{}), make(chan struct{})
		delay := time.Duration(i%7) * 20 * time.Microsecond
		go func() {
			defer close(done)
			<-start
			if i%2 == 0 {
				spin(delay)
			}
			g.release <- "won"
		}()
		cancelled := make(chan taskReply, 1)
		go func() {
			<-start
			if i%2 == 1 {
				spin(delay)
			}
			cancelled <- c.do("tasks/cancel", `"taskId":"`+id+`"`)
		}()
		close(start)
		if r := <-cancelled; r.Error != nil {
			t.Fatalf("tasks/cancel: %s", r.Raw)
		}
		<-done
		var r taskReply
		for deadline := time.Now().Add(5 * time.Second); ; {
			r = c.get(id)
			if tasks.Status(r.str("status")).Terminal() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("race %d did not end: %s", i, r.Raw)
			}
		}
		st := r.str("status")
		seen[st]++
		switch {
		case st == "completed" && !strings.Contains(r.Raw, `"text":"won"`),
			st == "cancelled" && (r.Result["result"] != nil || r.Result["error"] != nil),
			st != "completed" && st != "cancelled":
			t.Fatalf("race %d ended torn: %s", i, r.Raw)
		}
		// Drain the gate: a cancelled tool may not have taken the release.
		select {
		case <-g.ended:
		default:
		}
		select {
		case <-g.release:
		default:
		}
		if err := s.Shutdown(context.Background()); err != nil { // the tool has ended and settled
			t.Fatal(err)
		}
		if again := c.get(id); again.str("status") != st {
			t.Fatalf("race %d changed after it ended: %s then %s", i, st, again.Raw)
		}
	}
	if seen["cancelled"] == 0 || seen["completed"] == 0 {
		t.Logf("one side won every race: %v", seen)
	}
	t.Logf("outcomes: %v", seen)
}

// spin waits d without sleeping (a sleep lasts far longer).
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
