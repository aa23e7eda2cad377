package runtimetools

import (
	"context"
	"encoding/json"
	"errors"
	"expvar"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

func TestMetrics(t *testing.T) {
	c := newTestClient(t, nil)
	overview := call[metricsResult](t, c, MetricsToolName, map[string]any{})
	byName := map[string]metricSample{}
	for _, m := range overview.Metrics {
		byName[m.Name] = m
	}
	g, ok := byName["/sched/goroutines:goroutines"]
	if !ok || g.Value == nil || *g.Value < 1 || g.Unit != "goroutines" || g.Kind != "gauge" || g.Description == "" {
		t.Errorf("goroutines = %+v", g)
	}
	if h := byName["/sched/latencies:seconds"]; h.Histogram == nil || h.Kind != "histogram" || h.Histogram.P50 > h.Histogram.P99 {
		t.Errorf("scheduler latency = %+v", h)
	}
	if a := byName["/gc/heap/allocs:bytes"]; a.Kind != "counter" || a.Value == nil || *a.Value <= 0 {
		t.Errorf("allocs = %+v", a)
	}
	if runtime.GOOS == "linux" {
		for _, n := range []string{"/process/rss:bytes", "/process/open-fds:fds", "/process/max-fds:fds", "/process/uptime:seconds"} {
			if m, ok := byName[n]; !ok || m.Value == nil || *m.Value <= 0 {
				t.Errorf("%s = %+v", n, m)
			}
		}
	}
	// Names with or without the unit, and a prefix.
	got := call[metricsResult](t, c, MetricsToolName, map[string]any{"names": []string{"/gc/heap/live", "/gc/gogc:percent"}, "prefix": "/sched/pauses/"})
	var names []string
	for _, m := range got.Metrics {
		names = append(names, m.Name)
	}
	if len(names) < 4 || names[0] != "/gc/heap/live:bytes" || names[1] != "/gc/gogc:percent" || !strings.HasPrefix(names[2], "/sched/pauses/") {
		t.Errorf("names and prefix: %v", names)
	}
	text := callError(t, c, MetricsToolName, map[string]any{"names": []string{"/gc/heap/nosuch"}})
	if !strings.Contains(text, "/gc/") || !strings.Contains(text, "/sched/") || !strings.Contains(text, `"/gc/heap/nosuch"`) {
		t.Errorf("unknown metric: %s", text)
	}
	text = callError(t, c, MetricsToolName, map[string]any{"prefix": "/nothing/"})
	if !strings.Contains(text, "no metric starts with") {
		t.Errorf("unknown prefix: %s", text)
	}
}

func TestSummariseHistogram(t *testing.T) {
	h := summariseFor([]float64{0, 1, 2, 3, 4}, []uint64{50, 40, 9, 1})
	if h.Count != 100 || h.P50 != 1 || h.P90 != 2 || h.P99 != 3 || h.Max != 4 {
		t.Errorf("summary = %+v", h)
	}
}

func TestBuild(t *testing.T) {
	c := newTestClient(t, nil)
	got := call[buildResult](t, c, BuildToolName, map[string]any{})
	if got.GoVersion != runtime.Version() || got.Path == "" || got.GOOS != runtime.GOOS || len(got.Settings) == 0 {
		t.Errorf("build = %+v", got)
	}
	bi, _ := debug.ReadBuildInfo()
	bi.Deps = []*debug.Module{
		{Path: "github.com/google/pprof", Version: "v0.0.1", Sum: "h1:a"},
		{Path: "example.com/old", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.0.1", Sum: "h1:b"}},
	}
	bi.Settings = []debug.BuildSetting{{Key: "-ldflags", Value: "-s -X main.version=1.2 -X main.apiToken=abc -X 'main.dbPassword=x y' -X main.dsn=postgres://app:pw@db/x"},
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}
	ans := buildAnswer(bi, "FORK")
	if len(ans.Deps) != 1 || ans.Deps[0].Replace == nil || ans.Deps[0].Replace.Sum != "h1:b" || ans.DepsMatched != 1 || ans.DepsTotal != 2 {
		t.Errorf("filtered deps = %+v", ans.Deps)
	}
	if ans.VCS == nil || ans.VCS.Revision != "abc123" || ans.VCS.Modified == nil || !*ans.VCS.Modified {
		t.Errorf("vcs = %+v", ans.VCS)
	}
	if len(ans.Settings) != 1 || ans.Settings[0].Value != "-s -X main.version=1.2 -X main.apiToken=[REDACTED] -X main.dbPassword=[REDACTED] -X main.dsn=[REDACTED]" {
		t.Errorf("settings = %+v", ans.Settings)
	}
}

func TestVars(t *testing.T) {
	testVars()
	c := newTestClient(t, &Options{Vars: expvarVars})
	all := call[varsResult](t, c, VarsToolName, map[string]any{})
	if !slices.Contains(all.Omitted, "cmdline") || !slices.Contains(all.Omitted, "memstats") {
		t.Errorf("omitted = %v", all.Omitted)
	}
	var mine *expVar
	for i := range all.Vars {
		if all.Vars[i].Name == "runtimetools_test_vars" {
			mine = &all.Vars[i]
		}
	}
	if mine == nil || string(mine.Value) != `{"apiKey":"[REDACTED]","db":"postgres://app:[REDACTED]@db/orders","requests":7}` {
		t.Fatalf("runtimetools_test_vars = %+v", mine)
	}
	cmd := call[varsResult](t, c, VarsToolName, map[string]any{"names": []string{"cmdline", "memstats"}})
	if len(cmd.Vars) != 2 || cmd.Vars[0].Name != "cmdline" || !strings.Contains(string(cmd.Vars[1].Value), "HeapAlloc") {
		t.Errorf("cmdline and memstats: %+v", cmd.Vars)
	}
	text := callError(t, c, VarsToolName, map[string]any{"names": []string{"nosuch"}})
	if !strings.Contains(text, "published: ") || !strings.Contains(text, "cmdline") {
		t.Errorf("unknown var: %s", text)
	}
	args := defaultSecrets.redactArgs([]string{"server", "-token", "abc", "--password=hunter2", "-addr", ":80", "-v", "-dsn", "postgres://app:pw@db/x"})
	if strings.Join(args, " ") != "server -token [REDACTED] --password=[REDACTED] -addr :80 -v -dsn postgres://app:[REDACTED]@db/x" {
		t.Errorf("redactArgs = %v", args)
	}
}

// TestVarsFromTheHost: runtime_vars reads what Options.Vars lists, and only
// then exists; a listing or a variable that panics is an error, the server
// unharmed.
func TestVarsFromTheHost(t *testing.T) {
	for _, tc := range []struct {
		opts *Options
		want bool
	}{{nil, false}, {&Options{}, false}, {&Options{Vars: expvarVars}, true}} {
		tools, err := Tools(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(tools, func(tool mcp.Tool) bool { return tool.Info().Name == VarsToolName })
		if got != tc.want {
			t.Errorf("Tools(%+v): runtime_vars registered %v, want %v", tc.opts, got, tc.want)
		}
	}
	own := func(f func(string, fmt.Stringer)) {
		f("queue", stringVar("jobs"))
		f("broken", panicVar{})
		f("cmdline", stringVar("not the command line"))
		f("login", jsonVar(`{"user":"ada","password":"hunter2"}`))
		f("dbPassword", stringVar("hunter2"))
		f("queue", stringVar("listed twice"))
		f("unset", nil)
	}
	c := newTestClient(t, &Options{Vars: own})
	all := call[varsResult](t, c, VarsToolName, map[string]any{})
	var names []string
	for _, v := range all.Vars {
		names = append(names, v.Name)
	}
	if strings.Join(names, " ") != "broken dbPassword login queue unset" || !slices.Equal(all.Omitted, []string{"cmdline"}) {
		t.Fatalf("vars %v, omitted %v", names, all.Omitted)
	}
	if !strings.Contains(all.Vars[0].Error, "reading the variable panicked: boom") || string(all.Vars[2].Value) != `{"password":"[REDACTED]","user":"ada"}` ||
		string(all.Vars[1].Value) != `"[REDACTED]"` || string(all.Vars[3].Value) != `"jobs"` || all.Vars[4].Error != "the variable has no value (nil)" {
		t.Errorf("vars = %+v", all.Vars)
	}
	if text := callError(t, c, VarsToolName, map[string]any{"names": []string{"memstats"}}); !strings.Contains(text, "published: broken, cmdline, dbPassword, login, queue, unset") {
		t.Errorf("unknown var: %s", text)
	}
	c = newTestClient(t, &Options{Vars: func(func(string, fmt.Stringer)) { panic("listing failed") }})
	if text := callError(t, c, VarsToolName, map[string]any{}); !strings.Contains(text, "listing the variables panicked: listing failed") {
		t.Errorf("panicking listing: %s", text)
	}
	call[metricsResult](t, c, MetricsToolName, map[string]any{"names": []string{"/sched/goroutines:goroutines"}})
}

// jsonVar is a variable whose String method answers its JSON text as is.
type jsonVar string

func (v jsonVar) String() string { return string(v) }

// panicVar is a variable whose String method panics.
type panicVar struct{}

func (panicVar) String() string { panic("boom") }

// TestNoExpvarImport: importing the package must not import expvar, whose
// init registers /debug/vars (the command line, unredacted) on
// http.DefaultServeMux.
func TestNoExpvarImport(t *testing.T) {
	gocmd, err := exec.LookPath("go") // go test puts its own first on PATH
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	out, err := exec.Command(gocmd, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/embedmcp/mcp/runtimetools") || !slices.Contains(deps, "net/http") {
		t.Fatalf("go list -deps answered %d packages, not this package's", len(deps))
	}
	if slices.Contains(deps, "expvar") {
		t.Error("runtimetools imports expvar")
	}
}

type stringVar string

func (s stringVar) String() string { b, _ := json.Marshal(string(s)); return string(b) }

// TestBadInput: out-of-range numbers, unknown values and 64 KiB strings get
// a clear isError that names what is valid and never echoes the input.
func TestBadInput(t *testing.T) {
	c := newTestClient(t, &Options{Logs: newLogs(t, nil, nil), Health: newHealth(t, nil), Vars: expvarVars})
	huge := strings.Repeat("A", 64<<10)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{ProfileToolName, map[string]any{"kind": "cpu", "seconds": 45}, []string{"/seconds", "1..30", "45"}},
		{ProfileToolName, map[string]any{"kind": "cpu", "seconds": -1}, []string{"1..30"}},
		{ProfileToolName, map[string]any{"kind": "cpu", "seconds": 0}, []string{"/seconds", "1..30", "got 0"}},
		{ProfileToolName, map[string]any{"kind": "heap", "seconds": 31}, []string{"0..30"}},
		{ProfileToolName, map[string]any{"kind": "goroutine", "seconds": 5}, []string{"leave seconds out"}},
		{ProfileToolName, map[string]any{"kind": "gpu"}, []string{"cpu, heap, allocs, mutex, block, goroutine", `"gpu"`}},
		{ProfileToolName, map[string]any{"kind": huge}, []string{"cpu, heap, allocs, mutex, block, goroutine", "65536 bytes"}},
		{ProfileToolName, map[string]any{"kind": "heap", "sample": "cpu"}, []string{"inuse_space, inuse_objects, alloc_space, alloc_objects"}},
		{ProfileToolName, map[string]any{"kind": "heap", "top": 51}, []string{"1..50"}},
		{ProfileToolName, map[string]any{"kind": "heap", "sortBy": huge}, []string{"flat or cum"}},
		{GoroutinesToolName, map[string]any{"function": huge}, []string{"/function", "at most 256 bytes"}},
		{GoroutinesToolName, map[string]any{"state": huge}, []string{"/state", "at most 64 bytes"}},
		{GoroutinesToolName, map[string]any{"limit": 1000}, []string{"1..100"}},
		{GoroutinesToolName, map[string]any{"minCount": -3}, []string{"1..1000000000"}},
		{MetricsToolName, map[string]any{"prefix": huge}, []string{"at most 128 bytes"}},
		{MetricsToolName, map[string]any{"names": []string{huge}}, []string{"at most 128 bytes"}},
		{LogsToolName, map[string]any{"level": huge}, []string{"debug, info, warn or error"}},
		{LogsToolName, map[string]any{"level": "loud"}, []string{"debug, info, warn or error", `"loud"`}},
		{LogsToolName, map[string]any{"since": "yesterday"}, []string{"15m", "RFC 3339"}},
		{LogsToolName, map[string]any{"since": "-5m"}, []string{"positive"}},
		{LogsToolName, map[string]any{"contains": huge}, []string{"at most 256 bytes"}},
		{LogsToolName, map[string]any{"attrs": map[string]any{huge: "x"}}, []string{"at most 128 bytes"}},
		{LogsToolName, map[string]any{"attrs": map[string]any{"k": huge}}, []string{"at most 256 bytes"}},
		{LogsToolName, map[string]any{"limit": 0.5}, nil},
		{BuildToolName, map[string]any{"module": huge}, []string{"at most 256 bytes"}},
		{VarsToolName, map[string]any{"names": []string{huge}}, []string{"at most 256 bytes"}},
		{HealthToolName, map[string]any{"names": []string{huge}}, []string{"no health check"}},
	} {
		text := callError(t, c, tc.tool, tc.args)
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %.60v: %q does not say %q", tc.tool, tc.args, text, w)
			}
		}
		if len(text) > 1024 || strings.Contains(text, strings.Repeat("A", 100)) {
			t.Errorf("%s: the input is echoed (%d bytes): %.200s", tc.tool, len(text), text)
		}
	}
}

