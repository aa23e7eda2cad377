// Package servers builds the four http.Handlers the benchmarks compare:
// embedmcp, the official go-sdk, mark3labs/mcp-go and a bare net/http +
// encoding/json floor. Each serves the same echo tool ({"text": string} in
// and out, with input and output schemas, validation on) and, for the
// tools/list benchmark, filler tools up to a requested count.
package servers

import (
	"fmt"
	"net/http"
	"slices"
)

// EchoIn is the echo tool's arguments.
type EchoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// EchoOut is the echo tool's structured result.
type EchoOut struct {
	Text string `json:"text" jsonschema:"the echoed text"`
}

// EchoName and EchoDescription describe the echo tool.
const (
	EchoName        = "echo"
	EchoDescription = "Echoes its text argument back."
)

// Implementation names, as accepted by New.
const (
	ImplBare  = "bare"
	ImplEmbed = "embed"
	ImplGoSDK = "gosdk"
	ImplMCPGo = "mcpgo"
)

// Impls lists the implementations, the floor first.
var Impls = []string{ImplBare, ImplEmbed, ImplGoSDK, ImplMCPGo}

// ToolName returns the name of tool i of a server with n tools: tool 0 is
// the echo tool, the others are fillers ("tool_0001"...) that only make
// tools/list longer.
func ToolName(i int) string {
	if i == 0 {
		return EchoName
	}
	return fmt.Sprintf("tool_%04d", i)
}

// toolDescription returns the description of tool i.
func toolDescription(i int) string {
	if i == 0 {
		return EchoDescription
	}
	return fmt.Sprintf("Filler tool number %d: echoes its text argument back, for the tools/list benchmark.", i)
}

// New returns the handler of impl serving n tools (n < 1 means 1: the echo
// tool alone).
func New(impl string, n int) (http.Handler, error) {
	if n < 1 {
		n = 1
	}
	switch impl {
	case ImplBare:
		return Bare(n)
	case ImplEmbed:
		return Embed(n)
	case ImplGoSDK:
		return GoSDK(n)
	case ImplMCPGo:
		return MCPGo(n)
	}
	return nil, fmt.Errorf("servers: unknown implementation %q (want one of %v)", impl, slices.Clone(Impls))
}
