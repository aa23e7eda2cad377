package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

func TestTaskNotifications(t *testing.T) {
	t.Parallel()
	g := newGate()
	s := mcp.NewServer(taskTools(t, g), grantsAll, &mcp.Options{Tasks: mcp.TaskOptions{PollInterval: 20 * time.Millisecond}})
	alice, bob := newTaskClient(t, s, "alice"), newTaskClient(t, s, "bob")
	own := alice.start("slow", `{}`)
	g.awaitStart(t)
	foreign := bob.start("must", `{}`)
	bob.wait(foreign, tasks.Completed)

	notes := make(chan string, 16)
	ex := &mcp.Exchange{Notify: func(method string, params json.RawMessage) error {
		notes <- method + " " + string(params)
		return nil
	}}
	ctx, cancel := context.WithCancel(mcp.ContextWithExchange(context.Background(), ex))
	defer cancel()
	listener := *alice
	listener.ctx = ctx
	done := make(chan taskReply, 1)
	go func() {
		done <- listener.do("subscriptions/listen", `"notifications":{"taskIds":["`+own+`","`+foreign+`","AAAAAAAAAAAAAAAAAAAAAA","bad","`+own+`"]}`)
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case n := <-notes:
			return n
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s", what)
		}
		return ""
	}
	// Only the caller's own task is agreed to: another's is left out like
	// an unknown one.
	ack := next("acknowledgement")
	if !strings.HasPrefix(ack, "notifications/subscriptions/acknowledged ") || !strings.Contains(ack, `"notifications":{"taskIds":["`+own+`"]}`) {
		t.Fatalf("acknowledgement: %s", ack)
	}
	n := next("current state")
	if !strings.HasPrefix(n, "notifications/tasks ") || !strings.Contains(n, `"status":"working"`) ||
		!strings.Contains(n, `"taskId":"`+own+`"`) || !strings.Contains(n, `"io.modelcontextprotocol/subscriptionId":7`) {
		t.Fatalf("first task notification: %s", n)
	}
	g.release <- "notified"
	n = next("completion")
	if !strings.Contains(n, `"status":"completed"`) || !strings.Contains(n, `"text":"notified"`) {
		t.Fatalf("completion notification: %s", n)
	}
	select {
	case n := <-notes:
		t.Errorf("a notification after the task finished: %s", n)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	if r := <-done; r.str("resultType") != "complete" {
		t.Errorf("end of the stream: %s", r.Raw)
	}

	// The filter's errors.
	plain := *alice
	plain.caps = noTasksCaps
	plain.ctx = mcp.ContextWithExchange(context.Background(), ex)
	if r := plain.do("subscriptions/listen", `"notifications":{"taskIds":["`+own+`"]}`); r.Error == nil || r.Error.Code != mcp.CodeMissingClientCapability {
		t.Errorf("taskIds without the extension: %s", r.Raw)
	}
	listener.ctx = plain.ctx
	if r := listener.do("subscriptions/listen", `"notifications":{"taskIds":"`+own+`"}`); r.Error == nil || r.Error.Code != mcp.CodeInvalidParams {
		t.Errorf("taskIds not an array: %s", r.Raw)
	}
	many := strings.TrimSuffix(strings.Repeat(`"`+own+`",`, 101), ",")
	if r := listener.do("subscriptions/listen", `"notifications":{"taskIds":[`+many+`]}`); r.Error == nil || !strings.Contains(r.Error.Message, "at most 100") {
		t.Errorf("101 taskIds: %s", r.Raw)
	}
}
