module github.com/embedmcp/mcp

go 1.26

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
)
