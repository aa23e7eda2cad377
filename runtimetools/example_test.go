package runtimetools_test

import (
	"context"
	"encoding/json"
	"errors"
	"expvar"
	"fmt"
	"io"
	"log"
	"log/slog"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/runtimetools"
)

// Register adds the runtime tools to a ToolSet: four always, runtime_logs
// with a LogRing, runtime_health with a Health and runtime_vars with the
// host's variables (here the process's expvar variables). Each needs its
// permission: a CPU profile costs CPU, and logs may hold personal data.
func ExampleRegister() {
	logs, err := runtimetools.NewLogRing(nil, nil) // nil: keep records only; a host wraps its own handler
	if err != nil {
		log.Fatal(err)
	}
	health, err := runtimetools.NewHealth(nil)
	if err != nil {
		log.Fatal(err)
	}
	tools := mcp.NewToolSet()
	vars := func(f func(string, fmt.Stringer)) {
		expvar.Do(func(kv expvar.KeyValue) { f(kv.Key, kv.Value) })
	}
	if err := runtimetools.Register(tools, &runtimetools.Options{Logs: logs, Health: health, Vars: vars}); err != nil {
		log.Fatal(err)
	}
	for tool := range tools.All() {
		fmt.Println(tool.Info().Name, tool.Info().Permission)
	}
	// Output:
	// runtime_build diagnostics.runtime.read
	// runtime_goroutines diagnostics.runtime.read
	// runtime_health diagnostics.runtime.read
	// runtime_logs diagnostics.logs.read
	// runtime_metrics diagnostics.runtime.read
	// runtime_profile diagnostics.runtime.profile
	// runtime_vars diagnostics.runtime.read
}

// A LogRing wraps the host's slog.Handler: every record still goes there,
// and the recent ones are kept for runtime_logs, with the values of
// secret-looking keys redacted before they are stored.
func ExampleNewLogRing() {
	logs, err := runtimetools.NewLogRing(slog.NewJSONHandler(io.Discard, nil), nil) // e.g. os.Stderr
	if err != nil {
		log.Fatal(err)
	}
	logger := slog.New(logs) // or slog.SetDefault(slog.New(logs))
	logger.Info("login", "user", "ada", "password", "hunter2")

	tools := mcp.NewToolSet()
	if err := runtimetools.Register(tools, &runtimetools.Options{Logs: logs}); err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(tools, mcp.GrantsAuthorizer{}, nil)
	oncall := mcp.Caller{Principal: "oncall", Grants: []string{runtimetools.PermissionLogs}}
	res, err := server.CallTool(context.Background(), mcp.NewRequest(oncall, runtimetools.LogsToolName, nil))
	if err != nil {
		log.Fatal(err)
	}
	var answer struct {
		Records []struct {
			Message string            `json:"message"`
			Attrs   map[string]string `json:"attrs"`
		} `json:"records"`
	}
	raw, err := json.Marshal(res.StructuredContent) // the text content is for models to read
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		log.Fatal(err)
	}
	for _, r := range answer.Records {
		fmt.Println(r.Message, r.Attrs["user"], r.Attrs["password"])
	}
	// Output:
	// login ada [REDACTED]
}

// A Health runs the host's checks concurrently, each under a timeout, for
// runtime_health (or the host's own health endpoint).
func ExampleHealth_Run() {
	health, err := runtimetools.NewHealth(nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := health.Add("db", func(ctx context.Context) error { return nil }); err != nil { // e.g. db.PingContext(ctx)
		log.Fatal(err)
	}
	if err := health.Add("queue", func(ctx context.Context) error { return errors.New("no consumer") }); err != nil {
		log.Fatal(err)
	}
	report, err := health.Run(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.Status)
	for _, c := range report.Checks {
		fmt.Printf("%s: %s %q\n", c.Name, c.Status, c.Error)
	}
	// Output:
	// failing
	// db: ok ""
	// queue: failed "no consumer"
}

// A Profiler keeps short CPU profiles of the recent past, so that
// runtime_profile can answer for a load that is over:
// {"kind":"cpu","window":"10m"}, or "14:05", compared with another window.
func ExampleNewProfiler() {
	prof, err := runtimetools.NewProfiler(nil) // 10 s a minute, the last hour
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go prof.Run(ctx)
	tools := mcp.NewToolSet()
	if err := runtimetools.Register(tools, &runtimetools.Options{Continuous: prof}); err != nil {
		log.Fatal(err)
	}
}
