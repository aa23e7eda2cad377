package mcp_test

// Property test of authorization: for random grant sets and random tools
// with random permissions, tools/list shows exactly the permitted tools and
// tools/call runs exactly those, answering for the others exactly as for a
// tool that does not exist.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// propCovers is the specification of grant coverage, stated over dotted
// segments rather than strings: "*" covers everything; "a.b.*" covers a
// permission whose first segments are exactly a, b and that has at least
// one more; any other grant covers only the identical permission; the empty
// permission needs no grant.
func propCovers(grants []string, perm string) bool {
	if perm == "" {
		return true
	}
	ps := strings.Split(perm, ".")
	for _, g := range grants {
		if g == "*" || g == perm {
			return true
		}
		gs := strings.Split(g, ".")
		if gs[len(gs)-1] != "*" {
			continue
		}
		prefix := gs[:len(gs)-1]
		if len(ps) > len(prefix) && slices.Equal(ps[:len(prefix)], prefix) {
			return true
		}
	}
	return false
}

var propSegments = []string{"diag", "code", "read", "write", "db", "x"}

func propPermission(r *rand.Rand) string {
	if r.IntN(6) == 0 {
		return ""
	}
	n := 1 + r.IntN(3)
	segs := make([]string, n)
	for i := range segs {
		segs[i] = propSegments[r.IntN(len(propSegments))]
	}
	return strings.Join(segs, ".")
}

func propGrant(r *rand.Rand) string {
	switch r.IntN(8) {
	case 0:
		return "*"
	case 1:
		return propPermission(r) + "*" // no dot before the star: covers only itself
	case 2, 3:
		p := propPermission(r)
		if p == "" {
			return "*"
		}
		return p + ".*"
	default:
		return propPermission(r)
	}
}

type propTool struct {
	info mcp.ToolInfo
	runs atomic.Int64
}

func (p *propTool) Info() *mcp.ToolInfo                          { return &p.info }
func (p *propTool) Validate(context.Context, *mcp.Request) error { return nil }
func (p *propTool) Execute(context.Context, *mcp.Request) (*mcp.Result, error) {
	p.runs.Add(1)
	return mcp.TextResult("ran " + p.info.Name), nil
}

func propHandle(t *testing.T, s *mcp.Server, caller mcp.Caller, method, params string) (int, mcptest.Response, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	status, resp := s.Handle(context.Background(), caller, []byte(body))
	var r mcptest.Response
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatalf("%s: %v: %s", method, err, resp)
	}
	return status, r, string(resp)
}

// propMeta returns the params' _meta member for a protocol era: "" for the
// legacy era (no header, 2025-03-26 rules), or the 2026-07-28 _meta.
func propMeta(modern bool) string {
	if !modern {
		return ""
	}
	return `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"p","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
}

func propList(t *testing.T, s *mcp.Server, caller mcp.Caller, modern bool) []string {
	t.Helper()
	var names []string
	cursor := ""
	for page := 0; page < 100; page++ {
		params := `{` + strings.TrimPrefix(propMeta(modern), ",") + `}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"` + propMeta(modern) + `}`
		}
		status, r, raw := propHandle(t, s, caller, "tools/list", params)
		if status != 200 || r.Error != nil {
			t.Fatalf("tools/list: %d %s", status, raw)
		}
		var res struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if res.NextCursor == "" {
			return names
		}
		cursor = res.NextCursor
	}
	t.Fatal("tools/list does not end")
	return nil
}

// propCase is one random case: the tools' permissions, the caller's grants,
// the page size and the era.
type propCase struct {
	perms, grants []string
	pageSize      int
	modern        bool
}

func propRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func newPropCase(r *rand.Rand) propCase {
	var pc propCase
	for range r.IntN(12) {
		pc.perms = append(pc.perms, propPermission(r))
	}
	for range r.IntN(4) {
		pc.grants = append(pc.grants, propGrant(r))
	}
	pc.pageSize = r.IntN(4)
	pc.modern = r.IntN(2) == 0
	return pc
}

// TestPropertySeedReplays: the cases are a function of the seed alone, so
// that -property.seed replays a failure.
func TestPropertySeedReplays(t *testing.T) {
	a, b, c := propRand(7), propRand(7), propRand(8)
	same, differ := true, false
	for range 50 {
		x, y, z := newPropCase(a), newPropCase(b), newPropCase(c)
		same = same && reflect.DeepEqual(x, y)
		differ = differ || !reflect.DeepEqual(x, z)
	}
	if !same || !differ {
		t.Errorf("same seed gives the same cases: %v; another seed other cases: %v", same, differ)
	}
}

