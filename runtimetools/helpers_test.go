package runtimetools

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"expvar"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// allGrants are the permissions of every runtime tool.
var allGrants = []string{PermissionRead, PermissionProfile, PermissionLogs}

// newTestServer serves the runtime tools with opts.
func newTestServer(t testing.TB, opts *Options) *mcp.Server {
	t.Helper()
	ts := mcp.NewToolSet()
	if err := Register(ts, opts); err != nil {
		t.Fatal(err)
	}
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "runtimetools-test", Version: "1.0.0"})
}

// newTestClient is an in-process client with every runtime permission.
func newTestClient(t testing.TB, opts *Options) *mcptest.Client {
	t.Helper()
	return mcptest.NewClient(t, newTestServer(t, opts), &mcptest.ClientOptions{Caller: mcptest.Caller("oncall", allGrants...)})
}

// call calls a tool that must succeed and decodes its structured content.
func call[Out any](t testing.TB, c *mcptest.Client, name string, args any) Out {
	t.Helper()
	return mcptest.Call[Out](t, c, name, args)
}

// callError calls a tool that must fail with an isError result and
// returns its text.
func callError(t testing.TB, c *mcptest.Client, name string, args any) string {
	t.Helper()
	res, err := c.CallTool(name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		raw, _ := json.Marshal(res.StructuredContent)
		t.Fatalf("%s %v: succeeded, want an isError result: %.300s", name, args, raw)
	}
	return mcptest.ResultText(res)
}

// resultJSON returns the whole result as JSON, with the embedded
// profiles' bytes uncompressed, for searching it.
func resultJSON(t testing.TB, res *mcp.Result) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		raw, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		if c.Resource != nil && c.Resource.Blob != nil {
			zr, err := gzip.NewReader(bytes.NewReader(c.Resource.Blob))
			if err != nil {
				t.Fatalf("the embedded resource is not gzip-compressed: %v", err)
			}
			if _, err := io.Copy(&b, zr); err != nil {
				t.Fatal(err)
			}
		}
	}
	raw, _ := json.Marshal(res.StructuredContent)
	b.Write(raw)
	return b.String()
}

// newLogs returns a LogRing or fails the test.
func newLogs(t testing.TB, next slog.Handler, opts *LogRingOptions) *LogRing {
	t.Helper()
	h, err := NewLogRing(next, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// newHealth returns a Health or fails the test.
func newHealth(t testing.TB, opts *HealthOptions) *Health {
	t.Helper()
	h, err := NewHealth(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// expvarVars is Options.Vars over the process's expvar variables.
func expvarVars(f func(string, fmt.Stringer)) {
	expvar.Do(func(kv expvar.KeyValue) { f(kv.Key, kv.Value) })
}