func TestPermissions(t *testing.T) {
	srv := newTestServer(t, &Options{Logs: newLogs(t, nil, nil), Health: newHealth(t, nil), Vars: expvarVars})
	list := func(grants ...string) []string {
		c := mcptest.NewClient(t, srv, &mcptest.ClientOptions{Caller: mcptest.Caller("x", grants...)})
		tools, err := c.ListTools()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		return names
	}
	if got := strings.Join(list(PermissionRead), " "); got != "runtime_build runtime_goroutines runtime_health runtime_metrics runtime_vars" {
		t.Errorf("diagnostics.runtime.read: %s", got)
	}
	if got := strings.Join(list(PermissionProfile), " "); got != "runtime_profile" {
		t.Errorf("diagnostics.runtime.profile: %s", got)
	}
	if got := strings.Join(list(PermissionLogs), " "); got != "runtime_logs" {
		t.Errorf("diagnostics.logs.read: %s", got)
	}
	if got := list("diagnostics.code.read"); len(got) != 0 {
		t.Errorf("no runtime grant: %v", got)
	}
	c := mcptest.NewClient(t, srv, &mcptest.ClientOptions{Caller: mcptest.Caller("x", PermissionRead)})
	if _, err := c.CallTool(ProfileToolName, map[string]any{"kind": "heap"}); err == nil {
		t.Error("runtime_profile answered a caller without diagnostics.runtime.profile")
	}
}