// propSeed replays a run of TestPropertyAuthorization:
//
//	go test -run TestPropertyAuthorization -property.seed=N .
var propSeed = flag.Uint64("property.seed", 0, "seed of TestPropertyAuthorization (0: a random one)")

// TestPropertyAuthorization runs 500 random cases. A failure names its seed
// and the command that replays it.
func TestPropertyAuthorization(t *testing.T) {
	t.Parallel()
	seed := *propSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay with: go test -run TestPropertyAuthorization -property.seed=%d .", seed)
		}
	})
	r := propRand(seed)
	for i := 0; i < 500; i++ {
		pc := newPropCase(r)
		ts := mcp.NewToolSet()
		var tools []*propTool
		for j, perm := range pc.perms {
			tool := &propTool{info: mcp.ToolInfo{Name: fmt.Sprintf("t%02d", j), Description: "d", Permission: perm}}
			tools = append(tools, tool)
			if err := ts.Register(tool); err != nil {
				t.Fatal(err)
			}
		}
		grants, modern := pc.grants, pc.modern
		caller := mcp.Caller{Principal: "p", Grants: grants}
		s := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{PageSize: pc.pageSize})

		var want []string
		for _, tool := range tools {
			if propCovers(grants, tool.info.Permission) {
				want = append(want, tool.info.Name)
			}
		}
		if got := propList(t, s, caller, modern); !slices.Equal(got, want) {
			t.Fatalf("case %d (seed %d): grants %q, tools %v: tools/list = %v, want %v", i, seed, grants, propPerms(tools), got, want)
		}
		for _, tool := range tools {
			before := tool.runs.Load()
			status, resp, raw := propHandle(t, s, caller, "tools/call", `{"name":"`+tool.info.Name+`"`+propMeta(modern)+`}`)
			ran := tool.runs.Load() - before
			if slices.Contains(want, tool.info.Name) {
				if status != 200 || resp.Error != nil || ran != 1 {
					t.Fatalf("case %d (seed %d): permitted %s (perm %q, grants %q): %d %s, ran %d", i, seed, tool.info.Name, tool.info.Permission, grants, status, raw, ran)
				}
				continue
			}
			// A forbidden tool is answered exactly like an unknown one.
			_, _, unknown := propHandle(t, s, caller, "tools/call", `{"name":"nosuchtool"`+propMeta(modern)+`}`)
			if ran != 0 || raw != strings.ReplaceAll(unknown, "nosuchtool", tool.info.Name) {
				t.Fatalf("case %d (seed %d): forbidden %s (perm %q, grants %q) ran %d, answered %s; unknown tools get %s", i, seed, tool.info.Name, tool.info.Permission, grants, ran, raw, unknown)
			}
		}
	}
}

func propPerms(tools []*propTool) map[string]string {
	m := map[string]string{}
	for _, t := range tools {
		m[t.info.Name] = t.info.Permission
	}
	return m
}

// TestPropertyAdminNotesNotSent: administrator notes never reach clients,
// in any era's listing or call answer.
func TestPropertyAdminNotesNotSent(t *testing.T) {
	ts := mcp.NewToolSet()
	tool := &propTool{info: mcp.ToolInfo{Name: "noted", Description: "d",
		AdminSummary: "admin-note-summary", AdminExample: "admin-note-example"}}
	if err := ts.Register(tool); err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(ts, mcp.AllowAll(), nil)
	for _, modern := range []bool{false, true} {
		for _, q := range [][2]string{{"tools/list", `{` + strings.TrimPrefix(propMeta(modern), ",") + `}`},
			{"tools/call", `{"name":"noted"` + propMeta(modern) + `}`}} {
			status, _, raw := propHandle(t, s, mcp.Caller{}, q[0], q[1])
			if status != 200 || !strings.Contains(raw, "noted") {
				t.Fatalf("%s: %d %s", q[0], status, raw)
			}
			if strings.Contains(raw, "admin-note") {
				t.Errorf("%s sends administrator notes: %s", q[0], raw)
			}
		}
	}
}
