package mcptest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/embedmcp/mcp"
)

// ClientOptions configure a Client. The zero value is usable.
type ClientOptions struct {
	// Caller is who calls, for a Client over a Protocol. An HTTP client's
	// caller is whoever the handler authenticates (see Header).
	Caller mcp.Caller
	// ProtocolVersion is the revision requests are made under: the
	// MCP-Protocol-Version header, or the Exchange of an in-process client.
	// Default mcp.Version20251125. From 2026-07-28 on, requests also carry
	// the _meta keys and Mcp-Method / Mcp-Name headers that revision needs.
	ProtocolVersion string
	// Header holds extra HTTP request headers (Authorization, Origin...).
	// An in-process client passes them in the Exchange.
	Header http.Header
	// Notify, when set, receives the notifications the server sends while
	// a request runs (progress, log messages).
	Notify func(method string, params json.RawMessage)
	// Capabilities are the client's capabilities (elicitation, the
	// extensions it declares), sent in initialize and, from 2026-07-28
	// on, in every request's _meta. Nil: none.
	Capabilities map[string]any
}

// Client is an MCP client for tests: in-process over a Protocol
// (NewClient) or over HTTP (HTTPServer.MCPClient). Its methods use the test's
// context and are safe for concurrent use.
type Client struct {
	ctx    context.Context
	opts   ClientOptions
	send   func(ctx context.Context, method, name string, body []byte) (int, []byte, error)
	nextID atomic.Int64
}

// NewClient returns a Client that calls p.Handle directly, with
// opts.Caller and an mcp.Exchange for opts.ProtocolVersion. opts may be nil.
// Its requests use t's context; t may be nil outside tests (in an
// Example), and then they use context.Background().
func NewClient(t testing.TB, p mcp.Protocol, opts *ClientOptions) *Client {
	c := newClient(t, opts)
	c.send = func(ctx context.Context, method, name string, body []byte) (int, []byte, error) {
		ex := &mcp.Exchange{Header: c.header(method, name)}
		if method != "initialize" {
			ex.ProtocolVersion = c.opts.ProtocolVersion
		}
		if c.opts.Notify != nil {
			ex.Notify = func(m string, params json.RawMessage) error {
				c.opts.Notify(m, params)
				return nil
			}
		}
		status, resp := p.Handle(mcp.ContextWithExchange(ctx, ex), c.opts.Caller, body)
		return status, resp, nil
	}
	return c
}

func newClient(t testing.TB, opts *ClientOptions) *Client {
	c := &Client{ctx: context.Background()}
	if t != nil {
		c.ctx = t.Context()
	}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.ProtocolVersion == "" {
		c.opts.ProtocolVersion = mcp.Version20251125
	}
	return c
}

// stateless reports whether the client speaks the stateless revision
// (2026-07-28 or later): discover instead of initialize, and _meta on
// every request.
func (c *Client) stateless() bool { return c.opts.ProtocolVersion >= mcp.Version20260728 }

// header returns the HTTP headers of a request.
func (c *Client) header(method, name string) http.Header {
	h := http.Header{}
	for k, v := range c.opts.Header {
		h[k] = append([]string(nil), v...)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if method != "initialize" {
		h.Set("MCP-Protocol-Version", c.opts.ProtocolVersion)
	}
	if c.stateless() && method != "" {
		h.Set("Mcp-Method", method)
		if name != "" {
			h.Set("Mcp-Name", headerSafe(name))
		}
	}
	return h
}

// headerSafe returns v as an HTTP header may carry it: as it is when it is
// visible ASCII, else in the =?base64?...?= form of 2026-07-28.
func headerSafe(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7E || (i == 0 || i == len(v)-1) && v[i] == ' ' {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
		}
	}
	return v
}

// Raw sends body as it is and returns the status and the response body (the
// response message of an event stream). It is for tests of malformed or
// unusual requests; failures to send are reported as status 0 and the
// error's text.
func (c *Client) Raw(body string) (status int, response []byte) {
	var probe struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal([]byte(body), &probe) // only for the headers
	status, resp, err := c.send(c.ctx, probe.Method, probe.Params.Name, []byte(body))
	if err != nil {
		return 0, []byte(err.Error())
	}
	return status, resp
}

