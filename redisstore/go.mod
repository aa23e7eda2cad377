module github.com/embedmcp/mcp/redisstore

go 1.26.0

require (
	github.com/embedmcp/mcp v0.0.0-20261201205901-ff7ae828b919
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
