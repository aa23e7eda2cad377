// Package examples holds two small tools, echo and add, whose recorded
// calls and generated pages (docs/tools) show what mcptest does.
package examples

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
)

// Permission is the permission both tools need.
const Permission = "examples.read"

// EchoIn are the arguments of echo.
type EchoIn struct {
	Text  string `json:"text" jsonschema:"The text to send back."`
	Upper bool   `json:"upper,omitempty" jsonschema:"Send the text back in upper case."`
}

// EchoOut is the result of echo.
type EchoOut struct {
	Text       string    `json:"text" jsonschema:"The text, upper-cased when asked."`
	Length     int       `json:"length" jsonschema:"The number of bytes of the text."`
	ObservedAt time.Time `json:"observedAt" jsonschema:"When the server answered."`
}

// AddIn are the arguments of add.
type AddIn struct {
	A float64 `json:"a" jsonschema:"The first addend."`
	B float64 `json:"b" jsonschema:"The second addend."`
}

// AddOut is the result of add.
type AddOut struct {
	Sum  float64 `json:"sum" jsonschema:"a + b."`
	Meta AddMeta `json:"meta"`
}

// AddMeta is how add was served.
type AddMeta struct {
	ServerMs int64 `json:"serverMs" jsonschema:"Milliseconds the server spent."`
}

// Tools returns new echo and add tools.
func Tools() ([]mcp.Tool, error) {
	echo, err := mcp.NewTool(mcp.ToolInfo{
		Name:        "echo",
		Description: "Sends the text back, upper-cased when asked, with its length and the time the server answered.",
		Permission:  Permission,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
		Guide: &mcp.Guide{
			Category:     "Examples",
			WhenToUse:    "Checking that a client reaches the server and that arguments and results make the round trip intact.",
			WhenNotToUse: []string{"Arithmetic - use add."},
			Details:      "The text is returned byte for byte; upper:true maps it with strings.ToUpper. observedAt is the server's clock and changes on every call.",
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{"text":"hello"}`), Outcome: `text:"hello", length:5.`},
				{Arguments: json.RawMessage(`{"text":"hello","upper":true}`), Outcome: `text:"HELLO".`},
			},
		},
	}, func(_ context.Context, _ *mcp.Request, in EchoIn) (EchoOut, error) {
		text := in.Text
		if in.Upper {
			text = strings.ToUpper(text)
		}
		return EchoOut{Text: text, Length: len(text), ObservedAt: time.Now().UTC()}, nil
	})
	if err != nil {
		return nil, err
	}
	add, err := mcp.NewTool(mcp.ToolInfo{
		Name:        "add",
		Description: "Adds two numbers and answers their sum, with the time the server spent.",
		Permission:  Permission,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), IdempotentHint: mcp.Bool(true)},
		Guide: &mcp.Guide{
			Category:     "Examples",
			WhenToUse:    "Adding two numbers.",
			WhenNotToUse: []string{"Sending text back - use echo."},
			Examples:     []mcp.Example{{Arguments: json.RawMessage(`{"a":2,"b":3}`), Outcome: "sum:5."}},
		},
	}, func(ctx context.Context, _ *mcp.Request, in AddIn) (AddOut, error) {
		start := time.Now()
		if err := ctx.Err(); err != nil {
			return AddOut{}, err
		}
		return AddOut{Sum: in.A + in.B, Meta: AddMeta{ServerMs: time.Since(start).Milliseconds()}}, nil
	})
	if err != nil {
		return nil, err
	}
	return []mcp.Tool{echo, add}, nil
}
