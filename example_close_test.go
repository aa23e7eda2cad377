package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
)

// Serve MCP from an http.Server with the limits an endpoint open to
// untrusted callers needs, and shut it down promptly although a client
// holds a subscriptions/listen stream: the Handler registered itself with
// the server on the first listen, so Shutdown ends the stream with its
// completion result, with no line from the host. Close does the same for
// every server of the Handler (and for servers other than net/http's).
func ExampleHandler_Close() {
	handler := mcp.NewHandler(mcp.NewServer(mcp.NewToolSet(), mcp.AllowAll(), nil), nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go srv.Serve(ln)

	// A client opens a listen stream and reads its acknowledgement.
	req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	events := bufio.NewScanner(resp.Body)
	for events.Scan() && !strings.Contains(events.Text(), "acknowledged") {
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Println("shutdown:", srv.Shutdown(ctx))
	for events.Scan() {
		if strings.Contains(events.Text(), `"resultType":"complete"`) {
			fmt.Println("the stream ended with its completion result")
		}
	}
	fmt.Println("close:", handler.Close())
	// Output:
	// shutdown: <nil>
	// the stream ended with its completion result
	// close: <nil>
}
