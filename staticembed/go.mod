module github.com/embedmcp/mcp/staticembed

go 1.26.0

require (
	github.com/embedmcp/mcp v0.0.0-20261201205901-ff7ae828b919
	golang.org/x/text v0.43.0
)

require github.com/google/jsonschema-go v0.4.3 // indirect
