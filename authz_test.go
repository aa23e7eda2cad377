package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestGrantCovers(t *testing.T) {
	tests := []struct {
		grant, perm string
		want        bool
	}{
		{"diagnostics.code.read", "diagnostics.code.read", true},
		{"diagnostics.code.read", "diagnostics.code.write", false},
		{"diagnostics.code.read", "diagnostics.code.read.more", false},
		{"diagnostics.code", "diagnostics.code.read", false},
		{"diagnostics.*", "diagnostics.code.read", true},
		{"diagnostics.*", "diagnostics.x", true},
		{"diagnostics.*", "diagnostics", false},
		{"diagnostics.*", "diagnostics.", false},
		{"diagnostics.*", "diagnosticsX.read", false},
		{"diagnostics.*", "other.diagnostics.read", false},
		{"diagnostics.code.*", "diagnostics.code.read", true},
		{"diagnostics.code.*", "diagnostics.data.read", false},
		{"*", "anything.at.all", true},
		{"*", "", true},
		{"diag*", "diagnostics", false}, // only ".*" is a wildcard
		{"diag*", "diag*", true},
		{".*", ".x", true},
		{".*", "x", false},
		{"", "", true},
		{"", "x", false},
		{"Diagnostics.*", "diagnostics.read", false}, // case-sensitive
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			if got := GrantCovers(tt.grant, tt.perm); got != tt.want {
				t.Errorf("GrantCovers(%q, %q) = %v, want %v", tt.grant, tt.perm, got, tt.want)
			}
		})
	}
}

func TestAuthorizers(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		az     Authorizer
		grants []string
		perm   string
		want   bool
	}{
		{"grants: empty permission needs no grant", GrantsAuthorizer{}, nil, "", true},
		{"grants: no grants", GrantsAuthorizer{}, nil, "a.read", false},
		{"grants: exact", GrantsAuthorizer{}, []string{"b.read", "a.read"}, "a.read", true},
		{"grants: wildcard", GrantsAuthorizer{}, []string{"a.*"}, "a.read", true},
		{"grants: wrong wildcard", GrantsAuthorizer{}, []string{"b.*"}, "a.read", false},
		{"grants: star", GrantsAuthorizer{}, []string{"*"}, "a.read", true},
		{"allow all", AllowAll(), nil, "a.read", true},
		{"allow all empty", AllowAll(), nil, "", true},
		{"deny all", DenyAll(), []string{"*"}, "a.read", false},
		{"deny all empty permission", DenyAll(), []string{"*"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.az.Allowed(ctx, Caller{Principal: "p", Grants: tt.grants}, tt.perm); got != tt.want {
				t.Errorf("%s: Allowed(%v, %q) = %v, want %v", tt.name, tt.grants, tt.perm, got, tt.want)
			}
		})
	}
}

// permTools registers counting tools with the given name → permission.
func permTools(t *testing.T, ts *ToolSet, perms map[string]string) map[string]*counter {
	t.Helper()
	out := map[string]*counter{}
	for name, perm := range perms {
		c := &counter{name: name, perm: perm}
		if err := ts.Register(c); err != nil {
			t.Fatal(err)
		}
		out[name] = c
	}
	return out
}

