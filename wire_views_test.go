package mcp

import (
	"encoding/json"
	"testing"
)

// TestWireViewShapes holds the golden bytes of the shapes wire_views.go
// owns, and of the capabilities views add to initialize and
// server/discover.
func TestWireViewShapes(t *testing.T) {
	yes, no := true, false
	plain := &View{URI: "ui://a/b", Name: "b", HTML: "<p>x</p>"}
	full := &View{URI: "ui://a/c", Name: "c", Title: "C", Description: `The "c" view.`, HTML: "<p>\u00e9</p>",
		CSP: ViewCSP{ConnectDomains: []string{"https://api.example.com"}, FrameDomains: []string{"https://f.example.com", "https://g.example.com"}}, PrefersBorder: &yes}
	borderless := &View{URI: "ui://a/d", Name: "d", HTML: "x", PrefersBorder: &no}
	cspOnly := &View{URI: "ui://a/e", Name: "e", HTML: "x", CSP: ViewCSP{ResourceDomains: []string{"https://*.cdn.example.com"}, BaseURIDomains: []string{"https://b.example.com"}}}
	respond := func(open []byte) []byte { return wireResponse([]byte(`7`), open) }
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"no meta", appendViewMeta(nil, plain), ``},
		{"meta", appendViewMeta(nil, full), `{"ui":{"csp":{"connectDomains":["https://api.example.com"],"frameDomains":["https://f.example.com","https://g.example.com"]},"prefersBorder":true}}`},
		{"borderless", appendViewMeta(nil, borderless), `{"ui":{"prefersBorder":false}}`},
		{"csp only", appendViewMeta(nil, cspOnly), `{"ui":{"csp":{"resourceDomains":["https://*.cdn.example.com"],"baseUriDomains":["https://b.example.com"]}}}`},
		{"resource", appendViewResource(nil, plain, nil), `{"uri":"ui://a/b","name":"b","mimeType":"text/html;profile=mcp-app"}`},
		{"resource full", appendViewResource(nil, full, appendViewMeta(nil, full)),
			`{"uri":"ui://a/c","name":"c","title":"C","description":"The \"c\" view.","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"],"frameDomains":["https://f.example.com","https://g.example.com"]},"prefersBorder":true}}}`},
		{"contents", appendViewContents(nil, plain, nil), `{"uri":"ui://a/b","mimeType":"text/html;profile=mcp-app","text":"<p>x</p>"}`},
		{"read", respond(appendReadResult(nil, appendViewContents(nil, borderless, appendViewMeta(nil, borderless)))),
			`{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"ui://a/d","mimeType":"text/html;profile=mcp-app","text":"x","_meta":{"ui":{"prefersBorder":false}}}]}}`},
		{"list", respond(appendResourcesListEnd(append(appendResourcesListStart(nil), appendViewResource(nil, plain, nil)...), "n1")),
			`{"jsonrpc":"2.0","id":7,"result":{"resources":[{"uri":"ui://a/b","name":"b","mimeType":"text/html;profile=mcp-app"}],"nextCursor":"n1"}}`},
		{"templates", respond(appendResourceTemplatesResult(nil)), `{"jsonrpc":"2.0","id":7,"result":{"resourceTemplates":[]}}`},
		{"initialize with views", respond(appendInitializeResult(nil, &initializeResult{Version: "2025-11-25", ServerInfo: []byte(`{}`), Resources: true})),
			`{"jsonrpc":"2.0","id":7,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"resources":{},"tools":{"listChanged":false}},"serverInfo":{}}}`},
		{"discover with views", respond(appendDiscoverResult(nil, &discoverResult{Versions: []string{"2026-07-28"}, Views: true})),
			`{"jsonrpc":"2.0","id":7,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"logging":{},"resources":{},"tools":{"listChanged":false},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}}`},
		{"discover with views and tasks", respond(appendDiscoverResult(nil, &discoverResult{Versions: []string{"2026-07-28"}, Views: true, Tasks: true})),
			`{"jsonrpc":"2.0","id":7,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"logging":{},"resources":{},"tools":{"listChanged":false},"extensions":{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}}`},
	}
	for _, tc := range tests {
		if string(tc.got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
		if len(tc.got) > 0 && !json.Valid(tc.got) {
			t.Errorf("%s: not valid JSON: %s", tc.name, tc.got)
		}
	}
}
