// Package lspapp is a real service of the search evaluation: a language
// server for a platform team's deployment manifests (.deploy files), which
// the team's web editor reaches over a WebSocket (tliron/glsp,
// github.com/tliron/glsp, its LSP 3.16 protocol types and server, with
// sourcegraph/jsonrpc2, gorilla/websocket and tliron/commonlog; nobody here
// wrote them). It keeps the open documents, applies the editor's
// incremental changes, and answers with diagnostics (unknown keywords,
// settings outside a service, bad numbers, dependencies on services the
// file does not declare, services declared twice), keyword and service
// name completion, hovers that explain a keyword, go to definition from a
// dependency to its service, and the outline of the file's services. At
// /mcp, the service serves the code tools and the tool enquiry over a
// source snapshot of the service and its dependencies, as an adopter would
// serve them. Command lspserver runs it.
//
// A manifest declares services, each followed by its settings:
//
//	service api
//	image registry.local/api:1.4
//	replicas 3
//	port 8080
//	env LOG_LEVEL=debug
//	depends db
package lspapp

import (
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/enquiry"
	"github.com/embedmcp/mcp/searcheval/evalcmd"
	"github.com/gorilla/websocket"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	glspserver "github.com/tliron/glsp/server"
)

// Grants are what the service's callers may use.
var Grants = []string{"diagnostics.*"}

// Config configures the language server.
type Config struct {
	MaxReplicas   int      // replicas a service may ask for at most; 0 for 50
	AllowedHosts  []string // origins the WebSocket accepts besides same-host; none for same-host only
	MaxDocuments  int      // documents open at once per server; 0 for 200
	DebugProtocol bool     // log every JSON-RPC message
}

// keywords are the manifest's keywords with what a hover says of them.
var keywords = map[string]string{
	"service":  "`service NAME` starts a service; the settings below it belong to it.",
	"image":    "`image REF` is the container image the service runs.",
	"replicas": "`replicas N` is how many copies of the service run (1 to the server's maximum).",
	"port":     "`port N` is the TCP port the service listens on (1 to 65535).",
	"env":      "`env KEY=VALUE` sets an environment variable of the service.",
	"depends":  "`depends NAME` starts the service after the service NAME of the same file.",
}

// Server is the running language server: its documents and handler.
type Server struct {
	cfg     Config
	logger  *slog.Logger
	handler protocol.Handler
	lsp     *glspserver.Server
	up      websocket.Upgrader

	mu   sync.Mutex
	docs map[protocol.DocumentUri]string
}

// NewService returns the MCP server over snapshot (a directory written by
// mcpsnapshot; nil for none), the language server and the HTTP handler
// that serves the language server at /lsp and MCP at /mcp.
func NewService(snapshot fs.FS, cfg Config, logger *slog.Logger) (*mcp.Server, *Server, http.Handler, error) {
	ts := mcp.NewToolSet()
	catalog := codetools.NewCatalog(evalcmd.CatalogOptions(snapshot, "lspserver"))
	if err := codetools.Register(ts, catalog); err != nil {
		return nil, nil, nil, err
	}
	if err := enquiry.Register(ts, nil); err != nil {
		return nil, nil, nil, err
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "lspserver", Version: "0.1.0", Logger: logger})
	s := New(cfg, logger)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, &mcp.HandlerOptions{
		Authenticator: mcp.Anonymous(mcp.Caller{Principal: "local", Grants: Grants}), Logger: logger}))
	mux.HandleFunc("GET /lsp", s.serveWebSocket)
	return srv, s, mux, nil
}

// New returns a language server with the defaults filled in.
func New(cfg Config, logger *slog.Logger) *Server {
	if cfg.MaxReplicas <= 0 {
		cfg.MaxReplicas = 50
	}
	if cfg.MaxDocuments <= 0 {
		cfg.MaxDocuments = 200
	}
	s := &Server{cfg: cfg, logger: logger, docs: map[protocol.DocumentUri]string{}}
	s.handler = protocol.Handler{
		Initialize:                 s.initialize,
		Initialized:                func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:                   func(*glsp.Context) error { return nil },
		SetTrace:                   func(_ *glsp.Context, p *protocol.SetTraceParams) error { protocol.SetTraceValue(p.Value); return nil },
		TextDocumentDidOpen:        s.didOpen,
		TextDocumentDidChange:      s.didChange,
		TextDocumentDidClose:       s.didClose,
		TextDocumentCompletion:     s.completion,
		TextDocumentHover:          s.hover,
		TextDocumentDefinition:     s.definition,
		TextDocumentDocumentSymbol: s.documentSymbol,
	}
	s.lsp = glspserver.NewServer(&s.handler, "lspserver", cfg.DebugProtocol)
	s.up = websocket.Upgrader{CheckOrigin: s.checkOrigin}
	return s
}

