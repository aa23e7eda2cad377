package raftapp

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// node starts a node over TCP on loopback and serves its API.
func node(t *testing.T, id string, bootstrap bool) (*Node, *httptest.Server) {
	t.Helper()
	_, n, h, err := NewService(nil, Config{NodeID: id, RaftAddr: "127.0.0.1:0", Bootstrap: bootstrap, MaxKeys: 2},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); n.Close() })
	return n, ts
}

// do sends a request and returns the status and body.
func do(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// eventually retries f until it reports true or 10 seconds pass.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if f() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestClusterReplicatesWritesAndRefusesFollowerWrites(t *testing.T) {
	leader, lts := node(t, "cfg-1", true)
	eventually(t, "a leader", func() bool { return leader.raft.State().String() == "Leader" })
	follower, fts := node(t, "cfg-2", false)
	if code, body := do(t, "POST", lts.URL+"/admin/peers", `{"id":"cfg-2","addr":"`+follower.Addr()+`","voter":true}`); code != http.StatusNoContent {
		t.Fatalf("join: %d %s", code, body)
	}
	if code, body := do(t, "PUT", lts.URL+"/kv/db.host", "10.0.0.5"); code != http.StatusNoContent {
		t.Fatalf("set: %d %s", code, body)
	}
	eventually(t, "the follower to apply the write", func() bool {
		code, body := do(t, "GET", fts.URL+"/kv/db.host", "")
		return code == http.StatusOK && body == "10.0.0.5"
	})
	if code, _ := do(t, "PUT", fts.URL+"/kv/db.port", "5432"); code != http.StatusMisdirectedRequest {
		t.Errorf("write to a follower: %d, want %d", code, http.StatusMisdirectedRequest)
	}
	if code, _ := do(t, "GET", fts.URL+"/kv/db.host?consistent=1", ""); code != http.StatusMisdirectedRequest {
		t.Errorf("consistent read on a follower: %d, want %d", code, http.StatusMisdirectedRequest)
	}
	do(t, "PUT", lts.URL+"/kv/db.port", "5432")
	if code, body := do(t, "PUT", lts.URL+"/kv/db.user", "app"); code != http.StatusConflict || !strings.Contains(body, "full") {
		t.Errorf("third key with MaxKeys 2: %d %q, want %d", code, body, http.StatusConflict)
	}
	if code, body := do(t, "POST", lts.URL+"/admin/snapshot", ""); code != http.StatusOK || body == "" {
		t.Errorf("snapshot: %d %q", code, body)
	}
	if code, body := do(t, "DELETE", lts.URL+"/admin/peers/cfg-2", ""); code != http.StatusNoContent {
		t.Errorf("leave: %d %s", code, body)
	}
	if code, body := do(t, "GET", lts.URL+"/admin/status", ""); code != http.StatusOK || strings.Contains(body, "cfg-2") {
		t.Errorf("status after cfg-2 left: %d %s", code, body)
	}
}
