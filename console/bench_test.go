package console

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/tasks"
)

// benchConsole returns a Console over n tools and a tools/call message of
// the first, as the Server hands it to Middleware.
func benchConsole(tb testing.TB, n int) (*Console, *mcp.Message, mcp.MessageHandler) {
	tb.Helper()
	ts := mcp.NewToolSet()
	type in struct {
		Query string `json:"query" jsonschema:"what to look for"`
		Limit int    `json:"limit,omitempty" jsonschema:"how many answers"`
		Deep  struct {
			Flag bool `json:"flag"`
		} `json:"deep"`
	}
	tools := make([]mcp.Tool, 0, n)
	for i := range n {
		tool, err := mcp.NewTool(mcp.ToolInfo{Name: fmt.Sprintf("tool%04d", i), Title: "Tool", Description: "Does one thing. Then more.",
			Permission: fmt.Sprintf("demo.p%d", i%10), AdminSummary: "summary", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}},
			func(context.Context, *mcp.Request, in) (string, error) { return "", nil })
		if err != nil {
			tb.Fatal(err)
		}
		tools = append(tools, tool)
	}
	if err := ts.Register(tools...); err != nil {
		tb.Fatal(err)
	}
	c, err := New(&Options{Registry: ts, Authorizer: mcp.AllowAll(), Tasks: tasks.NewMemoryStore(nil), SampleInterval: time.Hour})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	// A Message's tool is set by the Server; a real request through
	// Server.Handle captures one.
	var msg *mcp.Message
	var captured mcp.Message
	server := mcp.NewServer(ts, mcp.AllowAll(), &mcp.Options{Middleware: []mcp.Middleware{
		func(ctx context.Context, m *mcp.Message, next mcp.MessageHandler) mcp.Outcome {
			out := next(ctx, m)
			if m.Method == "tools/call" && m.Tool() != nil {
				captured = *m
				msg = &captured
			}
			return out
		}}})
	server.Handle(context.Background(), mcp.Caller{Principal: "bench"},
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tool0000","arguments":{"query":"x","deep":{"flag":true}}},"_meta":{}}`))
	if msg == nil {
		tb.Fatal("no tools/call captured")
	}
	next := func(context.Context, *mcp.Message) mcp.Outcome { return mcp.Outcome{} }
	return c, msg, next
}

// noop is a Middleware that does nothing: the baseline of Record.
func noop(ctx context.Context, m *mcp.Message, next mcp.MessageHandler) mcp.Outcome {
	return next(ctx, m)
}

// callBody is a tools/call of tool0000.
var callBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tool0000","arguments":{"query":"x","deep":{"flag":true}}}}`)

// BenchmarkRecord measures what Record adds to a request: a Server
// answering a tools/call through Record, against the same Server through
// a Middleware that does nothing (the baseline), in the same run; and
// Record alone around a handler that does nothing.
func BenchmarkRecord(b *testing.B) {
	c, msg, next := benchConsole(b, 1)
	ctx := context.Background()
	caller := mcp.Caller{Principal: "bench"}
	for _, mw := range []struct {
		name string
		mw   mcp.Middleware
	}{{"server/baseline", noop}, {"server/record", c.Record}} {
		server := mcp.NewServer(c.reg, mcp.AllowAll(), &mcp.Options{Middleware: []mcp.Middleware{mw.mw}})
		server.Handle(ctx, caller, callBody) // the tool's statistics, the Server's pools
		b.Run(mw.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if status, _ := server.Handle(ctx, caller, callBody); status != 200 {
					b.Fatal(status)
				}
			}
		})
	}
	b.Run("alone", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			c.Record(ctx, msg, next)
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
	// What Record does for a tools/call whose tool the Server found (a
	// Message's tool can be set by the Server only): "alone" plus the
	// tool's statistics.
	b.Run("alone-with-tool", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			start := time.Now()
			c.note(start, msg, "tool0000", next(ctx, msg))
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("alone-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c.Record(ctx, msg, next)
			}
		})
	})
}

// BenchmarkPages renders each page with 1 000 tools and 10 000 recorded
// calls spread over 1 000 tools and the last hour.
func BenchmarkPages(b *testing.B) {
	c, msg, next := benchConsole(b, 1000)
	now := time.Now()
	for i := range DefaultCalls {
		rec := call{at: now.Add(-time.Duration(i) * 360 * time.Millisecond).UnixNano(), dur: int64(time.Duration(i%1000) * time.Microsecond),
			principal: "bench", method: "tools/call", tool: fmt.Sprintf("tool%04d", i%1000), version: msg.ProtocolVersion}
		if i%7 == 0 {
			rec.outcome = outcomeToolError
		}
		c.rec.add(&rec)
	}
	c.Record(context.Background(), msg, next)
	for _, path := range []string{"/", "/calls", "/calls?outcome=failed&limit=1000", "/tasks", "/process", "/?grants=demo.p1"} {
		b.Run(path, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			c.ServeHTTP(&countingWriter{header: http.Header{}}, httptest.NewRequest(http.MethodGet, path, nil)) // builds the Tools page's cache
			cpu := cpuTime()
			for b.Loop() {
				w := &countingWriter{header: http.Header{}}
				c.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
				if w.code != 200 {
					b.Fatalf("%s: %d", path, w.code)
				}
				size = w.n
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(size)/1024, "KiB/page")
		})
	}
}

// countingWriter is a ResponseWriter that counts what it is sent, as a
// connection would take it, without keeping it.
type countingWriter struct {
	header http.Header
	code   int
	n      int
}

func (w *countingWriter) Header() http.Header { return w.header }
func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *countingWriter) Write(b []byte) (int, error) {
	w.WriteHeader(200)
	w.n += len(b)
	return len(b), nil
}
