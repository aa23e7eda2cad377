package gossipapp

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// node starts a registry node gossiping on loopback and serves its API.
func node(t *testing.T, name string, seeds ...string) (*Registry, *httptest.Server) {
	t.Helper()
	key := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef"))
	_, r, h, err := NewService(nil, Config{Name: name, Seeds: seeds, Role: "cache", Zone: "eu-1", Key: key, Cluster: "cache-test",
		LeaveWait: time.Second}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); r.Close() })
	return r, ts
}

// members reads the members from the API.
func members(t *testing.T, url string) []Member {
	t.Helper()
	resp, err := http.Get(url + "/members")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Members []Member }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Members
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

func TestMembersAndDrainMarksSpread(t *testing.T) {
	a, ats := node(t, "cache-1")
	_, bts := node(t, "cache-2", a.Addr())
	eventually(t, "both members on cache-1", func() bool { return len(members(t, ats.URL)) == 2 })
	if m := members(t, bts.URL); len(m) != 2 || m[0].Role != "cache" || m[0].Zone != "eu-1" {
		t.Fatalf("members on cache-2: %+v", m)
	}
	req, _ := http.NewRequest(http.MethodPut, ats.URL+"/drain/cache-2", strings.NewReader(`{"reason":"kernel upgrade"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("drain: %d", resp.StatusCode)
	}
	eventually(t, "the drain mark to reach cache-2", func() bool {
		m := members(t, bts.URL)
		return len(m) == 2 && m[1].Draining && m[1].Reason == "kernel upgrade"
	})
	req, _ = http.NewRequest(http.MethodPut, ats.URL+"/drain/cache-9", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("drain of a stranger: %v %v", resp.StatusCode, err)
	}
	// A third node joining later gets the mark in the push/pull of its join.
	_, cts := node(t, "cache-3", a.Addr())
	eventually(t, "cache-3 to learn the mark", func() bool {
		for _, m := range members(t, cts.URL) {
			if m.Name == "cache-2" && m.Draining {
				return true
			}
		}
		return false
	})
	if resp, err := http.Post(bts.URL+"/leave", "", nil); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("leave: %v %v", resp.StatusCode, err)
	}
	eventually(t, "cache-2 to be gone from cache-1", func() bool { return len(members(t, ats.URL)) == 2 })
}

func TestMalformedKeyIsRefused(t *testing.T) {
	_, err := Start(Config{Name: "x", Key: "not base64!"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		t.Fatal("a bad key was accepted")
	}
}
