package mcp_test

// Fair quotas: one caller cannot take the task store, the running-task
// slots or the listen streams from the others.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// TestTaskStoreQuota: after one caller has made 1 000 task creations,
// the store holds at most MaxTasksPerPrincipal of them, the caller's
// task-only calls beyond it are refused with -32001 (503) naming the
// limit, its optional ones are answered at once, and another caller still
// gets a task.
func TestTaskStoreQuota(t *testing.T) {
	t.Parallel()
	const quota, creations = 100, 1000
	store := tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasksPerPrincipal: quota})
	s, mallory, _ := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{Store: store, MaxRunningPerPrincipal: -1}})
	mallory.caller.Principal = "mallory"
	refused := 0
	for i := range creations {
		r := mallory.call("must", `{}`)
		switch {
		case r.str("resultType") == "task":
		case r.Status == http.StatusServiceUnavailable && r.Error != nil && r.Error.Code == mcp.CodeLimitExceeded &&
			strings.Contains(r.Error.Message, "MaxTasksPerPrincipal"):
			refused++
		default:
			t.Fatalf("creation %d: %d %s", i, r.Status, r.Raw)
		}
	}
	if want := creations - quota; refused != want {
		t.Errorf("%d of mallory's creations refused, want %d", refused, want)
	}
	if r := mallory.call("oops", `{}`); r.str("resultType") != "complete" {
		t.Errorf("mallory's optional tool at the quota: %s, want it answered at once", r.Raw)
	}
	alice := newTaskClient(t, s, "alice")
	id := alice.start("must", `{}`)
	alice.wait(id, tasks.Completed)
	if n := store.Len(); n != quota+1 {
		t.Errorf("store holds %d tasks, want %d", n, quota+1)
	}
}

// TestTaskRunningQuota: beyond MaxRunningPerPrincipal a caller's
// optional tool runs at once, its task-only tool is refused with -32001
// (503) naming the limit, and another caller still starts tasks.
func TestTaskRunningQuota(t *testing.T) {
	s, mallory, g := taskFixture(t, &mcp.Options{Tasks: mcp.TaskOptions{MaxRunningPerPrincipal: 2}})
	mallory.caller.Principal = "mallory"
	for range 2 {
		mallory.start("slow", `{}`)
		g.awaitStart(t)
	}
	r := mallory.call("must", `{}`)
	if r.Status != http.StatusServiceUnavailable || r.Error == nil || r.Error.Code != mcp.CodeLimitExceeded ||
		!strings.Contains(r.Error.Message, "MaxRunningPerPrincipal") {
		t.Errorf("mallory's task-only tool beyond the quota: %d %s", r.Status, r.Raw)
	}
	done := make(chan taskReply, 1)
	go func() { done <- mallory.call("slow", `{}`) }()
	g.awaitStart(t)
	alice := newTaskClient(t, s, "alice")
	alice.start("slow", `{}`)
	g.awaitStart(t)
	for range 4 {
		g.release <- "x"
	}
	if r := <-done; r.Error != nil || r.str("resultType") != "complete" {
		t.Errorf("mallory's optional tool beyond the quota: %s, want it answered at once", r.Raw)
	}
}

// TestListenQuota: one caller's listen streams beyond
// MaxListenStreamsPerPrincipal are refused with 503, Retry-After and
// -32001 naming the limit; another caller still listens.
func TestListenQuota(t *testing.T) {
	who := mcp.AuthenticatorFunc(func(r *http.Request) (mcp.Caller, error) {
		return mcp.Caller{Principal: r.Header.Get("X-Who")}, nil
	})
	srv, _ := listenServer(t, &mcp.HandlerOptions{Authenticator: who, MaxListenStreamsPerPrincipal: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listen := func(principal string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(listenBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", mcp.Version20260728)
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		req.Header.Set("X-Who", principal)
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		return resp
	}
	for range 2 {
		resp := listen("mallory")
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("mallory's listen within the quota: %d", resp.StatusCode)
		}
	}
	resp := listen("mallory")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	must(t, json.Unmarshal(b, &e))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		e.Error.Code != mcp.CodeLimitExceeded || !strings.Contains(e.Error.Message, "MaxListenStreamsPerPrincipal") {
		t.Fatalf("mallory's third listen: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	resp = listen("alice")
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("alice's listen: %d", resp.StatusCode)
	}
}
