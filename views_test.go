package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const viewHTML = `<!DOCTYPE html><html><body><script>window.parent.postMessage({}, "*")</script></body></html>`

// viewServer serves, over httptest, a ToolSet with two views: ui://t/chart
// named by "chart" (permission p.chart) and by the app-only "chart_page",
// and ui://t/admin named by no tool, readable with permission p.admin.
func viewServer(t *testing.T, opts *Options) (*httptest.Server, *ToolSet) {
	t.Helper()
	ts := NewToolSet()
	border := true
	if err := ts.RegisterViews(
		View{URI: "ui://t/chart", Name: "chart", Title: "Chart", Description: "A chart.", HTML: viewHTML,
			CSP: ViewCSP{ConnectDomains: []string{"https://api.example.com"}}, PrefersBorder: &border},
		View{URI: "ui://t/admin", Name: "admin", HTML: viewHTML, Permission: "p.admin"},
	); err != nil {
		t.Fatal(err)
	}
	run := func(context.Context, *Request) (*Result, error) {
		return &Result{Content: []Content{TextContent("3 points")}, Meta: map[string]any{"embedmcp/view": map[string]any{"points": []int{1, 2, 3}}}}, nil
	}
	if err := ts.Register(
		NewRawTool(ToolInfo{Name: "chart", Description: "Chart it.", Permission: "p.chart", View: "ui://t/chart"}, run),
		NewRawTool(ToolInfo{Name: "chart_page", Description: "A page of the chart.", Permission: "p.chart", View: "ui://t/chart", Visibility: VisibleToApp}, run),
		NewRawTool(ToolInfo{Name: "plain", Description: "No view.", Permission: "p.plain"}, run),
	); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]Caller{
		"chart": {Principal: "c", Grants: []string{"p.chart"}},
		"plain": {Principal: "p", Grants: []string{"p.plain"}},
		"admin": {Principal: "a", Grants: []string{"p.admin"}},
	}
	h := NewHandler(NewServer(ts, GrantsAuthorizer{}, opts), &HandlerOptions{Authenticator: StaticTokens(tokens)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, ts
}

// viewCall posts one request under version (a handshake revision, or
// 2026-07-28 with its _meta and headers) as the holder of token.
func viewCall(t *testing.T, srv *httptest.Server, version, token, method, params string) (int, rpc, []byte) {
	t.Helper()
	if params == "" {
		params = "{}"
	}
	req := map[string]any{"jsonrpc": "2.0", "id": 7, "method": method}
	var p map[string]any
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		t.Fatal(err)
	}
	if version == Version20260728 {
		meta, _ := p["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = Version20260728
		meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "t", "version": "1"}
		if _, ok := meta["io.modelcontextprotocol/clientCapabilities"]; !ok {
			meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
		}
		p["_meta"] = meta
	}
	req["params"] = p
	body, _ := json.Marshal(req)
	hr, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	hr.Header.Set("MCP-Protocol-Version", version)
	hr.Header.Set("Authorization", "Bearer "+token)
	if version == Version20260728 {
		hr.Header.Set("Mcp-Method", method)
		if uri, ok := p["uri"].(string); ok && method == "resources/read" {
			hr.Header.Set("Mcp-Name", uri)
		}
		if name, ok := p["name"].(string); ok && method == "tools/call" {
			hr.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := srv.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, decodeRPC(t, b), b
}

var viewVersions = []string{Version20250326, Version20250618, Version20251125, Version20260728}

func TestViewReadAndList(t *testing.T) {
	srv, _ := viewServer(t, nil)
	for _, v := range viewVersions {
		t.Run(v, func(t *testing.T) {
			_, r, body := viewCall(t, srv, v, "chart", "resources/read", `{"uri":"ui://t/chart"}`)
			if r.Error != nil {
				t.Fatalf("read: %s", body)
			}
			contents, _ := r.Result["contents"].([]any)
			if len(contents) != 1 {
				t.Fatalf("contents: %s", body)
			}
			c := contents[0].(map[string]any)
			if c["uri"] != "ui://t/chart" || c["mimeType"] != "text/html;profile=mcp-app" || c["text"] != viewHTML {
				t.Errorf("content: %s", body)
			}
			ui := c["_meta"].(map[string]any)["ui"].(map[string]any)
			if ui["prefersBorder"] != true || fmt.Sprint(ui["csp"]) != "map[connectDomains:[https://api.example.com]]" {
				t.Errorf("_meta.ui: %v", ui)
			}
			if v == Version20260728 && r.Result["resultType"] != "complete" {
				t.Errorf("2026-07-28 read lacks resultType: %s", body)
			}

			_, r, body = viewCall(t, srv, v, "chart", "resources/list", "")
			if r.Error != nil {
				t.Fatalf("list: %s", body)
			}
			res, _ := r.Result["resources"].([]any)
			if len(res) != 1 || res[0].(map[string]any)["uri"] != "ui://t/chart" || res[0].(map[string]any)["mimeType"] != ViewMIMEType {
				t.Errorf("the chart caller lists %s", body)
			}
			_, r, body = viewCall(t, srv, v, "admin", "resources/list", "")
			if res, _ := r.Result["resources"].([]any); len(res) != 1 || res[0].(map[string]any)["uri"] != "ui://t/admin" {
				t.Errorf("the admin caller lists %s", body)
			}
			_, r, body = viewCall(t, srv, v, "chart", "resources/templates/list", "")
			if tl, ok := r.Result["resourceTemplates"].([]any); !ok || len(tl) != 0 {
				t.Errorf("templates: %s", body)
			}
		})
	}
}

// A view the caller may not see is answered exactly as one that does not
// exist, under every revision.
func TestViewHiddenLikeUnknown(t *testing.T) {
	srv, _ := viewServer(t, nil)
	for _, v := range viewVersions {
		t.Run(v, func(t *testing.T) {
			wantCode := -32002
			if v == Version20260728 {
				wantCode = CodeInvalidParams
			}
			for _, c := range []struct{ token, uri string }{
				{"plain", "ui://t/chart"}, // may call no tool naming it
				{"chart", "ui://t/admin"}, // lacks the view's permission
			} {
				st1, hidden, b1 := viewCall(t, srv, v, c.token, "resources/read", `{"uri":"`+c.uri+`"}`)
				st2, unknown, b2 := viewCall(t, srv, v, c.token, "resources/read", `{"uri":"`+c.uri+`x"}`)
				if hidden.Error == nil || hidden.Error.Code != wantCode || hidden.Error.Message != "Resource not found" {
					t.Fatalf("%s reading %s: %s", c.token, c.uri, b1)
				}
				if st1 != st2 || unknown.Error == nil || unknown.Error.Code != hidden.Error.Code || unknown.Error.Message != hidden.Error.Message {
					t.Errorf("hidden %d %s, unknown %d %s", st1, b1, st2, b2)
				}
				if hidden.Error.Data["uri"] != c.uri {
					t.Errorf("data: %s", b1)
				}
			}
			_, r, body := viewCall(t, srv, v, "plain", "resources/list", "")
			if res, _ := r.Result["resources"].([]any); r.Error != nil || len(res) != 0 {
				t.Errorf("plain lists %s", body)
			}
		})
	}
}

func TestViewBadParams(t *testing.T) {
	srv, _ := viewServer(t, nil)
	long := "ui://t/" + strings.Repeat("a", 5000)
	for _, c := range []struct {
		method, params string
		code           int
		msg            string
	}{
		{"resources/read", `{}`, CodeInvalidParams, "uri is required"},
		{"resources/read", `{"uri":3}`, CodeInvalidParams, "uri must be a string, got integer"},
		{"resources/read", `{"uri":"` + long + `"}`, -32002, "Resource not found"},
		{"resources/read", `{"uri":"http://t/chart"}`, -32002, "Resource not found"},
		{"resources/list", `{"cursor":5}`, CodeInvalidParams, "cursor must be a string"},
		{"resources/list", `{"cursor":"nope"}`, CodeInvalidParams, "invalid cursor"},
		{"resources/templates/list", `{"cursor":"x"}`, CodeInvalidParams, "invalid cursor"},
		{"resources/subscribe", `{"uri":"ui://t/chart"}`, CodeMethodNotFound, "Method not found"},
	} {
		_, r, body := viewCall(t, srv, Version20251125, "chart", c.method, c.params)
		if r.Error == nil || r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.msg) {
			t.Errorf("%s %s: %s", c.method, shorten(c.params), shorten(string(body)))
		}
		if len(body) > 1024 {
			t.Errorf("%s echoes %d bytes", c.method, len(body))
		}
	}
}

func TestViewPaging(t *testing.T) {
	ts := NewToolSet()
	var tools []Tool
	for i := range 5 {
		uri := fmt.Sprintf("ui://t/v%d", i)
		if err := ts.RegisterViews(View{URI: uri, Name: "v", HTML: viewHTML}); err != nil {
			t.Fatal(err)
		}
		tools = append(tools, NewRawTool(ToolInfo{Name: fmt.Sprintf("t%d", i), View: uri}, nil))
	}
	if err := ts.Register(tools...); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), &Options{PageSize: 2})
	var got []string
	cursor := ""
	for range 10 {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		_, body := s.Handle(versionCtx(Version20251125), Caller{}, rpcBody(1, "resources/list", params))
		r := decodeRPC(t, body)
		for _, x := range r.Result["resources"].([]any) {
			got = append(got, x.(map[string]any)["uri"].(string))
		}
		cursor, _ = r.Result["nextCursor"].(string)
		if cursor == "" {
			break
		}
	}
	if strings.Join(got, " ") != "ui://t/v0 ui://t/v1 ui://t/v2 ui://t/v3 ui://t/v4" {
		t.Errorf("pages: %v", got)
	}
}

