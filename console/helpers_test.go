package console

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// Tokens of the fixture's callers: an operator who may read and act, a
// reader, and a caller of tools without console grants.
const (
	operatorToken = "tok-operator-5ecret"
	readerToken   = "tok-reader-5ecret"
	userToken     = "tok-user-5ecret"
)

// fixture is a host: a Server with the console's Middleware, its MCP
// endpoint at /mcp and the console at /console/, behind one Authenticator.
type fixture struct {
	t       *testing.T
	console *Console
	store   *tasks.MemoryStore
	srv     *httptest.Server
	started chan string // the task tool's context, once running
	stopped chan error  // the task tool's context's cause, once cancelled
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, store: tasks.NewMemoryStore(nil), started: make(chan string, 4), stopped: make(chan error, 4)}
	ts := mcp.NewToolSet()
	type echoIn struct {
		Text  string `json:"text" jsonschema:"the text to echo"`
		Times int    `json:"times,omitempty" jsonschema:"how many times"`
	}
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Title: "Echo", Description: "Echoes its text.\nA second line.",
		Permission: "demo.echo", AdminSummary: "For smoke tests.", AdminExample: `echo {"text":"hi"}`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}},
		func(_ context.Context, _ *mcp.Request, in echoIn) (string, error) { return in.Text, nil }); err != nil {
		t.Fatal(err)
	}
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "fail", Description: "Always fails.", Permission: "demo.fail"},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.ErrorResult("it failed"), nil })); err != nil {
		t.Fatal(err)
	}
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "slow", Description: "Runs as a task until cancelled.",
		Permission: "demo.slow", TaskSupport: mcp.TaskRequired},
		func(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
			f.started <- req.Name
			<-ctx.Done()
			f.stopped <- context.Cause(ctx)
			return nil, context.Cause(ctx)
		})); err != nil {
		t.Fatal(err)
	}
	callers := map[string]mcp.Caller{
		operatorToken: {Principal: "olga", Grants: []string{"diagnostics.*", "demo.*"}},
		readerToken:   {Principal: "rita", Grants: []string{"diagnostics.console.read", "demo.*"}},
		userToken:     {Principal: "ulf", Grants: []string{"demo.*"}},
	}
	auth := mcp.StaticTokens(callers)
	c, err := New(&Options{Title: "Test service", Registry: ts, Authenticator: auth, Authorizer: mcp.GrantsAuthorizer{},
		Tasks: f.store, SampleInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	f.console = c
	server := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Middleware: []mcp.Middleware{c.Record},
		Tasks: mcp.TaskOptions{Store: f.store}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		_ = server.Shutdown(ctx)
	})
	mux := http.NewServeMux()
	handler := mcp.NewHandler(server, &mcp.HandlerOptions{Authenticator: auth})
	mux.Handle("/mcp", handler)
	mux.Handle("/console/", http.StripPrefix("/console", c))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(func() { handler.Close(); f.srv.Close() })
	return f
}

// mcpCall posts a JSON-RPC request to /mcp with token and returns the
// decoded response.
func (f *fixture) mcpCall(token, body string, header ...string) map[string]any {
	f.t.Helper()
	req, _ := http.NewRequest("POST", f.srv.URL+"/mcp", strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		f.t.Fatalf("/mcp answered %d %q", resp.StatusCode, b)
	}
	return out
}

// callTool calls a tool under 2025-11-25.
func (f *fixture) callTool(token, tool, args string) map[string]any {
	f.t.Helper()
	return f.mcpCall(token, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
}

// startTask calls the task tool under 2026-07-28 and returns the task's ID.
func (f *fixture) startTask(token string) string {
	f.t.Helper()
	out := f.mcpCall(token, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"secret":"task-arg-value"},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},`+
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "slow")
	res, _ := out["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if id == "" {
		f.t.Fatalf("no task: %v", out)
	}
	select {
	case <-f.started:
	case <-time.After(5 * time.Second):
		f.t.Fatal("the task's tool did not start")
	}
	return id
}

// answer is one answer of the console.
type answer struct {
	status int
	header http.Header
	body   string
}

// get requests path under /console/ with the given Authorization header
// ("" for none) and cookies.
func (f *fixture) get(path, authorization string, cookies ...*http.Cookie) answer {
	f.t.Helper()
	return f.do("GET", path, authorization, nil, cookies...)
}

func (f *fixture) do(method, path, authorization string, form map[string]string, cookies ...*http.Cookie) answer {
	f.t.Helper()
	var body io.Reader
	if form != nil {
		v := make([]string, 0, len(form))
		for k, val := range form {
			v = append(v, k+"="+val)
		}
		body = strings.NewReader(strings.Join(v, "&"))
	}
	req, err := http.NewRequest(method, f.srv.URL+"/console/"+path, body)
	if err != nil {
		f.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func bearer(token string) string { return "Bearer " + token }

func basic(token string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("anyone:"+token))
}

func newFormRequest(t *testing.T, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

func doRequest(t *testing.T, req *http.Request) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
