package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// HTTPServer is an httptest.Server serving an MCP handler, for
// handler-level tests: headers, status codes, event streams,
// authentication.
type HTTPServer struct {
	*httptest.Server
	t testing.TB
}

// NewHTTPServer starts an httptest.Server for h and closes it when the test
// ends.
func NewHTTPServer(t testing.TB, h http.Handler) *HTTPServer {
	s := &HTTPServer{Server: httptest.NewServer(h), t: t}
	t.Cleanup(s.Close)
	return s
}

// MCPClient returns a Client that POSTs JSON-RPC to the server at path
// ("/" when empty) with the headers of the protocol revision:
// Content-Type, Accept (JSON and event streams), MCP-Protocol-Version and,
// from 2026-07-28 on, Mcp-Method and Mcp-Name, plus opts.Header. An event
// stream response is read to its response message; the notifications
// before it go to opts.Notify. opts may be nil; opts.Caller is not used.
func (s *HTTPServer) MCPClient(path string, opts *ClientOptions) *Client {
	if path == "" {
		path = "/"
	}
	url := s.URL + path
	hc := s.Client()
	c := newClient(s.t, opts)
	c.send = func(ctx context.Context, method, name string, body []byte) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header = c.header(method, name)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if ct == "text/event-stream" {
			msg, err := readStream(resp.Body, c.opts.Notify)
			return resp.StatusCode, msg, err
		}
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	return c
}

// readStream reads server-sent events until the JSON-RPC response, passing
// notifications to notify.
func readStream(r io.Reader, notify func(string, json.RawMessage)) ([]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var data []string
	flush := func() ([]byte, bool) {
		if len(data) == 0 {
			return nil, false
		}
		msg := []byte(strings.Join(data, "\n"))
		data = data[:0]
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(msg, &probe) != nil {
			return nil, false
		}
		switch {
		case probe.Method != "" && probe.ID == nil:
			if notify != nil {
				notify(probe.Method, probe.Params)
			}
		case probe.Method == "" && probe.ID != nil:
			return msg, true
		}
		return nil, false
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if msg, ok := flush(); ok {
				return msg, nil
			}
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if msg, ok := flush(); ok {
		return msg, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("mcptest: the event stream ended without a response")
}
