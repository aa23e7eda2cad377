package runtimetools

import (
	"context"
	"errors"
	"expvar"
	"flag"
	"log/slog"
	"runtime"
	"sync"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

var update = flag.Bool("update", false, "rewrite the recorded calls in testdata/recorded and the pages in docs/tools/runtime")

// checkoutVars is the fixture's expvar map, published once per process.
var checkoutVars = sync.OnceValue(func() *expvar.Map {
	m := expvar.NewMap("checkout")
	m.Add("orders", 3)
	m.Add("retries", 1)
	m.Set("stripeSecretKey", stringVar("sk_live_never_shown"))
	return m
})

// checkout is the fixture's service code: it logs what a checkout
// handler logs.
func checkout(logger *slog.Logger) {
	logger = logger.With("service", "checkout")
	logger.Info("order placed", "order", "A-17", "amount", 42.5, "user", "alice")
	logger.Warn("card declined, retrying", "order", "A-18", "card", slog.GroupValue(slog.String("last4", "4242"), slog.String("token", "tok_visa_secret")))
	logger.Error("payment failed", "order", "A-18", "err", errors.New("stripe: rate limited"), "authorization", "Bearer sk_live_never_shown")
}

// recordedLeak is the fixture's leak: goroutines waiting for a reply
// nobody sends.
//
//go:noinline
func recordedLeak(reply <-chan struct{}, started *sync.WaitGroup) {
	started.Done()
	<-reply
}

// leakForRecording starts n goroutines in recordedLeak until the test
// ends. (The recorded answer shows these lines: keep them here.)
func leakForRecording(t *testing.T, n int) {
	reply := make(chan struct{})
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(n)
	for range n {
		go func() {
			defer done.Done()
			recordedLeak(reply, &started)
		}()
	}
	started.Wait()
	t.Cleanup(func() {
		close(reply)
		done.Wait()
	})
	waitBlocked(t, "recordedLeak", n)
}

// recordedServer serves the runtime tools over fixtures: a log ring with
// the records of checkout, three health checks, 25 leaked goroutines and
// the checkout expvar map.
func recordedServer(t *testing.T) (*mcp.Server, []mcp.Tool) {
	t.Helper()
	logs := newLogs(t, nil, nil)
	checkout(slog.New(logs))
	h := newHealth(t, nil)
	must(t, h.Add("database", func(context.Context) error { return nil }))
	must(t, h.Add("cache", func(context.Context) error {
		return errors.New("dial redis://checkout:hunter2@cache:6379: connect: connection refused")
	}))
	must(t, h.Add("payments", func(context.Context) error { panic("payments client not configured") }))
	leakForRecording(t, 25)
	testVars()
	// The heap profile is as of the last GC: have one, so that it is never
	// empty.
	runtime.GC()
	tools, err := Tools(&Options{Logs: logs, Health: h, Vars: expvarVars})
	if err != nil {
		t.Fatal(err)
	}
	ts := mcp.NewToolSet()
	must(t, registerViews(ts))
	must(t, ts.Register(tools...))
	return mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{Name: "checkout", Version: "1.0.0"}), tools
}

// recordedMask masks what changes from run to run and machine to machine:
// times, durations, paths of the checkout, the Go release and build
// settings, and every figure of the live process; and the data only views
// read (views_test.go checks it).
var recordedMask = map[string]string{
	"_meta.embedmcp/view":                       "<view data>",
	"structuredContent.records.*.time":          "<time>",
	"structuredContent.records.*.source.file":   "<file>",
	"structuredContent.checks.*.durationMs":     "<ms>",
	"structuredContent.total":                   "<varies>",
	"structuredContent.goos":                    "<goos>",
	"structuredContent.goarch":                  "<goarch>",
	"structuredContent.groups.*.frames.*.file":  "<file>",
	"structuredContent.groups.*.createdBy.file": "<file>",
	"structuredContent.metrics.*.histogram":     "<histogram>",
	"structuredContent.goVersion":               "<go version>",
	"structuredContent.settings":                "<build settings>",
	"structuredContent.top":                     "<top functions>",
	"structuredContent.functions":               "<count>",
	"structuredContent.bytes":                   "<bytes>",
	"structuredContent.uri":                     "<uri>",
	"content.1.resource.uri":                    "<uri>",
	"content.1.resource.blob":                   "<pprof bytes>",
	"structuredContent.buffer.stored":           "<count>",
	"structuredContent.records.*.first":         "<time>",
	"structuredContent.token":                   "<token>",
	// The text answers hold the figures of the live process; the error
	// messages they also mask are checked by the validation tests.
	"content.0.text": "<text: one line per item, see runtimetools/text.go>",
}

func TestRecordedCalls(t *testing.T) {
	srv, _ := recordedServer(t)
	mcptest.Replay(t, srv, "testdata/recorded", &mcptest.ReplayOptions{
		Caller: mcptest.Caller("oncall", allGrants...),
		Mask:   recordedMask,
		Update: *update,
	})
}

func TestToolDocs(t *testing.T) {
	_, tools := recordedServer(t)
	opts := &mcptest.DocOptions{MaxLines: 80}
	if *update {
		if err := mcptest.WriteToolDocs(tools, "testdata/recorded", "../docs/tools/runtime", opts); err != nil {
			t.Fatal(err)
		}
	}
	if err := mcptest.CheckToolDocs(tools, "testdata/recorded", "../docs/tools/runtime", opts); err != nil {
		t.Fatal(err)
	}
}
