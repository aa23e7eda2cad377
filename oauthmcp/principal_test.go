package oauthmcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// A token without a subject is its client's, named "client:" and its
// client_id, which no subject can ever be: a subject beginning "client:"
// or "sub:" gets "sub:" in front. JWT and introspected tokens alike.
func TestPrincipalNamespaces(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, _ := newTestVerifier(t, f, func(o *Options) {
		o.Introspection = &Introspection{ClientID: "rs", ClientSecret: "rs-secret", Endpoint: f.srv.URL + "/introspect"}
	})
	now := clock.now()
	f.introspect = map[string]map[string]any{}
	for _, tc := range []struct {
		sub, clientID, want string
	}{
		{"alice", "app", "alice"},
		{"", "alice", "client:alice"},
		{"client:alice", "app", "sub:client:alice"},
		{"client:alice", "", "sub:client:alice"},
		{"sub:alice", "", "sub:sub:alice"},
		{"", "sub:alice", "client:sub:alice"},
		{"", "client:alice", "client:client:alice"},
	} {
		cl := f.claims(now, "notes:read")
		intro := activeAnswer(f, now, tc.sub)
		for _, m := range []map[string]any{cl, intro} {
			delete(m, "sub")
			delete(m, "client_id")
			if tc.sub != "" {
				m["sub"] = tc.sub
			}
			if tc.clientID != "" {
				m["client_id"] = tc.clientID
			}
		}
		opaque := "opaque-" + tc.sub + "-" + tc.clientID
		f.mu.Lock()
		f.introspect[opaque] = intro
		f.mu.Unlock()
		for kind, tok := range map[string]string{"JWT": sign(t, f.key(0), cl), "introspected": opaque} {
			c, err := v.Verify(background(), tok)
			if err != nil || c.Principal != tc.want {
				t.Errorf("%s token, sub %q, client_id %q: principal %q (%v), want %q", kind, tc.sub, tc.clientID, c.Principal, err, tc.want)
			}
		}
	}
}

// A token whose client_id is "alice" and that names no subject cannot see
// the task of the user whose subject is "alice": tasks are bound to the
// principal, and the two principals differ.
func TestClientCannotReadUserTask(t *testing.T) {
	f := newFakeAS(t, "")
	v, clock, _ := newTestVerifier(t, f, nil)
	ts := mcp.NewToolSet()
	release := make(chan struct{})
	defer close(release)
	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "slow", Description: "Takes its time.", TaskSupport: mcp.TaskRequired},
		func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "done", nil
		})
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(ts, mcp.AllowAll(), nil)
	t.Cleanup(func() { _ = server.Shutdown(context.Background()) })
	h := mcp.NewHandler(server, &mcp.HandlerOptions{Authenticator: v.Authenticator()})

	now := clock.now()
	user := f.claims(now, "notes:read") // sub alice
	client := f.claims(now, "notes:read")
	delete(client, "sub")
	client["client_id"] = "alice"
	userTok, clientTok := sign(t, f.key(0), user), sign(t, f.key(0), client)

	ask := func(token, method, name, members string) map[string]any {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + members + `,"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
			`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Authorization", "Bearer "+token)
		r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", method)
		r.Header.Set("Mcp-Name", name)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s: %d %s", method, w.Code, w.Body)
		}
		return out
	}
	created := ask(userTok, "tools/call", "slow", `"name":"slow","arguments":{}`)
	res, _ := created["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if id == "" {
		t.Fatalf("no task created: %v", created)
	}
	if got := ask(userTok, "tasks/get", id, `"taskId":"`+id+`"`); got["result"] == nil {
		t.Fatalf("the user cannot read its own task: %v", got)
	}
	got := ask(clientTok, "tasks/get", id, `"taskId":"`+id+`"`)
	if got["result"] != nil || got["error"] == nil {
		t.Errorf("a client_id=alice token read the task of sub=alice: %v", got)
	}
}