// Do sends one request and decodes the response. The error reports a
// failure to get a JSON-RPC response (not JSON, wrong id, a status other
// than 200 without a JSON-RPC error); a JSON-RPC error is in the Response,
// with the HTTP status that carried it (from 2026-07-28 on, errors are
// also told by the status).
func (c *Client) Do(method string, params any) (*Response, error) {
	body, id, name, err := c.encode(method, params)
	if err != nil {
		return nil, err
	}
	status, resp, err := c.send(c.ctx, method, name, body)
	if err != nil {
		return nil, err
	}
	r := Response{Status: status}
	if err := json.Unmarshal(resp, &r); err != nil || (status != http.StatusOK && r.Error == nil) {
		if status != http.StatusOK {
			return nil, fmt.Errorf("mcptest: %s: status %d, body %s", method, status, shortText(resp))
		}
		return nil, fmt.Errorf("mcptest: %s: response is not a JSON-RPC response: %v: %s", method, err, shortText(resp))
	}
	if string(r.ID) != strconv.FormatInt(id, 10) {
		return nil, fmt.Errorf("mcptest: %s: response id %s, want %d", method, r.ID, id)
	}
	if r.Error == nil && r.Result == nil {
		return nil, fmt.Errorf("mcptest: %s: response has neither result nor error: %s", method, shortText(resp))
	}
	return &r, nil
}

// encode builds a request body, adding the _meta keys of 2026-07-28, and
// returns the name its Mcp-Name header carries (a tool's or a task's).
func (c *Client) encode(method string, params any) (body []byte, id int64, name string, err error) {
	id = c.nextID.Add(1)
	var p map[string]json.RawMessage
	if params != nil {
		raw, err := encodeArgs(params)
		if err != nil {
			return nil, 0, "", fmt.Errorf("mcptest: encoding %s params: %w", method, err)
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, 0, "", fmt.Errorf("mcptest: %s params must be an object: %w", method, err)
		}
	}
	switch method {
	case "tools/call":
		_ = json.Unmarshal(p["name"], &name)
	case "tasks/get", "tasks/update", "tasks/cancel":
		_ = json.Unmarshal(p["taskId"], &name)
	}
	if c.stateless() {
		if p == nil {
			p = map[string]json.RawMessage{}
		}
		meta := map[string]json.RawMessage{}
		if m, ok := p["_meta"]; ok {
			if err := json.Unmarshal(m, &meta); err != nil {
				return nil, 0, "", fmt.Errorf("mcptest: %s params._meta must be an object: %w", method, err)
			}
		}
		setDefault(meta, "io.modelcontextprotocol/protocolVersion", strconv.Quote(c.opts.ProtocolVersion))
		setDefault(meta, "io.modelcontextprotocol/clientInfo", `{"name":"mcptest","version":"0.0.0"}`)
		caps, err := json.Marshal(c.capabilities())
		if err != nil {
			return nil, 0, "", fmt.Errorf("mcptest: encoding ClientOptions.Capabilities: %w", err)
		}
		setDefault(meta, "io.modelcontextprotocol/clientCapabilities", string(caps))
		p["_meta"], _ = json.Marshal(meta)
	}
	msg := struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      int64                      `json:"id"`
		Method  string                     `json:"method"`
		Params  map[string]json.RawMessage `json:"params,omitempty"`
	}{"2.0", id, method, p}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, 0, "", fmt.Errorf("mcptest: encoding %s: %w", method, err)
	}
	return bytes.TrimSpace(buf.Bytes()), id, name, nil
}

// capabilities returns ClientOptions.Capabilities, never nil.
func (c *Client) capabilities() map[string]any {
	if c.opts.Capabilities == nil {
		return map[string]any{}
	}
	return c.opts.Capabilities
}

