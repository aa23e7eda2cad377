package mcp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func sqlTool(t *testing.T, permission string) Tool {
	t.Helper()
	schema, err := ParseSchema([]byte(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"limit":{"type":"integer","x-mcp-header":"Limit"},
		"opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry"}}},
		"query":{"type":"string"}},"required":["query"]}`))
	if err != nil {
		t.Fatal(err)
	}
	return NewRawTool(ToolInfo{Name: "execute_sql", InputSchema: schema, Permission: permission},
		func(context.Context, *Request) (*Result, error) { return TextResult("ok"), nil })
}

func TestParamHeaders(t *testing.T) {
	ts := NewToolSet()
	if err := ts.Register(sqlTool(t, "")); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	body := func(args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_sql","arguments":` + args + `,` + modernMeta + `}}`)
	}
	cases := []struct {
		name   string
		args   string
		params map[string]string
		code   int
	}{
		{"all mirrored", `{"region":"us-west1","limit":42,"opts":{"dry":true},"query":"q"}`,
			map[string]string{"Region": "us-west1", "Limit": "42", "Dry": "true"}, 0},
		{"integer compared numerically", `{"limit":42,"query":"q"}`, map[string]string{"Limit": "42.0"}, 0},
		{"base64 value", `{"region":"Hello, 世界","query":"q"}`, map[string]string{"Region": "=?base64?SGVsbG8sIOS4lueVjA==?="}, 0},
		{"absent argument, absent header", `{"query":"q"}`, nil, 0},
		{"null argument, absent header", `{"region":null,"query":"q"}`, nil, 0},
		{"header missing", `{"region":"eu","query":"q"}`, nil, CodeHeaderMismatch},
		{"value differs", `{"region":"eu","query":"q"}`, map[string]string{"Region": "us"}, CodeHeaderMismatch},
		{"boolean differs", `{"opts":{"dry":false},"query":"q"}`, map[string]string{"Dry": "true"}, CodeHeaderMismatch},
		{"header without argument", `{"query":"q"}`, map[string]string{"Region": "eu"}, CodeHeaderMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"execute_sql"}}
			for k, v := range c.params {
				h.Set("Mcp-Param-"+k, v)
			}
			ctx := ContextWithExchange(context.Background(), &Exchange{ProtocolVersion: Version20260728, Header: h})
			status, resp := s.Handle(ctx, Caller{}, body(c.args))
			r := decodeRPC(t, resp)
			if c.code == 0 {
				if status != 200 || r.Error != nil {
					t.Fatalf("want success, got %d %s", status, resp)
				}
				return
			}
			if status != 400 || r.Error == nil || r.Error.Code != c.code {
				t.Fatalf("want 400 code %d, got %d %s", c.code, status, resp)
			}
		})
	}
}

func TestParamHeadersForbiddenToolRevealsNothing(t *testing.T) {
	ts := NewToolSet()
	if err := ts.Register(sqlTool(t, "db.write")); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, GrantsAuthorizer{}, nil)
	h := http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"execute_sql"}}
	ctx := ContextWithExchange(context.Background(), &Exchange{ProtocolVersion: Version20260728, Header: h})
	status, resp := s.Handle(ctx, Caller{Principal: "bob"}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_sql","arguments":{"region":"eu","query":"q"},`+modernMeta+`}}`))
	r := decodeRPC(t, resp)
	if status != 200 || r.Error == nil || r.Error.Code != CodeInvalidParams || r.Error.Message != "Unknown tool: execute_sql" {
		t.Fatalf("forbidden tool must answer like an unknown tool, got %d %s", status, resp)
	}
}

func TestHeaderParamsValidation(t *testing.T) {
	cases := []struct {
		name, schema, err string
	}{
		{"empty name", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, "HTTP token"},
		{"not a token", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`, "HTTP token"},
		{"number type", `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, "string, integer or boolean"},
		{"duplicate ignoring case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Reg"},"b":{"type":"string","x-mcp-header":"REG"}}}`, "twice"},
		{"ok", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"}}}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseSchema([]byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			params, err := headerParams(s)
			if c.err == "" {
				if err != nil || len(params) != 1 || params[0].header != "Region" || params[0].path[0] != "a" {
					t.Fatalf("got %v, %v", params, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v, want one mentioning %q", err, c.err)
			}
		})
	}
}

func TestRegisterRejectsInvalidHeaderAnnotations(t *testing.T) {
	schema, err := ParseSchema([]byte(`{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = NewToolSet().Register(NewRawTool(ToolInfo{Name: "bad", InputSchema: schema},
		func(context.Context, *Request) (*Result, error) { return nil, nil }))
	if !errors.Is(err, ErrInvalidSchema) || !strings.Contains(err.Error(), "x-mcp-header") {
		t.Fatalf("Register = %v, want ErrInvalidSchema naming x-mcp-header", err)
	}
}
