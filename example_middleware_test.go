package mcp_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/embedmcp/mcp"
)

// A ToolMiddleware sees every tools/call: who calls which tool under which
// revision, how long it took and how it ended. This one lets each
// principal make two calls, then refuses with a result the model can read.
func ExampleToolMiddleware() {
	var mu sync.Mutex
	calls := map[string]int{}
	const budget = 2
	rateLimit := func(ctx context.Context, req *mcp.Request, next mcp.ToolHandler) (*mcp.Result, error) {
		mu.Lock()
		calls[req.Caller.Principal]++
		n := calls[req.Caller.Principal]
		mu.Unlock()
		if n > budget {
			return mcp.ErrorResult(fmt.Sprintf("rate limit: %s may make %d calls; try again later", req.Caller.Principal, budget)), nil
		}
		start := time.Now()
		res, err := next(ctx, req)
		outcome := "ok"
		switch {
		case err != nil:
			outcome = "error: " + err.Error()
		case res.IsError:
			outcome = "isError"
		}
		_ = time.Since(start) // the duration, for a histogram
		fmt.Printf("%s called %s (permission %q) under %s: %s\n",
			req.Caller.Principal, req.Name, req.Tool().Info().Permission, req.ProtocolVersion, outcome)
		return res, err
	}

	tools := mcp.NewToolSet()
	if _, err := mcp.AddTool(tools, mcp.ToolInfo{Name: "echo", Description: "Echoes its text.", Permission: "demo.echo"},
		func(_ context.Context, _ *mcp.Request, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		}); err != nil {
		panic(err)
	}
	server := mcp.NewServer(tools, mcp.AllowAll(), &mcp.Options{ToolMiddleware: []mcp.ToolMiddleware{rateLimit}})

	for _, who := range []string{"alice", "alice", "bob", "alice"} {
		res, _ := server.CallTool(context.Background(),
			&mcp.Request{Caller: mcp.Caller{Principal: who}, ProtocolVersion: mcp.Version20251125, Name: "echo", Arguments: []byte(`{"text":"hi"}`)})
		if res.IsError {
			fmt.Println(res.Content[0].Text)
		}
	}
	// Output:
	// alice called echo (permission "demo.echo") under 2025-11-25: ok
	// alice called echo (permission "demo.echo") under 2025-11-25: ok
	// bob called echo (permission "demo.echo") under 2025-11-25: ok
	// rate limit: alice may make 2 calls; try again later
}

// A Middleware sees every request the Server dispatches, whatever its
// method, with its target, id, revision and _meta, and how it was
// answered: what a tracer needs for one span per request.
func ExampleMiddleware() {
	trace := func(ctx context.Context, msg *mcp.Message, next mcp.MessageHandler) mcp.Outcome {
		out := next(ctx, msg)
		result := "ok"
		switch {
		case out.Err != nil:
			result = fmt.Sprint("error ", out.Err.Code)
		case out.IsError:
			result = "isError"
		}
		fmt.Printf("%s %q id=%s %s traceparent=%v: %s\n", msg.Method, msg.Name, msg.ID, msg.ProtocolVersion, msg.Meta["traceparent"], result)
		return out
	}
	tools := mcp.NewToolSet()
	if err := tools.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return nil, fmt.Errorf("the disk is full") })); err != nil {
		panic(err)
	}
	server := mcp.NewServer(tools, mcp.AllowAll(), &mcp.Options{Middleware: []mcp.Middleware{trace}})
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"fail","_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		server.Handle(context.Background(), mcp.Caller{}, []byte(body))
	}
	// Output:
	// tools/list "" id=1 2025-03-26 traceparent=<nil>: ok
	// tools/call "fail" id="two" 2025-03-26 traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01: isError
	// tools/call "nope" id=3 2025-03-26 traceparent=<nil>: error -32602
}
