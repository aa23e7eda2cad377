package interop

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type bearer struct {
	base  http.RoundTripper
	token string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func connectGoSDK(t *testing.T, url, tok, version string, opts *sdk.ClientOptions) (*sdk.ClientSession, error) {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "embedmcp-interop", Version: "0.0.0"}, opts)
	tr := &sdk.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: bearer{http.DefaultTransport, tok}},
		MaxRetries: -1,
	}
	var so *sdk.ClientSessionOptions
	if version != "" {
		so = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	return c.Connect(context0(t), tr, so)
}

func TestGoSDKClient(t *testing.T) {
	cases := []struct {
		name         string
		versions     []string // server's
		pin          string   // client's
		wantVersion  string
		serverModern bool
	}{
		{"default vs dual-era", nil, "", mcp.Version20260728, true},
		{"default vs legacy-only", legacyOnly(), "", mcp.Version20251125, false},
		{"pinned 2025-06-18", nil, mcp.Version20250618, mcp.Version20250618, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newTestServer(t, c.versions)
			cs, err := connectGoSDK(t, srv.URL, token, c.pin, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != c.wantVersion {
				t.Errorf("negotiated %q, want %q", got, c.wantVersion)
			}
			expectEra(t, srv.seen(), c.pin != "", c.serverModern)

			lt, err := cs.ListTools(context0(t), nil)
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			var names []string
			for _, tool := range lt.Tools {
				names = append(names, tool.Name)
			}
			if !sort.StringsAreSorted(names) || strings.Join(names, ",") != "add,echo,fail" {
				t.Errorf("tools = %v, want add,echo,fail (secret is not permitted)", names)
			}

			res, err := cs.CallTool(context0(t), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "héllo 👋"}})
			if err != nil || res.IsError {
				t.Fatalf("echo: %v %+v", err, res)
			}
			if sc, _ := res.StructuredContent.(map[string]any); sc["text"] != "héllo 👋" {
				t.Errorf("structuredContent = %#v", res.StructuredContent)
			}
			if tc, ok := res.Content[0].(*sdk.TextContent); !ok || tc.Text != `{"text":"héllo 👋"}` {
				t.Errorf("content = %#v", res.Content)
			}

			res, err = cs.CallTool(context0(t), &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 40}})
			if err != nil || res.IsError || res.StructuredContent.(map[string]any)["sum"] != 42.0 {
				t.Errorf("add: %v %+v", err, res)
			}

			res, err = cs.CallTool(context0(t), &sdk.CallToolParams{Name: "fail", Arguments: map[string]any{}})
			if err != nil || !res.IsError || res.Content[0].(*sdk.TextContent).Text != "the disk is full" {
				t.Errorf("fail: want an isError result with the message, got %v %+v", err, res)
			}

			// Invalid arguments: a correctable tool error from 2025-11-25 on,
			// a JSON-RPC -32602 before.
			res, err = cs.CallTool(context0(t), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": 5}})
			if c.wantVersion >= mcp.Version20251125 {
				if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "/text") {
					t.Errorf("invalid arguments under %s: %v %+v", c.wantVersion, err, res)
				}
			} else if err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "/text") {
				t.Errorf("invalid arguments under %s: want a -32602 error, got %v %+v", c.wantVersion, err, res)
			}

			_, err = cs.CallTool(context0(t), &sdk.CallToolParams{Name: "secret", Arguments: map[string]any{}})
			if err == nil || !strings.Contains(err.Error(), "Unknown tool: secret") {
				t.Errorf("forbidden tool: want the unknown-tool error, got %v", err)
			}
		})
	}
}

func TestGoSDKBadToken(t *testing.T) {
	srv := newTestServer(t, nil)
	if cs, err := connectGoSDK(t, srv.URL, "wrong", "", nil); err == nil {
		cs.Close()
		t.Fatal("connected with a wrong token")
	}
}

// TestGoSDKToolListChanged shows subscriptions/listen end to end: the
// client opens the stream after server/discover, and a tool registered on
// the server reaches its handler.
func TestGoSDKToolListChanged(t *testing.T) {
	srv := newTestServer(t, nil)
	changed := make(chan struct{}, 4)
	cs, err := connectGoSDK(t, srv.URL, token, "", &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if indexOf(srv.seen(), "subscriptions/listen") < 0 {
		t.Fatalf("the client did not open subscriptions/listen; saw %v", srv.seen())
	}
	mustAdd(t)(mcp.AddTool(srv.tools, mcp.ToolInfo{Name: "late", Description: "Registered while the client listens.", Permission: "demo.echo"},
		func(_ context.Context, _ *mcp.Request, in echoArgs) (echoArgs, error) { return in, nil }))
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed notification reached the client")
	}
	lt, err := cs.ListTools(context0(t), nil)
	if err != nil || indexOf(toolNames(lt), "late") < 0 {
		t.Errorf("after the notification, list has %v (%v)", toolNames(lt), err)
	}
}

func toolNames(lt *sdk.ListToolsResult) []string {
	var out []string
	if lt != nil {
		for _, t := range lt.Tools {
			out = append(out, t.Name)
		}
	}
	return out
}
