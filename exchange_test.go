package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestExchangeTransport: the transports say who they are in the Exchange a
// Middleware finds in its context: NewHandler names HTTP and hands over the
// request (protocol, remote address, headers), ServeStdio names stdio and
// has no HTTP request.
func TestExchangeTransport(t *testing.T) {
	type seen struct {
		transport, proto, remote, traceparent string
		hasRequest                            bool
	}
	got := make(chan seen, 1)
	mw := func(ctx context.Context, msg *mcp.Message, next mcp.MessageHandler) mcp.Outcome {
		var s seen
		if ex := mcp.ExchangeFromContext(ctx); ex != nil {
			s.transport = ex.Transport
			if r := ex.HTTPRequest; r != nil {
				s.hasRequest, s.proto, s.remote, s.traceparent = true, r.Proto, r.RemoteAddr, r.Header.Get("Traceparent")
			}
		}
		got <- s
		return next(ctx, msg)
	}
	server := mcp.NewServer(nil, mcp.AllowAll(), &mcp.Options{Middleware: []mcp.Middleware{mw}})

	ts := httptest.NewServer(mcp.NewHandler(server, nil))
	defer ts.Close()
	req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if s := <-got; s.transport != mcp.TransportHTTP || !s.hasRequest || s.proto != "HTTP/1.1" ||
		!strings.HasPrefix(s.remote, "127.0.0.1:") || s.traceparent != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Errorf("over HTTP: %+v", s)
	}

	var out strings.Builder
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	if err := mcp.ServeStdio(context.Background(), server, mcp.Caller{}, in, &out, nil); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s.transport != mcp.TransportStdio || s.hasRequest {
		t.Errorf("over stdio: %+v", s)
	}
}