// TestSecretsNeverShown plants secrets where a process keeps them (the
// environment, flags, expvar variables, pprof labels, log records, a
// health check's error) and checks that no answer of any tool, the raw
// profiles included, holds one.
func TestSecretsNeverShown(t *testing.T) {
	secrets := []string{"env-secret-0", "env-secret-1", "flag-secret-2", "flag-secret-3", "var-secret-4", "var-secret-5",
		"label-secret-6", "label-secret-7", "log-secret-8", "log-secret-9", "health-secret-10"}
	t.Setenv("RUNTIMETOOLS_SENTINEL", secrets[0])
	t.Setenv("DATABASE_URL", "postgres://app:"+secrets[1]+"@db/x")
	args := os.Args
	os.Args = []string{args[0], "-token", secrets[2], "--dsn=postgres://app:" + secrets[3] + "@db/x", "-v"}
	t.Cleanup(func() { os.Args = args })
	testVars() // runtimetools_probe holds secrets[4] and [5]
	release := make(chan struct{})
	labelled := make(chan struct{})
	go pprof.Do(context.Background(), pprof.Labels("session_token", secrets[6], "upstream", "http://u:"+secrets[7]+"@h"), func(context.Context) {
		close(labelled)
		<-release
	})
	<-labelled
	t.Cleanup(func() { close(release) })
	logs := newLogs(t, nil, nil)
	slog.New(logs).Info("started", "pid", os.Getpid(), "apiKey", secrets[8], "dsn", "redis://:"+secrets[9]+"@cache")
	h := newHealth(t, nil)
	must(t, h.Add("db", func(context.Context) error { return errors.New("dial postgres://app:" + secrets[10] + "@db: refused") }))
	c := newTestClient(t, &Options{Logs: logs, Health: h, Vars: expvarVars})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{GoroutinesToolName, nil}, {MetricsToolName, nil}, {MetricsToolName, map[string]any{"prefix": "/"}},
		{BuildToolName, nil}, {VarsToolName, nil}, {VarsToolName, map[string]any{"names": []string{"cmdline", "memstats", "runtimetools_probe"}}},
		{LogsToolName, nil}, {HealthToolName, nil},
		{ProfileToolName, map[string]any{"kind": "heap"}}, {ProfileToolName, map[string]any{"kind": "goroutine"}},
	} {
		if tc.args == nil {
			tc.args = map[string]any{}
		}
		res, err := c.CallTool(tc.tool, tc.args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		all := resultJSON(t, res)
		for _, s := range secrets {
			if strings.Contains(all, s) {
				t.Errorf("%s %v shows %s", tc.tool, tc.args, s)
			}
		}
	}
	// The labels are there, redacted.
	g := call[goroutinesResult](t, c, GoroutinesToolName, map[string]any{"function": "TestSecretsNeverShown"})
	if len(g.Groups) == 0 || g.Groups[0].Labels["session_token"] != Redacted || g.Groups[0].Labels["upstream"] != "http://u:[REDACTED]@h" {
		t.Errorf("labels: %+v", g.Groups)
	}
}

