package mcp_test

// Property test of task binding: for random callers (principal, selected
// server, grants) and random tools, a task is seen, cancelled and updated
// exactly by the caller that created it while it may still use the tool;
// to every other caller each tasks/* method answers byte for byte as for a
// task that does not exist, and changes nothing.

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

var (
	propPrincipals = []string{"alice", "bob", ""}
	propServers    = []string{"", "s1", "s2"}
)

func propCaller(r *mrand.Rand) mcp.Caller {
	c := mcp.Caller{Principal: propPrincipals[r.IntN(len(propPrincipals))], Server: propServers[r.IntN(len(propServers))]}
	for range r.IntN(3) {
		c.Grants = append(c.Grants, propGrant(r))
	}
	return c
}

func unknownTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// TestPropertyTaskBinding runs 300 random cases; a failure names its seed
// (replayed with -property.seed, like TestPropertyAuthorization).
func TestPropertyTaskBinding(t *testing.T) {
	seed := *propSeed
	if seed == 0 {
		seed = mrand.Uint64()
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay with: go test -run TestPropertyTaskBinding -property.seed=%d .", seed)
		}
	})
	r := propRand(seed)
	ts := mcp.NewToolSet()
	g := newGate()
	var perms []string
	for i := range 4 {
		perm := propPermission(r)
		perms = append(perms, perm)
		fn := func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("done"), nil }
		if i%2 == 1 {
			fn = g.run // tasks that stay working
		}
		if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: fmt.Sprintf("t%d", i), Description: "d", Permission: perm,
			TaskSupport: mcp.TaskRequired}, fn)); err != nil {
			t.Fatal(err)
		}
	}
	s := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Tasks: mcp.TaskOptions{MaxRunning: -1}})
	defer func() {
		for range cap(g.release) {
			select {
			case g.release <- "end":
			default:
			}
		}
	}()
	for i := 0; i < 300; i++ {
		tool := r.IntN(len(perms))
		owner := propCaller(r)
		if !propCovers(owner.Grants, perms[tool]) {
			owner.Grants = append(owner.Grants, "*")
		}
		oc := newTaskClient(t, s, "")
		oc.caller = owner
		created := oc.call(fmt.Sprintf("t%d", tool), `{}`)
		id := created.str("taskId")
		if id == "" {
			t.Fatalf("case %d (seed %d): no task: %s", i, seed, created.Raw)
		}
		before := oc.get(id)
		for range 4 {
			probe := propCaller(r)
			if r.IntN(4) == 0 { // the owner again, maybe with other grants
				probe.Principal, probe.Server = owner.Principal, owner.Server
			}
			pc := newTaskClient(t, s, "")
			pc.caller = probe
			visible := probe.Principal == owner.Principal && probe.Server == owner.Server && propCovers(probe.Grants, perms[tool])
			other := unknownTaskID()
			for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
				if visible && m != "tasks/get" {
					continue // changes the task; checked by the other tests
				}
				members := func(id string) string {
					if m == "tasks/update" {
						return `"taskId":"` + id + `","inputResponses":{"k#1":{"action":"accept"}}`
					}
					return `"taskId":"` + id + `"`
				}
				got := pc.do(m, members(id))
				if visible {
					if got.str("taskId") != id {
						t.Fatalf("case %d (seed %d): owner %+v cannot see its task as %+v: %s", i, seed, owner, probe, got.Raw)
					}
					continue
				}
				unknown := pc.do(m, members(other))
				if got.Raw != strings.ReplaceAll(unknown.Raw, other, id) || got.Error == nil || got.Error.Code != mcp.CodeInvalidParams {
					t.Fatalf("case %d (seed %d): %s of %+v's task by %+v answered\n%s\nunknown tasks get\n%s", i, seed, m, owner, probe, got.Raw, unknown.Raw)
				}
			}
		}
		// Nobody else changed it.
		after := oc.get(id)
		if after.str("status") == "working" && before.str("status") == "working" && after.Raw != before.Raw {
			t.Fatalf("case %d (seed %d): the task changed: %s then %s", i, seed, before.Raw, after.Raw)
		}
		if st := after.str("status"); st == "cancelled" || st == "failed" || st == "input_required" {
			t.Fatalf("case %d (seed %d): another caller changed the task: %s", i, seed, after.Raw)
		}
	}
}
