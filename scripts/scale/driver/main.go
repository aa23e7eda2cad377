// Command driver drives an MCP endpoint (the three hello replicas behind
// nginx, in scripts/scale/run.sh) with the official go-sdk client, the
// mark3labs/mcp-go client and a burst of mixed raw requests, and exits
// non-zero unless every request got the answer it should.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mg "github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8099/mcp", "MCP endpoint")
	calls := flag.Int("calls", 50, "echo calls per client library")
	burst := flag.Int("burst", 3000, "raw requests in the burst")
	workers := flag.Int("workers", 16, "concurrent raw clients")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	failed := false
	for _, step := range []struct {
		name string
		run  func() (int, error)
	}{
		{"go-sdk", func() (int, error) { return goSDK(ctx, *url, *calls) }},
		{"mcp-go", func() (int, error) { return mcpGo(ctx, *url, *calls) }},
		{"raw burst", func() (int, error) { return rawBurst(ctx, *url, *burst, *workers) }},
	} {
		start := time.Now()
		n, err := step.run()
		if err != nil {
			failed = true
			fmt.Printf("FAIL %-9s after %d requests: %v\n", step.name, n, err)
			continue
		}
		fmt.Printf("ok   %-9s %5d requests in %v\n", step.name, n, time.Since(start).Round(time.Millisecond))
	}
	if failed {
		os.Exit(1)
	}
}

// goSDK connects with the official SDK (it negotiates the newest revision
// it knows), lists the tools, calls echo many times and countdown once
// (progress notifications streamed through the proxy).
func goSDK(ctx context.Context, url string, calls int) (int, error) {
	n := 0
	c := sdk.NewClient(&sdk.Implementation{Name: "scale-driver", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		return n, fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	n++
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		return n, fmt.Errorf("list: %w", err)
	}
	n++
	var names []string
	for _, t := range lt.Tools {
		names = append(names, t.Name)
	}
	if strings.Join(names, ",") != "add,countdown,echo,report" {
		return n, fmt.Errorf("tools = %v", names)
	}
	for i := 0; i < calls; i++ {
		text := fmt.Sprintf("sdk-%d", i)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
		if err != nil || res.IsError {
			return n, fmt.Errorf("echo %d: %v %+v", i, err, res)
		}
		if tc, ok := res.Content[0].(*sdk.TextContent); !ok || !strings.Contains(tc.Text, text) {
			return n, fmt.Errorf("echo %d: content %+v", i, res.Content)
		}
		n++
	}
	var progress atomic.Int64
	c2 := sdk.NewClient(&sdk.Implementation{Name: "scale-driver", Version: "0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	cs2, err := c2.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		return n, fmt.Errorf("connect: %w", err)
	}
	defer cs2.Close()
	params := &sdk.CallToolParams{Name: "countdown", Arguments: map[string]any{"from": 3}}
	params.SetProgressToken("scale")
	res, err := cs2.CallTool(ctx, params)
	if err != nil || res.IsError {
		return n, fmt.Errorf("countdown: %v %+v", err, res)
	}
	n++
	if progress.Load() != 3 {
		return n, fmt.Errorf("countdown: %d progress notifications, want 3", progress.Load())
	}
	return n, nil
}

// mcpGo does the same with mark3labs/mcp-go (a 2025 revision client).
func mcpGo(ctx context.Context, url string, calls int) (int, error) {
	n := 0
	tr, err := transport.NewStreamableHTTP(url)
	if err != nil {
		return n, err
	}
	c := mcpclient.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		return n, err
	}
	defer c.Close()
	if _, err := c.Initialize(ctx, mg.InitializeRequest{Params: mg.InitializeParams{
		ProtocolVersion: mg.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mg.Implementation{Name: "scale-driver", Version: "0"}}}); err != nil {
		return n, fmt.Errorf("initialize: %w", err)
	}
	n++
	lt, err := c.ListTools(ctx, mg.ListToolsRequest{})
	if err != nil {
		return n, fmt.Errorf("list: %w", err)
	}
	n++
	if len(lt.Tools) != 4 {
		return n, fmt.Errorf("tools = %+v", lt.Tools)
	}
	for i := 0; i < calls; i++ {
		text := fmt.Sprintf("mcpgo-%d", i)
		res, err := c.CallTool(ctx, mg.CallToolRequest{Params: mg.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}}})
		if err != nil || res.IsError {
			return n, fmt.Errorf("echo %d: %v %+v", i, err, res)
		}
		if tc, ok := res.Content[0].(mg.TextContent); !ok || !strings.Contains(tc.Text, text) {
			return n, fmt.Errorf("echo %d: content %+v", i, res.Content)
		}
		n++
	}
	res, err := c.CallTool(ctx, mg.CallToolRequest{Params: mg.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 40}}})
	if err != nil || res.IsError || !strings.Contains(fmt.Sprint(res.StructuredContent), "42") {
		return n, fmt.Errorf("add: %v %+v", err, res)
	}
	return n + 1, nil
}

// rawKind is one kind of raw request of the burst and what must come back.
type rawKind struct {
	name, body, accept string
	headers            map[string]string
	status             int
	want               string // in the body ("" for an empty body)
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`

var rawMix = []rawKind{
	{"echo", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"burst"}}}`, "", nil, 200, `{\"text\":\"burst\"}`},
	{"add", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, "", nil, 200, `"structuredContent":{"sum":3}`},
	{"invalid-args", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":"x","b":2}}}`, "", nil, 200, `"code":-32602`},
	{"unknown-tool", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`, "", nil, 200, `Unknown tool: nope`},
	{"parse-error", `{"jsonrpc":"2.0","id":5,`, "", nil, 400, `"code":-32700`},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", nil, 202, ""},
	{"list", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, "", nil, 200, `"name":"countdown"`},
	{"initialize", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, "", nil, 200, `"protocolVersion":"2025-06-18"`},
	{"modern-call", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"m"},` + modernMeta + `}}`, "",
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}, 200, `"resultType":"complete"`},
	{"sse-only", `{"jsonrpc":"2.0","id":10,"method":"ping"}`, "text/event-stream", nil, 200, "data: {\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{}}"},
	{"bad-version", `{"jsonrpc":"2.0","id":11,"method":"ping"}`, "", map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, 400, `"code":-32022`},
	{"get", "", "", map[string]string{"X-Method": "GET"}, 405, `"code":-32600`},
}

// rawBurst sends n raw requests from several workers, cycling through
// rawMix, and checks every answer.
func rawBurst(ctx context.Context, url string, n, workers int) (int, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}, Timeout: 30 * time.Second}
	var next, done atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || ctx.Err() != nil {
					return
				}
				k := rawMix[i%int64(len(rawMix))]
				if err := rawOne(ctx, client, url, k); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("request %d (%s): %w", i, k.name, err)
					}
					mu.Unlock()
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && done.Load() != int64(n) {
		firstErr = errors.New("the burst was cut short")
	}
	return int(done.Load()), firstErr
}

func rawOne(ctx context.Context, client *http.Client, url string, k rawKind) error {
	method := http.MethodPost
	if m := k.headers["X-Method"]; m != "" {
		method = m
	}
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(k.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if k.accept != "" {
		req.Header.Set("Accept", k.accept)
	}
	for h, v := range k.headers {
		if h != "X-Method" {
			req.Header.Set(h, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != k.status {
		return fmt.Errorf("status %d, want %d: %s", resp.StatusCode, k.status, body)
	}
	if k.want == "" && len(body) != 0 || !bytes.Contains(body, []byte(k.want)) {
		return fmt.Errorf("body %s, want %s", body, k.want)
	}
	return nil
}