func TestViewToolMetaAndVisibility(t *testing.T) {
	srv, _ := viewServer(t, nil)
	tools := func(version, capabilities string) map[string]map[string]any {
		params := ""
		if capabilities != "" {
			params = `{"_meta":{"io.modelcontextprotocol/clientCapabilities":` + capabilities + `}}`
		}
		_, r, body := viewCall(t, srv, version, "chart", "tools/list", params)
		if r.Error != nil {
			t.Fatalf("tools/list: %s", body)
		}
		out := map[string]map[string]any{}
		for _, x := range r.Result["tools"].([]any) {
			m := x.(map[string]any)
			meta, _ := m["_meta"].(map[string]any)
			out[m["name"].(string)] = meta
		}
		return out
	}
	for _, v := range []string{Version20250326, Version20250618, Version20251125} {
		got := tools(v, "")
		if len(got) != 2 {
			t.Fatalf("%s lists %v", v, got)
		}
		if fmt.Sprint(got["chart"]) != "map[ui:map[resourceUri:ui://t/chart] ui/resourceUri:ui://t/chart]" {
			t.Errorf("%s chart _meta %v", v, got["chart"])
		}
		if fmt.Sprint(got["chart_page"]["ui"]) != "map[resourceUri:ui://t/chart visibility:[app]]" {
			t.Errorf("%s chart_page _meta %v", v, got["chart_page"])
		}
	}
	// 2026-07-28: app-only tools only for clients that render views.
	if got := tools(Version20260728, ""); len(got) != 1 || got["chart"] == nil {
		t.Errorf("a client without the extension sees %v", got)
	}
	if got := tools(Version20260728, `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`); len(got) != 2 {
		t.Errorf("a client with the extension sees %v", got)
	}
	// The app-only tool stays callable, and its _meta reaches the caller.
	_, r, body := viewCall(t, srv, Version20260728, "chart", "tools/call", `{"name":"chart_page","arguments":{}}`)
	if r.Error != nil || r.Result["_meta"].(map[string]any)["embedmcp/view"] == nil {
		t.Errorf("calling the app-only tool: %s", body)
	}
}

