package main

import (
	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/enquiry"
)

// registerEnquiry adds tool_detail and tool_catalogue, which answer "which
// tool does X" over whatever ts holds, for the tools the caller may use.
func registerEnquiry(ts *mcp.ToolSet) error {
	return enquiry.Register(ts, nil)
}