// TestRegisterCostsNothing: registering starts no goroutine and no
// profiler; the tools work only when called.
func TestRegisterCostsNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 3 {
		if _, err := Tools(&Options{Logs: newLogs(t, nil, nil), Health: newHealth(t, nil), Vars: expvarVars}); err != nil {
			t.Fatal(err)
		}
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("goroutines: %d before registering, %d after", before, after)
	}
	var buf strings.Builder
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Errorf("the CPU profiler is in use after registering: %v", err)
	} else {
		pprof.StopCPUProfile()
	}
}

func TestToolsMeetTheContracts(t *testing.T) {
	h := newHealth(t, nil)
	must(t, h.Add("ok", func(context.Context) error { return nil }))
	tools, err := Tools(&Options{Logs: newLogs(t, nil, nil), Health: h, Vars: expvarVars})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Info().Name)
		info := tool.Info()
		if info.Guide == nil || info.Guide.WhenToUse == "" || len(info.Guide.Examples) == 0 || info.Guide.Category != "Diagnostics" {
			t.Errorf("%s: no guide for the enquiry tools", info.Name)
		}
		if err := mcptest.CheckTool(tool, &mcptest.CheckOptions{Timeout: 5 * 1e9}); err != nil {
			t.Errorf("%s:\n%v", info.Name, err)
		}
	}
	if len(names) != 7 {
		t.Errorf("tools = %v", names)
	}
	ts := mcp.NewToolSet()
	must(t, registerViews(ts))
	must(t, ts.Register(tools...))
	if err := mcptest.CheckRegistry(ts); err != nil {
		t.Error(err)
	}
}