func setDefault(m map[string]json.RawMessage, k, v string) {
	if _, ok := m[k]; !ok {
		m[k] = json.RawMessage(v)
	}
}

// result sends a request and returns its result, or the JSON-RPC error as
// an *mcp.Error.
func (c *Client) result(method string, params any) (json.RawMessage, error) {
	r, err := c.Do(method, params)
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Result, nil
}

// Initialize performs the initialize handshake of the revisions before
// 2026-07-28 (initialize, then notifications/initialized). A JSON-RPC error
// is returned as an *mcp.Error.
func (c *Client) Initialize() (*InitializeResult, error) {
	raw, err := c.result("initialize", map[string]any{
		"protocolVersion": c.opts.ProtocolVersion,
		"capabilities":    c.capabilities(),
		"clientInfo":      map[string]any{"name": "mcptest", "version": "0.0.0"},
	})
	if err != nil {
		return nil, err
	}
	var r InitializeResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("mcptest: decoding the initialize result: %w", err)
	}
	status, resp, err := c.send(c.ctx, "notifications/initialized", "", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return nil, err
	}
	if status != http.StatusAccepted {
		return nil, fmt.Errorf("mcptest: notifications/initialized: status %d, want 202: %s", status, shortText(resp))
	}
	return &r, nil
}

// ListTools returns every tool tools/list shows the client, following
// nextCursor from page to page.
func (c *Client) ListTools() ([]ListedTool, error) {
	var all []ListedTool
	params := map[string]any{}
	for pages := 0; ; pages++ {
		if pages > 10000 {
			return nil, fmt.Errorf("mcptest: tools/list: more than 10000 pages; is nextCursor stuck?")
		}
		raw, err := c.result("tools/list", params)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools      []ListedTool `json:"tools"`
			NextCursor string       `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("mcptest: decoding the tools/list result: %w", err)
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" {
			return all, nil
		}
		params = map[string]any{"cursor": page.NextCursor}
	}
}

// CallTool calls the named tool with args (encoded with encoding/json; raw
// JSON is used as is; nil means {}). The result's StructuredContent, when
// present, is a json.RawMessage. A JSON-RPC error is returned as an
// *mcp.Error; an isError result is a result, not an error.
//
// The error keeps what the wire says: errors.Is(err, mcp.ErrUnknownTool)
// holds for an unknown tool or one the caller may not use, and
// errors.Is(err, mcp.ErrInvalidArguments) for arguments the server
// rejected (a JSON-RPC error before revision 2025-11-25; from it on they
// are an isError result), as the data of the server's error says (see
// mcp.ErrorData); the message is never parsed.
func (c *Client) CallTool(name string, args any) (*mcp.Result, error) {
	raw, err := encodeArgs(args)
	if err != nil {
		return nil, fmt.Errorf("mcptest: encoding the arguments of %s: %w", name, err)
	}
	res, err := c.result("tools/call", map[string]any{"name": name, "arguments": raw})
	if err != nil {
		return nil, err
	}
	return decodeResult(res)
}

// Call calls the named tool and decodes its structured content into an Out,
// failing t when the call fails, returns an isError result or has no
// structured content. A non-object Out (a slice, a number) is read from
// the {"result": value} wrapper mcp.NewTool uses for such outputs.
func Call[Out any](t testing.TB, c *Client, name string, args any) Out {
	t.Helper()
	var out Out
	res, err := c.CallTool(name, args)
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
		return out
	}
	if res.IsError {
		t.Fatalf("calling %s: the tool failed: %s", name, ResultText(res))
		return out
	}
	raw, _ := res.StructuredContent.(json.RawMessage)
	if len(raw) == 0 {
		t.Fatalf("calling %s: the result has no structuredContent; content: %s", name, ResultText(res))
		return out
	}
	if err := decodeOut(raw, &out); err != nil {
		t.Fatalf("calling %s: decoding structuredContent into %T: %v\n%s", name, out, err, shortText(raw))
	}
	return out
}
