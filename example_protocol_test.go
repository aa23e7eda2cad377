package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/embedmcp/mcp"
)

// tenants is a Protocol that serves each tenant from its own Server, picked
// by the X-Tenant header: the Handler passes the request's headers in the
// Exchange, and the tenant becomes the Caller's Server.
type tenants map[string]*mcp.Server

func (ts tenants) Handle(ctx context.Context, caller mcp.Caller, body []byte) (int, []byte) {
	var name string
	if ex := mcp.ExchangeFromContext(ctx); ex != nil {
		name = ex.Header.Get("X-Tenant")
	}
	s, ok := ts[name]
	if !ok {
		return http.StatusNotFound, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: unknown tenant"}}`)
	}
	caller.Server = name
	return s.Handle(ctx, caller, body)
}

// Versions are those every tenant serves: here, all use the defaults.
func (ts tenants) Versions() []string { return mcp.NewServer(nil, nil, nil).Versions() }

// A Protocol is what a framework author implements to put their own logic
// in front of the Server: here, one Server per tenant.
func ExampleProtocol() {
	serverFor := func(tenant string) *mcp.Server {
		tools := mcp.NewToolSet()
		_, err := mcp.AddTool(tools, mcp.ToolInfo{Name: "whoami", Description: "Names the tenant and the caller."},
			func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
				return tenant + " serves " + req.Caller.Principal + " for " + req.Caller.Server, nil
			})
		if err != nil {
			panic(err)
		}
		return mcp.NewServer(tools, mcp.AllowAll(), &mcp.Options{Name: tenant})
	}
	h := mcp.NewHandler(tenants{"acme": serverFor("acme"), "globex": serverFor("globex")},
		&mcp.HandlerOptions{Authenticator: mcp.Anonymous(mcp.Caller{Principal: "alice"})})

	for _, tenant := range []string{"acme", "globex", "initech"} {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Tenant", tenant)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		body := w.Body.String()
		if i := strings.Index(body, `"result":"`); i >= 0 {
			body = body[i+len(`"result":"`):]
			body = body[:strings.IndexByte(body, '"')]
		}
		fmt.Println(w.Code, body)
	}
	// Output:
	// 200 acme serves alice for acme
	// 200 globex serves alice for globex
	// 404 {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: unknown tenant"}}
}