func TestViewCapabilities(t *testing.T) {
	srv, ts := viewServer(t, &Options{Tasks: TaskOptions{Disabled: true}})
	for _, v := range []string{Version20250326, Version20250618, Version20251125} {
		_, r, body := viewCall(t, srv, v, "chart", "initialize", `{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
		caps := r.Result["capabilities"].(map[string]any)
		if _, ok := caps["resources"]; !ok {
			t.Errorf("%s initialize: %s", v, body)
		}
	}
	_, r, body := viewCall(t, srv, Version20260728, "chart", "server/discover", "")
	caps := r.Result["capabilities"].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	if _, ok := caps["resources"]; !ok || fmt.Sprint(ext[UIExtension]) != "map[mimeTypes:[text/html;profile=mcp-app]]" {
		t.Errorf("discover: %s", body)
	}

	// Without views: no resources capability, no extension, no methods.
	if n := ts.Remove("chart", "chart_page"); n != 2 {
		t.Fatal(n)
	}
	if n, err := ts.RemoveViews("ui://t/chart", "ui://t/admin"); n != 2 || err != nil {
		t.Fatal(n, err)
	}
	_, r, body = viewCall(t, srv, Version20251125, "chart", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	if _, ok := r.Result["capabilities"].(map[string]any)["resources"]; ok {
		t.Errorf("initialize without views: %s", body)
	}
	_, r, body = viewCall(t, srv, Version20260728, "chart", "server/discover", "")
	if strings.Contains(string(body), UIExtension) || strings.Contains(string(body), `"resources"`) {
		t.Errorf("discover without views: %s", body)
	}
	_, r, body = viewCall(t, srv, Version20251125, "chart", "resources/list", "")
	if r.Error == nil || r.Error.Code != CodeMethodNotFound {
		t.Errorf("resources/list without views: %s", body)
	}
}

func TestViewRegistrationErrors(t *testing.T) {
	ok := View{URI: "ui://t/v", Name: "v", HTML: viewHTML}
	with := func(f func(*View)) View { v := ok; f(&v); return v }
	for _, c := range []struct {
		name string
		v    View
	}{
		{"scheme", with(func(v *View) { v.URI = "https://t/v" })},
		{"no host", with(func(v *View) { v.URI = "ui:///v" })},
		{"space", with(func(v *View) { v.URI = "ui://t/a b" })},
		{"query", with(func(v *View) { v.URI = "ui://t/v?x=1" })},
		{"long URI", with(func(v *View) { v.URI = "ui://t/" + strings.Repeat("a", MaxViewURIBytes) })},
		{"no name", with(func(v *View) { v.Name = "" })},
		{"no HTML", with(func(v *View) { v.HTML = "" })},
		{"HTML too large", with(func(v *View) { v.HTML = strings.Repeat("a", MaxViewBytes+1) })},
		{"HTML not UTF-8", with(func(v *View) { v.HTML = "\xff" })},
		{"CSP not an origin", with(func(v *View) { v.CSP.ConnectDomains = []string{"https://a.com; script-src *"} })},
		{"CSP scheme", with(func(v *View) { v.CSP.FrameDomains = []string{"javascript://x"} })},
		{"CSP port", with(func(v *View) { v.CSP.ResourceDomains = []string{"https://a.com:x"} })},
		{"CSP too many", with(func(v *View) { v.CSP.BaseURIDomains = make([]string, MaxViewDomains+1) })},
	} {
		err := NewToolSet().RegisterViews(c.v)
		if !errors.Is(err, ErrInvalidView) {
			t.Errorf("%s: %v", c.name, err)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("%s: the error is %d bytes", c.name, len(err.Error()))
		}
	}
	good := with(func(v *View) {
		v.CSP = ViewCSP{ConnectDomains: []string{"https://api.example.com", "wss://*.example.com:8443"}}
		v.HTML = strings.Repeat("a", MaxViewBytes)
	})
	ts := NewToolSet()
	if err := ts.RegisterViews(good); err != nil {
		t.Fatal(err)
	}
	if err := ts.RegisterViews(ok); !errors.Is(err, ErrDuplicateView) {
		t.Errorf("duplicate: %v", err)
	}
	if err := NewToolSet().RegisterViews(ok, ok); !errors.Is(err, ErrDuplicateView) {
		t.Errorf("twice in one call: %v", err)
	}
	if err := ts.SetViews(ok); err != nil {
		t.Errorf("SetViews replaces: %v", err)
	}
	if err := ts.Register(NewRawTool(ToolInfo{Name: "a", View: "ui://t/other"}, nil)); !errors.Is(err, ErrUnknownView) || ts.Len() != 0 {
		t.Errorf("a tool naming an unregistered view: %v", err)
	}
	if err := ts.Register(NewRawTool(ToolInfo{Name: "a", View: "ftp://x"}, nil)); !errors.Is(err, ErrInvalidToolInfo) {
		t.Errorf("a tool naming a bad URI: %v", err)
	}
	if err := ts.Register(NewRawTool(ToolInfo{Name: "a", Visibility: 4}, nil)); !errors.Is(err, ErrInvalidToolInfo) {
		t.Errorf("a bad visibility: %v", err)
	}
	if err := ts.Register(NewRawTool(ToolInfo{Name: "a", View: "ui://t/v", Meta: map[string]any{"ui": 1}}, nil)); !errors.Is(err, ErrInvalidToolInfo) {
		t.Errorf("Meta[ui] beside View: %v", err)
	}
	if err := ts.Register(NewRawTool(ToolInfo{Name: "a", View: "ui://t/v"}, nil)); err != nil {
		t.Fatal(err)
	}
	if n, err := ts.RemoveViews("ui://t/v"); n != 0 || !errors.Is(err, ErrViewInUse) {
		t.Errorf("removing a view in use: %d %v", n, err)
	}
	if _, ok := ts.LookupView("ui://t/v"); !ok {
		t.Error("the view in use was removed")
	}
	// The set keeps its own copy.
	v := View{URI: "ui://t/copy", Name: "c", HTML: viewHTML, CSP: ViewCSP{ConnectDomains: []string{"https://a.com"}}}
	if err := ts.RegisterViews(v); err != nil {
		t.Fatal(err)
	}
	v.CSP.ConnectDomains[0] = "https://evil.com"
	if got, _ := ts.LookupView("ui://t/copy"); got.CSP.ConnectDomains[0] != "https://a.com" {
		t.Errorf("the registered view changed with the caller's: %v", got.CSP)
	}
}

func TestViewWatch(t *testing.T) {
	ts := NewToolSet()
	n := 0
	stop := ts.Watch(func() { n++ })
	defer stop()
	if err := ts.RegisterViews(View{URI: "ui://t/v", Name: "v", HTML: viewHTML}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.RemoveViews("ui://t/v"); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.RemoveViews("ui://t/v"); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("watchers called %d times, want 2", n)
	}
}

// A ViewRegistry other than a ToolSet, set in Options.Views, is served
// too, and one that panics fails the request only.
func TestViewOptionsViews(t *testing.T) {
	views := NewToolSet()
	if err := views.RegisterViews(View{URI: "ui://o/v", Name: "v", HTML: viewHTML}); err != nil {
		t.Fatal(err)
	}
	if err := views.Register(NewRawTool(ToolInfo{Name: "a", View: "ui://o/v"}, nil)); err != nil {
		t.Fatal(err)
	}
	var ts Registry = views
	s := NewServer(ts, AllowAll(), &Options{Views: staticViews{views}})
	_, body := s.Handle(versionCtx(Version20251125), Caller{}, rpcBody(1, "resources/read", `{"uri":"ui://o/v"}`))
	if r := decodeRPC(t, body); r.Error != nil {
		t.Errorf("read through Options.Views: %s", body)
	}
	s = NewServer(ts, AllowAll(), &Options{Views: panicViews{}})
	status, body := s.Handle(versionCtx(Version20251125), Caller{}, rpcBody(1, "resources/read", `{"uri":"ui://o/v"}`))
	if r := decodeRPC(t, body); status != 200 || r.Error == nil || r.Error.Code != CodeMethodNotFound && r.Error.Code != CodeInternalError {
		t.Errorf("a panicking ViewRegistry: %d %s", status, body)
	}
}

// staticViews hides the ToolSet's compiled views: the Server encodes them.
type staticViews struct{ ts *ToolSet }

func (s staticViews) LookupView(uri string) (*View, bool) { return s.ts.LookupView(uri) }
func (s staticViews) AllViews() iter.Seq[*View]           { return s.ts.AllViews() }

type panicViews struct{}

func (panicViews) LookupView(string) (*View, bool) { panic("boom") }
func (panicViews) AllViews() iter.Seq[*View]       { panic("boom") }

func TestViewHeaderName(t *testing.T) {
	srv, _ := viewServer(t, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"ui://t/chart",` + modernMeta + `}}`
	hr, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	hr.Header.Set("MCP-Protocol-Version", Version20260728)
	hr.Header.Set("Authorization", "Bearer chart")
	hr.Header.Set("Mcp-Method", "resources/read")
	hr.Header.Set("Mcp-Name", "ui://t/other")
	resp, err := srv.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if r := decodeRPC(t, b); resp.StatusCode != 400 || r.Error == nil || r.Error.Code != CodeHeaderMismatch {
		t.Errorf("Mcp-Name disagreeing with uri: %d %s", resp.StatusCode, b)
	}
}

// Views change while requests read them: each read sees a whole set.
func TestViewConcurrentChanges(t *testing.T) {
	ts := NewToolSet()
	if err := ts.RegisterViews(View{URI: "ui://t/v", Name: "v", HTML: viewHTML}); err != nil {
		t.Fatal(err)
	}
	if err := ts.Register(NewRawTool(ToolInfo{Name: "a", View: "ui://t/v"}, nil)); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			html := fmt.Sprintf("<!DOCTYPE html><p>%d</p>", i)
			if err := ts.SetViews(View{URI: "ui://t/v", Name: "v", HTML: html}, View{URI: fmt.Sprintf("ui://t/x%d", i%3), Name: "x", HTML: html}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 200 {
		_, body := s.Handle(versionCtx(Version20251125), Caller{}, rpcBody(1, "resources/read", `{"uri":"ui://t/v"}`))
		if r := decodeRPC(t, body); r.Error != nil {
			t.Fatalf("read during changes: %s", body)
		}
		_, body = s.Handle(versionCtx(Version20251125), Caller{}, rpcBody(2, "resources/list", ``))
		if r := decodeRPC(t, body); r.Error != nil {
			t.Fatalf("list during changes: %s", body)
		}
	}
	<-done
}