func summariseFor(buckets []float64, counts []uint64) *histogram {
	return summarise(&metrics.Float64Histogram{Buckets: buckets, Counts: counts})
}

// TestOptionsThatMeanNothing: bounds that mean nothing are errors, never
// silently replaced.
func TestOptionsThatMeanNothing(t *testing.T) {
	if _, err := NewLogRing(nil, &LogRingOptions{MaxRecords: -1}); err == nil {
		t.Error("MaxRecords -1 accepted")
	}
	if _, err := NewLogRing(nil, &LogRingOptions{MaxBytes: 100}); err == nil || !strings.Contains(err.Error(), "at least 4096") {
		t.Errorf("MaxBytes 100: %v", err)
	}
	if _, err := NewHealth(&HealthOptions{Timeout: -time.Second}); err == nil {
		t.Error("a negative timeout accepted")
	}
	if _, err := Tools(&Options{MaxProfileBytes: -1}); err == nil {
		t.Error("MaxProfileBytes -1 accepted")
	}
	if err := Register(mcp.NewToolSet(), nil); err != nil {
		t.Errorf("nil options: %v", err)
	}
}

// testVars publishes the expvar fixtures once per process, whichever test
// runs first, so that every answer lists the same variables.
var testVars = sync.OnceFunc(func() {
	m := expvar.NewMap("runtimetools_test_vars")
	m.Add("requests", 7)
	m.Set("apiKey", stringVar("pk_live_secret"))
	m.Set("db", stringVar("postgres://app:hunter2@db/orders"))
	probe := expvar.NewMap("runtimetools_probe")
	probe.Set("clientSecret", stringVar("var-secret-4"))
	probe.Set("broker", stringVar("amqp://app:var-secret-5@mq/v"))
	checkoutVars()
})