// checkOrigin accepts the editor's page from this host or from a
// configured origin host, so that another site cannot drive the server
// from a visitor's browser.
func (s *Server) checkOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	host := strings.TrimPrefix(strings.TrimPrefix(origin, "https://"), "http://")
	if strings.EqualFold(host, r.Host) {
		return true
	}
	for _, h := range s.cfg.AllowedHosts {
		if strings.EqualFold(host, h) {
			return true
		}
	}
	return false
}

// serveWebSocket upgrades the editor's request and serves the language
// server on the socket until it closes.
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	conn, err := s.up.Upgrade(w, r, nil)
	if err != nil {
		s.logger.Warn("lsp upgrade refused", "remote", r.RemoteAddr, "origin", r.Header.Get("Origin"), "error", err)
		return
	}
	defer conn.Close()
	s.logger.Info("lsp editor connected", "remote", r.RemoteAddr)
	s.lsp.ServeWebSocket(conn)
	s.logger.Info("lsp editor disconnected", "remote", r.RemoteAddr)
}

// initialize answers the capabilities that the handler's functions imply,
// with incremental document sync.
func (s *Server) initialize(_ *glsp.Context, p *protocol.InitializeParams) (any, error) {
	caps := s.handler.CreateServerCapabilities()
	caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{" "}}
	version := "0.1.0"
	name := "unknown editor"
	if p.ClientInfo != nil {
		name = p.ClientInfo.Name
	}
	s.logger.Info("lsp initialize", "client", name)
	return protocol.InitializeResult{Capabilities: caps,
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "deploy-manifest-ls", Version: &version}}, nil
}

// didOpen keeps the document and publishes its diagnostics.
func (s *Server) didOpen(ctx *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	s.mu.Lock()
	if _, ok := s.docs[p.TextDocument.URI]; !ok && len(s.docs) >= s.cfg.MaxDocuments {
		s.mu.Unlock()
		return fmt.Errorf("more than %d documents open", s.cfg.MaxDocuments)
	}
	s.docs[p.TextDocument.URI] = p.TextDocument.Text
	s.mu.Unlock()
	s.publish(ctx, p.TextDocument.URI, p.TextDocument.Text)
	return nil
}

// didChange applies the editor's changes, ranges or whole texts, in order,
// and publishes the new diagnostics.
func (s *Server) didChange(ctx *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	text, ok := s.docs[p.TextDocument.URI]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("change to %s, which is not open", p.TextDocument.URI)
	}
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEvent:
			start, end := c.Range.IndexesIn(text)
			text = text[:start] + c.Text + text[end:]
		case protocol.TextDocumentContentChangeEventWhole:
			text = c.Text
		}
	}
	s.docs[p.TextDocument.URI] = text
	s.mu.Unlock()
	s.publish(ctx, p.TextDocument.URI, text)
	return nil
}

// didClose forgets the document and clears its diagnostics.
func (s *Server) didClose(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	delete(s.docs, p.TextDocument.URI)
	s.mu.Unlock()
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
	return nil
}

// text is the open document's text.
func (s *Server) text(uri protocol.DocumentUri) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.docs[uri]
	return t, ok
}

// publish sends the document's diagnostics to the editor.
func (s *Server) publish(ctx *glsp.Context, uri protocol.DocumentUri, text string) {
	diags := s.check(parse(text))
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: diags})
}

// line is one non-blank line of a manifest: its keyword and argument.
type line struct {
	n       int    // 0-based line number
	keyword string // first word
	arg     string // the rest, trimmed
	argCol  int    // column of the argument
}

// manifest is a parsed document.
type manifest struct {
	lines    []line
	services map[string]line // the service lines by name (the first of each)
}

// parse splits the text into lines, skipping blank lines and # comments.
func parse(text string) *manifest {
	m := &manifest{services: map[string]line{}}
	for i, raw := range strings.Split(text, "\n") {
		s := strings.TrimRight(raw, "\r")
		trimmed := strings.TrimSpace(s)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		kw, arg, _ := strings.Cut(trimmed, " ")
		arg = strings.TrimSpace(arg)
		l := line{n: i, keyword: kw, arg: arg, argCol: strings.Index(s, arg)}
		if arg == "" {
			l.argCol = len(s)
		}
		m.lines = append(m.lines, l)
		if kw == "service" && arg != "" {
			if _, dup := m.services[arg]; !dup {
				m.services[arg] = l
			}
		}
	}
	return m
}

