package lspapp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/sourcegraph/jsonrpc2"
	wsjsonrpc2 "github.com/sourcegraph/jsonrpc2/websocket"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

const manifestText = "service api\n" +
	"image registry.local/api:1.4\n" +
	"replicas 3\n" +
	"depends db\n" +
	"service db\n" +
	"port 5432\n" +
	"depends cache\n"

// editor is a client of the language server over a loopback WebSocket
// that collects the diagnostics the server publishes.
type editor struct {
	conn  *jsonrpc2.Conn
	diags chan protocol.PublishDiagnosticsParams
}

func (e *editor) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Method == string(protocol.ServerTextDocumentPublishDiagnostics) && req.Params != nil {
		var p protocol.PublishDiagnosticsParams
		if json.Unmarshal(*req.Params, &p) == nil {
			e.diags <- p
		}
	}
}

// connect starts the service and connects an editor to /lsp.
func connect(t *testing.T, header http.Header) (*editor, *httptest.Server) {
	t.Helper()
	_, _, h, err := NewService(nil, Config{MaxReplicas: 5}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/lsp", header)
	if err != nil {
		t.Fatal(err)
	}
	e := &editor{diags: make(chan protocol.PublishDiagnosticsParams, 8)}
	e.conn = jsonrpc2.NewConn(context.Background(), wsjsonrpc2.NewObjectStream(ws), e)
	t.Cleanup(func() { e.conn.Close() })
	return e, ts
}

// call sends a request and decodes its result.
func (e *editor) call(t *testing.T, method string, params, result any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.conn.Call(ctx, method, params, result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// next waits for the next published diagnostics.
func (e *editor) next(t *testing.T) []protocol.Diagnostic {
	t.Helper()
	select {
	case p := <-e.diags:
		return p.Diagnostics
	case <-time.After(5 * time.Second):
		t.Fatal("no diagnostics published")
		return nil
	}
}

func TestEditorSession(t *testing.T) {
	e, _ := connect(t, nil)
	var init protocol.InitializeResult
	e.call(t, "initialize", protocol.InitializeParams{}, &init)
	if init.ServerInfo == nil || init.ServerInfo.Name != "deploy-manifest-ls" || init.Capabilities.CompletionProvider == nil {
		t.Fatalf("initialize: %+v", init)
	}
	ctx := context.Background()
	uri := protocol.DocumentUri("file:///srv/shop.deploy")
	e.conn.Notify(ctx, "textDocument/didOpen", protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "deploy", Version: 1, Text: manifestText}})
	diags := e.next(t)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "no service cache") || diags[0].Range.Start.Line != 6 {
		t.Fatalf("diagnostics after open: %+v", diags)
	}
	// Replace "3" on line 2 with "9", over the limit of 5.
	e.conn.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": protocol.Range{Start: protocol.Position{Line: 2, Character: 9},
			End: protocol.Position{Line: 2, Character: 10}}, "text": "9"}}})
	if diags := e.next(t); len(diags) != 2 || !strings.Contains(diags[0].Message, "replicas must be a number from 1 to 5") {
		t.Fatalf("diagnostics after the change: %+v", diags)
	}
	var loc protocol.Location
	e.call(t, "textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: 3, Character: 9}}}, &loc)
	if loc.Range.Start.Line != 4 || loc.Range.Start.Character != 8 {
		t.Errorf("definition of db: %+v", loc)
	}
	var items []protocol.CompletionItem
	e.call(t, "textDocument/completion", protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: 1, Character: 0}}}, &items)
	if len(items) != len(keywords) {
		t.Errorf("completion at a line start: %d items, want %d", len(items), len(keywords))
	}
	var syms []protocol.DocumentSymbol
	e.call(t, "textDocument/documentSymbol", protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}, &syms)
	if len(syms) != 2 || syms[0].Name != "api" || syms[0].Range.End.Line != 3 || syms[1].Name != "db" {
		t.Errorf("symbols: %+v", syms)
	}
	var hover protocol.Hover
	e.call(t, "textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: 5, Character: 1}}}, &hover)
	if b, _ := json.Marshal(hover.Contents); !strings.Contains(string(b), "TCP port") {
		t.Errorf("hover on port: %s", b)
	}
}

func TestForeignOriginIsRefused(t *testing.T) {
	_, _, h, err := NewService(nil, Config{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/lsp", http.Header{"Origin": {"https://evil.example"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %v %v", resp, err)
	}
}
