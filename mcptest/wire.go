package mcptest

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/embedmcp/mcp"
)

// Response is a decoded JSON-RPC response.
type Response struct {
	Status int             `json:"-"`  // the HTTP status (200 but for errors under 2026-07-28)
	ID     json.RawMessage `json:"id"` // the request's id, as sent back
	// Result holds the result, undecoded; Error the JSON-RPC error. One of
	// them is set.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *mcp.Error      `json:"error,omitempty"`
}

// ServerInfo is the serverInfo of an initialize result.
type ServerInfo struct {
	// Name, Title and Version are mcp.Options.Name, Title and Version.
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`        // the revision the server chose
	Capabilities    json.RawMessage `json:"capabilities"`           // the server's capabilities, as sent
	ServerInfo      ServerInfo      `json:"serverInfo"`             // who the server is
	Instructions    string          `json:"instructions,omitempty"` // guidance for the model, if any
}

// ListedTool is a tool as tools/list describes it.
type ListedTool struct {
	// Name, Title and Description are those of the tool's mcp.ToolInfo.
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	// InputSchema and OutputSchema are the JSON Schemas, as listed.
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations, Icons and Meta (_meta) are listed when the tool has
	// them.
	Annotations *mcp.ToolAnnotations `json:"annotations,omitempty"`
	Icons       []mcp.Icon           `json:"icons,omitempty"`
	Meta        map[string]any       `json:"_meta,omitempty"`
}

// wireResult is a CallToolResult on the wire.
type wireResult struct {
	Content           []mcp.Content   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              map[string]any  `json:"_meta,omitempty"`
}

// decodeResult decodes a tools/call result; StructuredContent is left as a
// json.RawMessage (nil when absent).
func decodeResult(raw json.RawMessage) (*mcp.Result, error) {
	var w wireResult
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("mcptest: decoding the tools/call result: %w", err)
	}
	if w.Content == nil {
		return nil, fmt.Errorf("mcptest: tools/call result has no content array: %s", shortText(raw))
	}
	r := &mcp.Result{Content: w.Content, IsError: w.IsError, Meta: w.Meta}
	if len(w.StructuredContent) > 0 {
		r.StructuredContent = w.StructuredContent
	}
	return r, nil
}

// decodeOut decodes structured content into out. A non-object Out is read
// from the {"result": value} wrapper that mcp.NewTool puts around
// non-object outputs.
func decodeOut(raw json.RawMessage, out any) error {
	t := reflect.TypeOf(out).Elem()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Interface:
	default:
		var wrapped map[string]json.RawMessage
		if json.Unmarshal(raw, &wrapped) == nil && len(wrapped) == 1 && wrapped["result"] != nil {
			raw = wrapped["result"]
		}
	}
	return json.Unmarshal(raw, out)
}

// ResultText returns the text of r's text content blocks, joined by newlines.
func ResultText(r *mcp.Result) string {
	s := ""
	for _, c := range r.Content {
		if c.Type != mcp.ContentText {
			continue
		}
		if s != "" {
			s += "\n"
		}
		s += c.Text
	}
	return s
}

func shortText(b []byte) string {
	const max = 300
	if len(b) <= max {
		return string(b)
	}
	return string(b[:max]) + "…"
}
