// Package interop drives embedmcp's HTTP handler with MCP clients nobody
// here wrote: the official go-sdk and mark3labs/mcp-go, at their default
// settings (which probe the 2026-07-28 revision first) and pinned to
// 2025-06-18. It is a separate module so that the library's go.mod depends
// on no other MCP SDK.
package interop
