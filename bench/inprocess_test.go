// Package bench compares embedmcp with the official go-sdk, mark3labs/mcp-go
// and a bare net/http + encoding/json floor: in-process ServeHTTP benchmarks
// here, loopback load tests in cmd/benchserver and cmd/loadgen, and the
// script ./run that writes RESULTS.md.
package bench

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/bench/servers"
)

// ListTools is the number of tools of the tools/list benchmark.
const ListTools = 1000

// payload64K is the 64 KiB echo text: exactly the default string limit of
// embedmcp's parser, the largest argument it accepts by default.
var payload64K = strings.Repeat("x", 64<<10)

// benchCase is one request served over and over.
type benchCase struct {
	name  string
	tools int
	body  []byte
	check func([]byte) error
}

func cases() []benchCase {
	return []benchCase{
		{name: "echo", tools: 1, body: servers.AppendEchoCall(nil, 1, "hello, world"),
			check: func(b []byte) error { return servers.CheckEcho(b, 1, "hello, world") }},
		{name: "echo64k", tools: 1, body: servers.AppendEchoCall(nil, 2, payload64K),
			check: func(b []byte) error { return servers.CheckEcho(b, 2, payload64K) }},
		{name: "list1000", tools: ListTools, body: servers.AppendListCall(nil, 3),
			check: func(b []byte) error { return servers.CheckList(b, 3, ListTools) }},
	}
}

// body is a request body that can be rewound without allocating.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }

// harness answers nothing: its cost is the benchmark's own per-iteration
// cost (request copy, recorder), included in every other result.
var harness = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })

// BenchmarkServeHTTP measures one ServeHTTP call per iteration for each
// case and implementation, with an httptest.ResponseRecorder.
func BenchmarkServeHTTP(b *testing.B) {
	for _, c := range cases() {
		for _, impl := range append([]string{"harness"}, servers.Impls...) {
			var h http.Handler // built on first use, so that -bench filters skip the setup
			b.Run(c.name+"/"+impl, func(b *testing.B) {
				if h == nil {
					var err error
					if h, err = handler(impl, c.tools); err != nil {
						b.Fatal(err)
					}
				}
				tmpl := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "/mcp", bytes.NewReader(c.body))
				servers.SetHeaders(tmpl.Header)
				rd := &body{}
				serve := func() *httptest.ResponseRecorder {
					rd.Reset(c.body)
					req := *tmpl
					req.Body = rd
					w := httptest.NewRecorder()
					h.ServeHTTP(w, &req)
					return w
				}
				if impl != "harness" {
					w := serve()
					if w.Code != http.StatusOK {
						b.Fatalf("status %d: %.200q", w.Code, w.Body.Bytes())
					}
					if err := c.check(w.Body.Bytes()); err != nil {
						b.Fatal(err)
					}
				}
				b.SetBytes(int64(len(c.body)))
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if w := serve(); w.Code != http.StatusOK {
						b.Fatalf("status %d", w.Code)
					}
				}
			})
		}
	}
}

func handler(impl string, tools int) (http.Handler, error) {
	if impl == "harness" {
		return harness, nil
	}
	return servers.New(impl, tools)
}