// listNames calls tools/list (all pages) and returns the names in order.
func listNames(t *testing.T, s *Server, caller Caller) []string {
	t.Helper()
	var names []string
	cursor := ""
	for page := 0; ; page++ {
		if page > 1000 {
			t.Fatal("tools/list never ends")
		}
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		status, body := s.Handle(context.Background(), caller, rpcBody(page, "tools/list", params))
		r := decodeResponse(t, body)
		if status != 200 || r.Error != nil {
			t.Fatalf("tools/list: %d %s", status, body)
		}
		var res struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor *string `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if len(tool.InputSchema) == 0 {
				t.Errorf("tool %s has no inputSchema", tool.Name)
			}
			names = append(names, tool.Name)
		}
		if res.NextCursor == nil {
			return names
		}
		if *res.NextCursor == "" {
			t.Fatal("empty nextCursor")
		}
		cursor = *res.NextCursor
	}
}

func TestListAuthorization(t *testing.T) {
	perms := map[string]string{
		"public":      "",
		"code.read":   "diagnostics.code.read",
		"code.write":  "diagnostics.code.write",
		"data.read":   "diagnostics.data.read",
		"admin.reset": "admin",
	}
	tests := []struct {
		name   string
		az     Authorizer
		grants []string
		want   []string
	}{
		{"no grants", GrantsAuthorizer{}, nil, []string{"public"}},
		{"exact", GrantsAuthorizer{}, []string{"diagnostics.code.read"}, []string{"code.read", "public"}},
		{"wildcard", GrantsAuthorizer{}, []string{"diagnostics.*"}, []string{"code.read", "code.write", "data.read", "public"}},
		{"narrow wildcard", GrantsAuthorizer{}, []string{"diagnostics.code.*", "admin"}, []string{"admin.reset", "code.read", "code.write", "public"}},
		{"star", GrantsAuthorizer{}, []string{"*"}, []string{"admin.reset", "code.read", "code.write", "data.read", "public"}},
		{"allow all", AllowAll(), nil, []string{"admin.reset", "code.read", "code.write", "data.read", "public"}},
		{"deny all", DenyAll(), []string{"*"}, nil},
		{"nil authorizer fails closed", nil, []string{"*"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, pageSize := range []int{0, 1, 2} {
				ts := NewToolSet()
				permTools(t, ts, perms)
				s := NewServer(ts, tt.az, &Options{PageSize: pageSize})
				got := listNames(t, s, Caller{Principal: "u", Grants: tt.grants})
				if !slices.Equal(got, tt.want) {
					t.Errorf("%s (page size %d): listed %v, want %v", tt.name, pageSize, got, tt.want)
				}
			}
		})
	}
}

func TestAuthorizerSeesCaller(t *testing.T) {
	var asked []string
	az := AuthorizerFunc(func(ctx context.Context, c Caller, perm string) bool {
		fromCtx, ok := CallerFromContext(ctx)
		if !ok || fromCtx.Principal != c.Principal || c.Server != "tenant-a" {
			t.Errorf("the context does not carry the caller: %+v %v", fromCtx, ok)
		}
		asked = append(asked, perm)
		return perm == "ok"
	})
	ts := NewToolSet()
	tools := permTools(t, ts, map[string]string{"yes": "ok", "no": "nope"})
	s := NewServer(ts, az, nil)
	caller := Caller{Principal: "bob", Server: "tenant-a"}
	if got := listNames(t, s, caller); !slices.Equal(got, []string{"yes"}) {
		t.Errorf("listed %v", got)
	}
	for _, name := range []string{"yes", "no"} {
		s.Handle(context.Background(), caller, rpcBody(1, "tools/call", `{"name":"`+name+`"}`))
	}
	if tools["yes"].n.Load() != 1 || tools["no"].n.Load() != 0 {
		t.Errorf("runs: yes %d, no %d", tools["yes"].n.Load(), tools["no"].n.Load())
	}
	if !slices.Contains(asked, "nope") {
		t.Errorf("the authorizer was not asked about the denied call: %v", asked)
	}
}

// TestDeniedLikeUnknown checks that a tool the caller may not use is
// answered byte for byte like a tool that does not exist, and that the
// denial is logged with the principal.
func TestDeniedLikeUnknown(t *testing.T) {
	for _, version := range []string{"", Version20250618, Version20251125} {
		var buf bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(&buf, nil))
		ts := NewToolSet()
		tools := permTools(t, ts, map[string]string{"admin.reset": "admin", "other": ""})
		s := NewServer(ts, GrantsAuthorizer{}, &Options{Logger: logger})
		caller := Caller{Principal: "mallory", Grants: []string{"diagnostics.*"}}
		body := []byte(`{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"admin.reset","arguments":{}}}`)

		deniedStatus, denied := s.Handle(versionCtx(version), caller, body)
		if tools["admin.reset"].n.Load() != 0 {
			t.Fatalf("a denied tool ran")
		}
		ts.Remove("admin.reset")
		unknownStatus, unknown := s.Handle(versionCtx(version), caller, body)
		if deniedStatus != unknownStatus || !bytes.Equal(denied, unknown) {
			t.Errorf("version %q: denied answer\n%d %s\ndiffers from unknown answer\n%d %s", version, deniedStatus, denied, unknownStatus, unknown)
		}
		r := decodeResponse(t, unknown)
		if unknownStatus != 200 || r.Error == nil || r.Error.Code != -32602 || r.Error.Message != "Unknown tool: admin.reset" {
			t.Errorf("version %q: unknown tool answered %d %s", version, unknownStatus, unknown)
		}

		var warned bool
		for _, rec := range logRecords(t, &buf) {
			if rec["level"] == "WARN" && rec["principal"] == "mallory" && rec["tool"] == "admin.reset" {
				warned = true
			}
		}
		if !warned {
			t.Errorf("version %q: the denial was not logged at warn with the principal:\n%s", version, buf.String())
		}
	}
}

// panickyRegistry panics on every lookup, as a broken Registry might.
type panickyRegistry struct{ *ToolSet }

func (panickyRegistry) Lookup(string) (Tool, bool) { panic("registry bug") }

func TestPanickingAuthorizerAndRegistryDoNotEscape(t *testing.T) {
	ts := NewToolSet()
	if err := ts.Register(NewRawTool(ToolInfo{Name: "t", Permission: "p"}, func(context.Context, *Request) (*Result, error) {
		return TextResult("ran"), nil
	})); err != nil {
		t.Fatal(err)
	}
	az := AuthorizerFunc(func(context.Context, Caller, string) bool { panic("authorizer bug") })
	s := NewServer(ts, az, nil)
	_, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if !strings.Contains(string(body), `"tools":[]`) {
		t.Errorf("a panicking authorizer must deny: %s", body)
	}
	_, body = s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`))
	if !strings.Contains(string(body), "Unknown tool: t") {
		t.Errorf("a panicking authorizer must deny the call: %s", body)
	}
	s = NewServer(panickyRegistry{ts}, AllowAll(), nil)
	status, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`))
	if status != 500 || !strings.Contains(string(body), `"code":-32603`) || strings.Contains(string(body), "registry bug") {
		t.Errorf("a panicking registry: %d %s", status, body)
	}
}
