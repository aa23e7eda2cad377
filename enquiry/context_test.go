package enquiry

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestAuthorizerFromTheServer: the enquiry tools take no Authorizer of
// their own; they ask the Server's, from the call's context. Outside a
// Server (a tool's Execute called directly, without one in the context)
// they show nothing.
func TestAuthorizerFromTheServer(t *testing.T) {
	ts := ek9Set(t, nil, nil)
	onlyEdit := mcp.AuthorizerFunc(func(_ context.Context, _ mcp.Caller, p string) bool { return p == "" || p == "ek9.edit" })
	var want []string
	for tool := range ts.All() {
		if onlyEdit.Allowed(context.Background(), mcp.Caller{}, tool.Info().Permission) {
			want = append(want, tool.Info().Name)
		}
	}
	p := catalogue(t, ts, onlyEdit, mcp.Caller{}, `{"limit":200}`)
	if got := p.flat(); len(got) != len(want) {
		t.Errorf("catalogue through a Server shows %v, want the %d tools its Authorizer allows: %v", got, len(want), want)
	}
	cat, _ := ts.Lookup(DefaultCatalogueName)
	req := mcp.NewRequest(mcp.Caller{}, DefaultCatalogueName, json.RawMessage(`{"limit":200}`))
	ctx := mcp.ContextWithCaller(context.Background(), mcp.Caller{})
	if err := cat.Validate(ctx, req); err != nil {
		t.Fatal(err)
	}
	res, err := cat.Execute(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Total int `json:"total"`
	}
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &out); err != nil || out.Total != 0 {
		t.Errorf("outside a Server the catalogue shows %d tools (%v), want none", out.Total, err)
	}
}
