package interop

import (
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mg "github.com/mark3labs/mcp-go/mcp"
)

func connectMCPGo(t *testing.T, url, tok, version string) (*mcpclient.Client, *mg.InitializeResult, error) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	if err != nil {
		return nil, nil, err
	}
	var opts []mcpclient.ClientOption
	if version != "" {
		opts = append(opts, mcpclient.WithProtocolVersion(version))
	}
	c := mcpclient.NewClient(tr, opts...)
	if err := c.Start(context0(t)); err != nil {
		return nil, nil, err
	}
	ir, err := c.Initialize(context0(t), mg.InitializeRequest{Params: mg.InitializeParams{
		ClientInfo: mg.Implementation{Name: "embedmcp-interop", Version: "0.0.0"}}})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, ir, nil
}

func TestMCPGoClient(t *testing.T) {
	cases := []struct {
		name         string
		versions     []string
		pin          string
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
			cl, ir, err := connectMCPGo(t, srv.URL, token, c.pin)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cl.Close()
			if ir.ProtocolVersion != c.wantVersion {
				t.Errorf("negotiated %q, want %q", ir.ProtocolVersion, c.wantVersion)
			}
			if ir.ServerInfo.Name != "interop" {
				t.Errorf("serverInfo = %+v", ir.ServerInfo)
			}
			expectEra(t, srv.seen(), c.pin != "", c.serverModern)

			lt, err := cl.ListTools(context0(t), mg.ListToolsRequest{})
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			var names []string
			for _, tool := range lt.Tools {
				names = append(names, tool.Name)
			}
			if strings.Join(names, ",") != "add,echo,fail" {
				t.Errorf("tools = %v, want add,echo,fail", names)
			}

			res, err := cl.CallTool(context0(t), mg.CallToolRequest{Params: mg.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "héllo"}}})
			if err != nil || res.IsError {
				t.Fatalf("echo: %v %+v", err, res)
			}
			if tc, ok := res.Content[0].(mg.TextContent); !ok || tc.Text != `{"text":"héllo"}` {
				t.Errorf("content = %#v", res.Content)
			}
			if sc, _ := res.StructuredContent.(map[string]any); sc["text"] != "héllo" {
				t.Errorf("structuredContent = %#v", res.StructuredContent)
			}

			res, err = cl.CallTool(context0(t), mg.CallToolRequest{Params: mg.CallToolParams{Name: "fail", Arguments: map[string]any{}}})
			if err != nil || !res.IsError || res.Content[0].(mg.TextContent).Text != "the disk is full" {
				t.Errorf("fail: want an isError result, got %v %+v", err, res)
			}

			res, err = cl.CallTool(context0(t), mg.CallToolRequest{Params: mg.CallToolParams{Name: "echo", Arguments: map[string]any{"text": 5}}})
			if c.wantVersion >= mcp.Version20251125 {
				if err != nil || !res.IsError {
					t.Errorf("invalid arguments under %s: %v %+v", c.wantVersion, err, res)
				}
			} else if err == nil {
				t.Errorf("invalid arguments under %s: want a -32602 error, got %+v", c.wantVersion, res)
			}

			_, err = cl.CallTool(context0(t), mg.CallToolRequest{Params: mg.CallToolParams{Name: "secret"}})
			if err == nil || !strings.Contains(err.Error(), "Unknown tool") {
				t.Errorf("forbidden tool: want the unknown-tool error, got %v", err)
			}
		})
	}
}

func TestMCPGoBadToken(t *testing.T) {
	srv := newTestServer(t, nil)
	if cl, _, err := connectMCPGo(t, srv.URL, "wrong", ""); err == nil {
		cl.Close()
		t.Fatal("connected with a wrong token")
	}
}
