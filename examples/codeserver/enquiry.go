package main

import "github.com/embedmcp/mcp"

// registerEnquiry adds the tool enquiry tools.
func registerEnquiry(ts *mcp.ToolSet, az mcp.Authorizer) error { return nil }
