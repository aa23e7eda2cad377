package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// modernHeaders are the HTTP headers of a 2026-07-28 request.
func modernHeaders(method, name string) http.Header {
	h := http.Header{"Mcp-Protocol-Version": {Version20260728}, "Mcp-Method": {method}}
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	return h
}

func countCall(meta string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{},"_meta":` + meta + `}}`
}

// TestMalformedMetaIs400: under a 2026-07-28 header every malformed _meta
// is refused alike: 400 with -32602, the tool not run.
func TestMalformedMetaIs400(t *testing.T) {
	const caps = `"io.modelcontextprotocol/clientCapabilities":{}`
	for name, meta := range map[string]string{
		"numeric protocolVersion":   `{"io.modelcontextprotocol/protocolVersion":20260728,` + caps + `}`,
		"null protocolVersion":      `{"io.modelcontextprotocol/protocolVersion":null,` + caps + `}`,
		"protocolVersion missing":   `{` + caps + `}`,
		"_meta not an object":       `"2026-07-28"`,
		"capabilities not object":   `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}`,
		"capabilities missing":      `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
		"log level not a level":     `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` + caps + `,"io.modelcontextprotocol/logLevel":"loud"}`,
		"progressToken not a token": `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` + caps + `,"progressToken":{}}`,
	} {
		s, c := newCounterServer(t, nil)
		ctx := ContextWithExchange(context.Background(), &Exchange{ProtocolVersion: Version20260728, Header: modernHeaders("tools/call", "count")})
		status, body := s.Handle(ctx, Caller{}, []byte(countCall(meta)))
		r := decodeResponse(t, body)
		if status != 400 || r.Error == nil || r.Error.Code != CodeInvalidParams || c.n.Load() != 0 {
			t.Errorf("%s: %d %s, want 400 -32602", name, status, body)
		}
	}
}

// TestHeaderAndMetaMustMatch: a 2026-07-28 header with _meta naming an
// older revision is a header mismatch, not a request served under the
// older rules.
func TestHeaderAndMetaMustMatch(t *testing.T) {
	s, c := newCounterServer(t, nil)
	ctx := ContextWithExchange(context.Background(), &Exchange{ProtocolVersion: Version20260728, Header: modernHeaders("tools/call", "count")})
	status, body := s.Handle(ctx, Caller{}, []byte(countCall(`{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}`)))
	if r := decodeResponse(t, body); status != 400 || r.Error == nil || r.Error.Code != CodeHeaderMismatch || c.n.Load() != 0 {
		t.Errorf("got %d %s, want 400 -32020", status, body)
	}
}

// TestDuplicateMcpHeaders: a repeated Mcp-* header is refused with -32020;
// which value counts would be a guess.
func TestDuplicateMcpHeaders(t *testing.T) {
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, hdr := range []string{"Mcp-Name", "Mcp-Method", "Mcp-Protocol-Version", "Mcp-Param-Region"} {
		s, c := newCounterServer(t, nil)
		h := modernHeaders("tools/call", "count")
		h.Add(hdr, h.Get(hdr))
		if hdr == "Mcp-Param-Region" {
			h[hdr] = []string{"eu", "us"}
		}
		ctx := ContextWithExchange(context.Background(), &Exchange{ProtocolVersion: Version20260728, Header: h})
		status, body := s.Handle(ctx, Caller{}, []byte(countCall(meta)))
		r := decodeResponse(t, body)
		if status != 400 || r.Error == nil || r.Error.Code != CodeHeaderMismatch || !strings.Contains(r.Error.Message, hdr) || c.n.Load() != 0 {
			t.Errorf("%s twice: %d %s, want 400 -32020 naming it", hdr, status, body)
		}
	}
}

// TestProgressTokenEchoedExactly: a progressToken comes back in
// notifications/progress byte for byte, numbers past 2^53 included.
func TestProgressTokenEchoedExactly(t *testing.T) {
	ts := NewToolSet()
	if err := ts.Register(NewRawTool(ToolInfo{Name: "p"}, func(_ context.Context, req *Request) (*Result, error) {
		return TextResult("done"), req.Progress(1, 2, "half")
	})); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	for _, tok := range []string{`9007199254740993`, `-12345678901234567890`, `1e2`, `"t\u00e9"`, `"x"`} {
		var got []json.RawMessage
		ex := &Exchange{Notify: func(method string, params json.RawMessage) error {
			var p struct {
				Token json.RawMessage `json:"progressToken"`
			}
			if err := json.Unmarshal(params, &p); err != nil {
				t.Fatal(err)
			}
			got = append(got, p.Token)
			return nil
		}}
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"p","_meta":{"progressToken":` + tok + `}}}`
		if status, resp := s.Handle(ContextWithExchange(context.Background(), ex), Caller{}, []byte(body)); status != 200 {
			t.Fatalf("%s: %d %s", tok, status, resp)
		}
		if len(got) != 1 || string(got[0]) != tok {
			t.Errorf("progressToken %s came back as %s", tok, got)
		}
	}
}

// TestUnknownToolMessages: an unknown tool is named cleanly, an empty or
// invalid name is said to be one, and nothing is echoed unbounded.
func TestUnknownToolMessages(t *testing.T) {
	s, _ := newCounterServer(t, nil)
	for name, want := range map[string]string{
		"nope":                     "Unknown tool: nope",
		"":                         "Unknown tool: the name is empty",
		"bad name":                 `Unknown tool: "bad name" is not a valid tool name`,
		strings.Repeat("x", 60000): `Unknown tool: "` + strings.Repeat("x", 128) + `"… is not a valid tool name`,
	} {
		raw, _ := json.Marshal(name)
		_, r, _ := callTool(t, s, context.Background(), `{"name":`+string(raw)+`}`)
		if r.Error == nil || r.Error.Code != CodeInvalidParams || r.Error.Message != want {
			t.Errorf("name of %d bytes: %+v, want %q", len(name), r.Error, want)
		}
	}
}
