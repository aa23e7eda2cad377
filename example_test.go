package mcp_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/embedmcp/mcp"
)

type greetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

// A typed tool: the input and output schemas are inferred from the Go types,
// and the arguments arrive decoded and validated.
func ExampleAddTool() {
	tools := mcp.NewToolSet()
	greet, err := mcp.AddTool(tools, mcp.ToolInfo{
		Name:        "greet",
		Description: "Greets someone by name.",
		Permission:  "demo.greet",
	}, func(ctx context.Context, req *mcp.Request, in greetIn) (greetOut, error) {
		return greetOut{Greeting: "Hello, " + in.Name + "!"}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(greet.Info().Name, greet.Info().InputSchema.Required)
	// Output:
	// greet [name]
}

// Handle answers one JSON-RPC body with an HTTP status and a response body;
// a transport only has to copy them to the wire.
func ExampleServer_Handle() {
	tools := mcp.NewToolSet()
	if _, err := mcp.AddTool(tools, mcp.ToolInfo{Name: "greet", Description: "Greets someone by name."},
		func(ctx context.Context, req *mcp.Request, in greetIn) (greetOut, error) {
			return greetOut{Greeting: "Hello, " + in.Name + "!"}, nil
		}); err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(tools, mcp.AllowAll(), &mcp.Options{Name: "demo", Version: "1.0.0"})

	caller := mcp.Caller{Principal: "alice"}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":42}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":`,
	} {
		status, resp := server.Handle(context.Background(), caller, []byte(body))
		fmt.Println(strings.TrimSpace(fmt.Sprint(status, " ", string(resp))))
	}
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"greeting\":\"Hello, Ada!\"}"}],"structuredContent":{"greeting":"Hello, Ada!"}}}
	// 200 {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid arguments for tool \"greet\": argument /name: expected string, got integer 42","data":{"reason":"invalidArguments","tool":"greet","path":"/name"}}}
	// 202
	// 400 {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of input at /method"}}
}

// GrantsAuthorizer checks a tool's Permission against the caller's grants;
// "prefix.*" grants cover every permission under the prefix. A caller sees
// and may call only the tools it is granted.
func ExampleGrantsAuthorizer() {
	tools := mcp.NewToolSet()
	for _, info := range []mcp.ToolInfo{
		{Name: "code.read", Permission: "diagnostics.code.read"},
		{Name: "data.read", Permission: "diagnostics.data.read"},
		{Name: "reset", Permission: "admin.reset"},
		{Name: "version"}, // no permission: everyone may use it
	} {
		if err := tools.Register(mcp.NewRawTool(info, func(ctx context.Context, req *mcp.Request) (*mcp.Result, error) {
			return mcp.TextResult("done"), nil
		})); err != nil {
			log.Fatal(err)
		}
	}
	az := mcp.GrantsAuthorizer{}
	server := mcp.NewServer(tools, az, nil)

	for _, caller := range []mcp.Caller{
		{Principal: "anonymous"},
		{Principal: "dev", Grants: []string{"diagnostics.*"}},
		{Principal: "ops", Grants: []string{"diagnostics.code.read", "admin.reset"}},
	} {
		var names []string
		for t := range tools.All() {
			if az.Allowed(context.Background(), caller, t.Info().Permission) {
				names = append(names, t.Info().Name)
			}
		}
		_, resp := server.Handle(context.Background(), caller,
			[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reset"}}`))
		fmt.Printf("%-9s lists %-33s reset: %s\n", caller.Principal, strings.Join(names, ","), verdict(resp))
	}
	// Output:
	// anonymous lists version                           reset: Unknown tool: reset
	// dev       lists code.read,data.read,version       reset: Unknown tool: reset
	// ops       lists code.read,reset,version           reset: done
}

// verdict summarises a tools/call response for the example.
func verdict(resp []byte) string {
	s := string(resp)
	if i := strings.Index(s, `"message":"`); i >= 0 {
		s = s[i+len(`"message":"`):]
		return s[:strings.IndexByte(s, '"')]
	}
	if strings.Contains(s, `"text":"done"`) {
		return "done"
	}
	return s
}
