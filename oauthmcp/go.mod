module github.com/embedmcp/mcp/oauthmcp

go 1.26.0

require github.com/embedmcp/mcp v0.0.0-20261201205901-ff7ae828b919

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/google/jsonschema-go v0.4.3 // indirect
)
