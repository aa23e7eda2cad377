module github.com/embedmcp/mcp

go 1.26.0

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
)

require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0
)
