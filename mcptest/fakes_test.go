package mcptest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/embedmcp/mcp"
)

func TestAuthorizersRecordQuestions(t *testing.T) {
	az := Grants("examples.*")
	srv := exampleServer(t, az, nil)
	c := NewClient(t, srv, &ClientOptions{Caller: Caller("dan")})
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 4 {
		t.Errorf("listed %d tools, want 4", len(tools))
	}
	// tools/list asks once per registered tool, as the caller.
	asked := az.Asked()
	if len(asked) != 4 || asked[0].Principal != "dan" || !asked[0].Allowed {
		t.Errorf("asked = %+v", asked)
	}
	if got := az.Permissions(); !slices.Equal(got, []string{"examples.log", "examples.read"}) {
		t.Errorf("permissions = %v", got)
	}
	az.Reset()
	if _, err := c.CallTool("add", map[string]int{"a": 1, "b": 1}); err != nil {
		t.Fatal(err)
	}
	if got := az.Asked(); len(got) != 1 || got[0].Permission != "examples.read" {
		t.Errorf("tools/call asked %+v, want one question about examples.read", got)
	}
}

func TestFakeAuthorizers(t *testing.T) {
	ctx := context.Background()
	alice := Caller("alice", "a.*")
	for _, tc := range []struct {
		name string
		az   *Authorizer
		perm string
		want bool
	}{
		{"AllowAll", Record(mcp.AllowAll()), "x", true},
		{"DenyAll", Record(mcp.DenyAll()), "", false},
		{"DenyAll", Record(mcp.DenyAll()), "x", false},
		{"Grants", Grants("b.read"), "b.read", true},
		{"Grants ignores the caller's grants", Grants("b.read"), "a.read", false},
		{"Grants, empty permission", Grants(), "", true},
		{"CallerGrants", CallerGrants(), "a.read", true},
		{"CallerGrants", CallerGrants(), "b.read", false},
		{"Record", Record(mcp.AuthorizerFunc(func(_ context.Context, c mcp.Caller, p string) bool { return p == c.Principal })), "alice", true},
	} {
		if got := tc.az.Allowed(ctx, alice, tc.perm); got != tc.want {
			t.Errorf("%s: Allowed(%q) = %v, want %v", tc.name, tc.perm, got, tc.want)
		}
		if q := tc.az.Asked(); len(q) != 1 || q[0] != (Question{"alice", tc.perm, tc.want}) {
			t.Errorf("%s: asked %+v", tc.name, q)
		}
	}
}

func TestCallerContextRequest(t *testing.T) {
	grants := []string{"g"}
	c := Caller("p", grants...)
	grants[0] = "changed"
	if c.Grants[0] != "g" {
		t.Error("Caller shares the grants slice")
	}
	az := Grants("x")
	ctx := Context(context.Background(), c, az, mcp.Version20250618)
	if got, ok := mcp.CallerFromContext(ctx); !ok || got.Principal != "p" {
		t.Errorf("caller from context = %+v, %v", got, ok)
	}
	if got := mcp.AuthorizerFromContext(ctx); got != az {
		t.Errorf("authorizer from context = %v", got)
	}
	if ex := mcp.ExchangeFromContext(ctx); ex == nil || ex.ProtocolVersion != mcp.Version20250618 {
		t.Errorf("exchange from context = %+v", ex)
	}
	if mcp.AuthorizerFromContext(Context(context.Background(), c, nil, "")).Allowed(ctx, c, "") {
		t.Error("without an Authorizer, the context's must deny")
	}
	req := mcp.NewRequest(c, "echo", json.RawMessage(`{"text":"x"}`))
	// A tool called directly with them.
	tools := ownTools(t)
	echo, _ := tools.Lookup("echo")
	res, err := echo.Execute(ctx, req)
	if err != nil || ResultText(res) == "" {
		t.Errorf("Execute = %+v, %v", res, err)
	}
}