// check finds the manifest's problems.
func (s *Server) check(m *manifest) []protocol.Diagnostic {
	diags := []protocol.Diagnostic{}
	report := func(l line, sev protocol.DiagnosticSeverity, format string, args ...any) {
		source := "deploy"
		diags = append(diags, protocol.Diagnostic{Severity: &sev, Source: &source, Message: fmt.Sprintf(format, args...),
			Range: protocol.Range{Start: protocol.Position{Line: protocol.UInteger(l.n)},
				End: protocol.Position{Line: protocol.UInteger(l.n), Character: protocol.UInteger(l.argCol + len(l.arg))}}})
	}
	inService := false
	for _, l := range m.lines {
		if _, ok := keywords[l.keyword]; !ok {
			report(l, protocol.DiagnosticSeverityError, "unknown keyword %q", l.keyword)
			continue
		}
		if l.arg == "" {
			report(l, protocol.DiagnosticSeverityError, "%s needs a value", l.keyword)
			continue
		}
		switch l.keyword {
		case "service":
			inService = true
			if first := m.services[l.arg]; first.n != l.n {
				report(l, protocol.DiagnosticSeverityError, "service %s is already declared on line %d", l.arg, first.n+1)
			}
			continue
		case "replicas":
			if n, err := strconv.Atoi(l.arg); err != nil || n < 1 || n > s.cfg.MaxReplicas {
				report(l, protocol.DiagnosticSeverityError, "replicas must be a number from 1 to %d", s.cfg.MaxReplicas)
			}
		case "port":
			if n, err := strconv.Atoi(l.arg); err != nil || n < 1 || n > 65535 {
				report(l, protocol.DiagnosticSeverityError, "port must be a number from 1 to 65535")
			}
		case "env":
			if k, _, ok := strings.Cut(l.arg, "="); !ok || k == "" {
				report(l, protocol.DiagnosticSeverityError, "env wants KEY=VALUE")
			}
		case "depends":
			if _, ok := m.services[l.arg]; !ok {
				report(l, protocol.DiagnosticSeverityWarning, "no service %s in this file", l.arg)
			}
		}
		if !inService {
			report(l, protocol.DiagnosticSeverityError, "%s before any service", l.keyword)
		}
	}
	return diags
}

// completion offers the keywords at the start of a line and the file's
// service names after "depends ".
func (s *Server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	text, ok := s.text(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	lines := strings.Split(text, "\n")
	if int(p.Position.Line) >= len(lines) {
		return []protocol.CompletionItem{}, nil
	}
	cur := lines[p.Position.Line]
	before := cur[:min(len(cur), int(p.Position.Character))]
	var items []protocol.CompletionItem
	if rest, ok := strings.CutPrefix(strings.TrimLeft(before, " \t"), "depends "); ok {
		kind := protocol.CompletionItemKindModule
		for name := range parse(text).services {
			if strings.HasPrefix(name, rest) {
				items = append(items, protocol.CompletionItem{Label: name, Kind: &kind})
			}
		}
	} else if !strings.Contains(strings.TrimSpace(before), " ") {
		kind := protocol.CompletionItemKindKeyword
		for kw, doc := range keywords {
			if strings.HasPrefix(kw, strings.TrimSpace(before)) {
				items = append(items, protocol.CompletionItem{Label: kw, Kind: &kind,
					Documentation: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}})
			}
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Label < items[j].Label })
	return items, nil
}

// at returns the parsed line under the position.
func at(m *manifest, pos protocol.Position) (line, bool) {
	for _, l := range m.lines {
		if l.n == int(pos.Line) {
			return l, true
		}
	}
	return line{}, false
}

// hover explains the keyword under the cursor.
func (s *Server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	text, ok := s.text(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	l, ok := at(parse(text), p.Position)
	if !ok || int(p.Position.Character) > len(l.keyword) {
		return nil, nil
	}
	doc, ok := keywords[l.keyword]
	if !ok {
		return nil, nil
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}}, nil
}

// definition goes from a dependency to the line that declares its service.
func (s *Server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	text, ok := s.text(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	m := parse(text)
	l, ok := at(m, p.Position)
	if !ok || l.keyword != "depends" {
		return nil, nil
	}
	target, ok := m.services[l.arg]
	if !ok {
		return nil, nil
	}
	return protocol.Location{URI: p.TextDocument.URI, Range: protocol.Range{
		Start: protocol.Position{Line: protocol.UInteger(target.n), Character: protocol.UInteger(target.argCol)},
		End:   protocol.Position{Line: protocol.UInteger(target.n), Character: protocol.UInteger(target.argCol + len(target.arg))}}}, nil
}

// documentSymbol lists the file's services for the editor's outline, each
// spanning its settings.
func (s *Server) documentSymbol(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	text, ok := s.text(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	m := parse(text)
	syms := []protocol.DocumentSymbol{}
	for i, l := range m.lines {
		if l.keyword != "service" || l.arg == "" {
			continue
		}
		last := l
		for _, next := range m.lines[i+1:] {
			if next.keyword == "service" {
				break
			}
			last = next
		}
		sel := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(l.n), Character: protocol.UInteger(l.argCol)},
			End: protocol.Position{Line: protocol.UInteger(l.n), Character: protocol.UInteger(l.argCol + len(l.arg))}}
		syms = append(syms, protocol.DocumentSymbol{Name: l.arg, Kind: protocol.SymbolKindModule, SelectionRange: sel,
			Range: protocol.Range{Start: protocol.Position{Line: protocol.UInteger(l.n)},
				End: protocol.Position{Line: protocol.UInteger(last.n), Character: protocol.UInteger(last.argCol + len(last.arg))}}})
	}
	return syms, nil
}
