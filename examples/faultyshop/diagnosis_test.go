package faultyshop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
	"github.com/embedmcp/mcp/runtimetools"
)

const (
	pkg    = "github.com/embedmcp/mcp/examples/faultyshop"
	apiKey = "sk_live_51HxQfaultyshopSECRETkey"
	// firstLines is how far into an answer's text the offending function
	// and its file:line must appear.
	firstLines = 8
	maxAnswer  = 8 << 10
	maxLogs    = 2560
)

// faultLines returns the line of each FAULT comment of shop.go.
func faultLines(t *testing.T) map[string]int {
	t.Helper()
	src, err := os.ReadFile("shop.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for i, l := range strings.Split(string(src), "\n") {
		if _, what, ok := strings.Cut(l, "// FAULT: "); ok {
			out[strings.TrimSpace(what)] = i + 1
		}
	}
	return out
}

// diagnosis is one fault's diagnosis: the one call that found it.
type diagnosis struct {
	fault, call      string
	textBytes, bytes int
}

// TestDiagnosis puts the shop under load and diagnoses each planted fault
// with one call of a runtime tool, as an agent would: the answer must name
// the offending function and its file:line within its first lines, in at
// most 8 KB (logs 2.5 KB), text and structured content together. It prints a table of the calls and bytes.
func TestDiagnosis(t *testing.T) {
	if testing.Short() {
		t.Skip("puts a service under load for several seconds")
	}
	lines := faultLines(t)
	defer runtime.SetMutexProfileFraction(runtime.SetMutexProfileFraction(1))

	logs, err := runtimetools.NewLogRing(slog.NewJSONHandler(io.Discard, nil), &runtimetools.LogRingOptions{MaxRecords: 300})
	if err != nil {
		t.Fatal(err)
	}
	shop := New(slog.New(logs), apiKey)
	prof, err := runtimetools.NewProfiler(&runtimetools.ProfilerOptions{Window: time.Second, Every: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var bg sync.WaitGroup
	bg.Go(func() { _ = prof.Run(ctx) })
	defer func() { cancel(); bg.Wait() }()

	ts := mcp.NewToolSet()
	if err := runtimetools.Register(ts, &runtimetools.Options{Logs: logs, Continuous: prof, Source: readSource}); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil)
	c := mcptest.NewClient(t, srv, &mcptest.ClientOptions{Caller: mcptest.Caller("oncall",
		runtimetools.PermissionRead, runtimetools.PermissionProfile, runtimetools.PermissionLogs)})

	web := httptest.NewServer(shop.Handler())
	defer web.Close()
	stop := make(chan struct{})
	var load sync.WaitGroup
	for w := range 4 {
		load.Go(func() { drive(web.URL, w, stop) })
	}
	stopLoad := sync.OnceFunc(func() { close(stop); load.Wait() })
	defer stopLoad()
	time.Sleep(3 * time.Second)

	var table []diagnosis
	ask := func(fault string, args map[string]any, tool string, limit int, want ...string) string {
		t.Helper()
		res, err := c.CallTool(tool, args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %s %v: %v %s", fault, tool, args, err, mcptest.ResultText(res))
		}
		text := res.Content[0].Text
		model := *res
		model.Meta = nil // the views' data, which hosts do not hand to the model
		whole, _ := json.Marshal(model)
		all, _ := json.Marshal(res)
		argText, _ := json.Marshal(args)
		table = append(table, diagnosis{fault, tool + " " + string(argText), len(text), len(whole)})
		head := strings.Join(firstN(strings.Split(text, "\n"), firstLines), "\n")
		for _, w := range want {
			if !strings.Contains(head, w) {
				t.Errorf("%s: %q is not in the first %d lines of the answer:\n%s", fault, w, firstLines, text)
			}
		}
		if len(whole) > limit {
			t.Errorf("%s: the answer is %d bytes (text %d), more than %d:\n%s", fault, len(whole), len(text), limit, text)
		}
		if strings.Contains(string(all), apiKey) {
			t.Errorf("%s: the answer shows the API key", fault)
		}
		if strings.Contains(text, filepath.Dir(thisFile())) {
			t.Errorf("%s: the text shows the build machine's path:\n%s", fault, text)
		}
		t.Logf("%s:\n%s", fault, text)
		return text
	}

	file := pkg + "/shop.go:"
	ask("goroutine leak", map[string]any{"watch": 2, "limit": 5}, runtimetools.GoroutinesToolName, maxAnswer,
		"PROBABLE LEAK", pkg+".(*Shop).notifyWarehouse "+file+strconv.Itoa(lines["leak wait"]),
		"created by "+pkg+".(*Shop).placeOrder "+file+strconv.Itoa(lines["leak creation"]))
	ask("lock held across a slow call", map[string]any{"kind": "mutex"}, runtimetools.ProfileToolName, maxAnswer,
		pkg+".(*Shop).refreshStock "+file, "shop.go:"+strconv.Itoa(lines["lock held"])+" ")
	ask("error logged with order id and api_key", map[string]any{"level": "warn"}, runtimetools.LogsToolName, maxLogs,
		`"payment provider rejected charge" `+pkg+".(*Shop).placeOrder "+file+strconv.Itoa(lines["error log"]),
		"api_key=[REDACTED]", "order_id=A-")
	stopLoad()
	// The load is over: the CPU hot spot is found in the background
	// profiler's history.
	text := ask("quadratic function on a request path", map[string]any{"kind": "cpu", "window": "1m"}, runtimetools.ProfileToolName, maxAnswer,
		pkg+".dedupe "+file)
	if l := hotLine(text, "dedupe"); l < lines["quadratic begin"] || l > lines["quadratic end"] {
		t.Errorf("the hottest line of dedupe is %d, not in its inner loop (lines %d..%d)", l, lines["quadratic begin"], lines["quadratic end"])
	}

	var b strings.Builder
	fmt.Fprintf(&b, "| fault | the one call | calls | text bytes | answer bytes (text + structured) |\n|---|---|---|---|---|\n")
	for _, d := range table {
		fmt.Fprintf(&b, "| %s | `%s` | 1 | %d | %d |\n", d.fault, d.call, d.textBytes, d.bytes)
	}
	fmt.Print("Diagnosis of the planted faults (TestDiagnosis):\n" + b.String())
}

// drive sends requests to the shop until stop is closed: orders, stock
// lookups and searches.
func drive(base string, worker int, stop <-chan struct{}) {
	client := &http.Client{Timeout: 10 * time.Second}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		var req *http.Request
		switch (i + worker) % 3 {
		case 0:
			req, _ = http.NewRequest(http.MethodPost, base+"/orders", bytes.NewReader([]byte(`{"sku":"sku-1"}`)))
		case 1:
			req, _ = http.NewRequest(http.MethodGet, base+"/stock/sku-"+strconv.Itoa(i%50), nil)
		default:
			req, _ = http.NewRequest(http.MethodGet, base+"/search?q=sku", nil)
		}
		if resp, err := client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if i%3 == 0 {
			time.Sleep(time.Millisecond) // a little air for the tools
		}
	}
}

// readSource is the host's source for runtime_profile's excerpts. A real
// host reads its embedded snapshot (codetools' Catalog.File); this test
// reads the package's own files.
func readSource(_ context.Context, file string, first, last int) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(filepath.Dir(thisFile()), filepath.Base(file)))
	if err != nil {
		return nil, err
	}
	all := strings.Split(string(data), "\n")
	if first < 1 || first > len(all) {
		return nil, fmt.Errorf("line %d out of range", first)
	}
	return all[first-1 : min(last, len(all))], nil
}

// thisFile is the absolute path of this file, as the build recorded it.
func thisFile() string {
	_, f, _, _ := runtime.Caller(0)
	return f
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }

// hotLine returns the hottest line the answer gives under the function
// whose id ends with fn.
func hotLine(text, fn string) int {
	in := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "    ") {
			if in {
				f := strings.Fields(l)[0]
				n, _ := strconv.Atoi(f[strings.LastIndexByte(f, ':')+1:])
				return n
			}
			continue
		}
		fields := strings.Fields(l)
		in = len(fields) >= 4 && strings.HasSuffix(fields[3], "."+fn)
	}
	return 0
}
