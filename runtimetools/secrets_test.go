package runtimetools

import (
	"bytes"
	"context"
	"errors"
	"expvar"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// Planted credentials of TestNoPlantedSecretReachesAnyAnswer, one per
// place a process keeps them. Each is distinct; none is shown by any tool.
const (
	jwtMarker   = "eyJzdWIiOiJ6cXgzOSJ9" // the payload of plantedJWT
	plantedJWT  = "eyJhbGciOiJIUzI1NiJ9." + jwtMarker + ".c2lnenF4Mzk"
	plantedRand = "Zq7vK2pX9mR4tW8yB3nL6hD1fG5jS0cA" // a random API key
)

// plantArgs is a command line with a credential after each kind of flag.
func plantArgs(prog string) []string {
	return []string{prog,
		"-api-key", "-zqx01", // a value that starts with '-'
		"-token", "-zqx02",
		"-auth", "zqx03",
		"-pass=zqx04",
		"-pwd", "zqx05",
		"--session=zqx06",
		"--callback=https://h/cb?access_token=zqx07&x=1",
		"-upstream", "https://bob:zqx08@h/x",
		"-header", "Authorization: Basic zqx09",
		"-note", "signed " + plantedJWT,
		"-addr", ":8080", "-v",
	}
}

// plantBuildInfo is the process's build information with credentials in
// -ldflags (-X) and cgo flags.
func plantBuildInfo(t *testing.T) *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information")
	}
	cp := *bi
	cp.Settings = append([]debug.BuildSetting{
		{Key: "-ldflags", Value: "-s -X main.dbPass=zqx11 -X main.endpoint=zqx12 -X main.version=1.2.3"},
		{Key: "CGO_CFLAGS", Value: "-O2 -DAPI_TOKEN=zqx13"},
	}, bi.Settings...)
	return &cp
}

// plantLogs logs a credential in every place a record carries one.
func plantLogs(logger *slog.Logger) {
	logger.Info("keys", "user", "visible-user", "pass", "zqx20", "pwd", "zqx21", "auth", "zqx22", "session", "zqx23",
		"jwt", "zqx24", "bearer", "zqx25", "otp", "zqx26", "pin", "zqx27", "private", "zqx28", "sig", "zqx29")
	logger.Info("groups", slog.Group("db", slog.String("host", "db1"), slog.String("pass", "zqx30")))
	logger.WithGroup("req").Info("grouped", "session", "zqx31")
	logger.Info("headers", "headers", http.Header{"Authorization": {"Bearer zqx32"}, "Cookie": {"sid=zqx33"},
		"Set-Cookie": {"id=zqx34; HttpOnly"}, "Accept": {"text/html"}})
	logger.Info("config", "cfg", map[string]any{"db": map[string]any{"host": "db1", "password": "zqx35"}})
	logger.Info("struct", "conf", struct {
		User   string
		APIKey string
	}{"visible-user", "zqx36"})
	logger.Info("url", "url", "GET https://api/x?api_key=zqx37&y=2")
	logger.Info("calling upstream with Basic zqx38 now")
	logger.Info("token in text " + plantedJWT)
	logger.Info("key in text " + plantedRand + " end")
	logger.Error("failed", "err", errors.New("connect: password=zqx40 rejected"))
	logger.Warn("dial postgres://app:zqx41@db failed")
}

// plantVars publishes expvar variables with credentials at every depth.
func plantVars() []string {
	names := []string{"rt_planted_map", "rt_planted_json", "rt_planted_nested", "rt_planted_url", "rt_planted_func"}
	if expvar.Get(names[0]) != nil {
		return names // published by an earlier run (-count)
	}
	m := expvar.NewMap(names[0])
	m.Set("pass", stringVar("zqx50"))
	m.Add("requests", 7)
	expvar.NewString(names[1]).Set(`{"user":"visible-user","secret":"zqx51"}`)
	inner := new(expvar.Map).Init()
	inner.Set("pwd", stringVar("zqx52"))
	outer := expvar.NewMap(names[2])
	outer.Set("db", inner)
	expvar.NewString(names[3]).Set("https://u:zqx53@h/x")
	expvar.Publish(names[4], expvar.Func(func() any {
		return map[string]any{"x": map[string]any{"token": "zqx54"}, "inner": `{"apiKey":"zqx55"}`}
	}))
	return names
}

// plantHealth registers checks whose errors carry credentials.
func plantHealth(t *testing.T) *Health {
	h := newHealth(t, nil)
	must(t, h.Add("db", func(context.Context) error { return errors.New("connect failed: password=zqx60 host=db") }))
	must(t, h.Add("cache", func(context.Context) error { panic("token=zqx61") }))
	must(t, h.Add("api", func(context.Context) error { return errors.New("GET https://h/?access_token=zqx62: 401") }))
	return h
}

// TestNoPlantedSecretReachesAnyAnswer plants a distinct credential in each
// place the process keeps one (the command line, the build information,
// slog records through the LogRing, expvar variables, health checks, pprof
// labels), checks each is really there, and calls every tool with
// arguments that show the most: no answer, the raw profiles uncompressed
// included, holds any of them.
func TestNoPlantedSecretReachesAnyAnswer(t *testing.T) {
	args := os.Args
	os.Args = plantArgs(args[0])
	t.Cleanup(func() { os.Args = args })
	bi := plantBuildInfo(t)
	var host bytes.Buffer
	logs := newLogs(t, slog.NewJSONHandler(&host, nil), nil)
	plantLogs(slog.New(logs))
	varNames := plantVars()
	health := plantHealth(t)
	release, labelled := make(chan struct{}), make(chan struct{})
	go pprof.Do(context.Background(), pprof.Labels("session_id", "zqx70", "upstream", "http://u:zqx71@h", "note", "Bearer zqx72"),
		func(context.Context) {
			close(labelled)
			<-release
		})
	<-labelled
	t.Cleanup(func() { close(release) })

	var markers []string
	for _, span := range [][2]int{{1, 9}, {11, 13}, {20, 38}, {40, 41}, {50, 55}, {60, 62}, {70, 72}} {
		for i := span[0]; i <= span[1]; i++ {
			markers = append(markers, fmt.Sprintf("zqx%02d", i))
		}
	}
	markers = append(markers, jwtMarker, plantedRand)

	// Every marker is really where it was planted.
	var planted strings.Builder
	planted.WriteString(strings.Join(os.Args, " "))
	planted.WriteString(expvar.Get("cmdline").String())
	for _, s := range bi.Settings {
		planted.WriteString(s.Value)
	}
	planted.WriteString(host.String())
	for _, n := range varNames {
		planted.WriteString(expvar.Get(n).String())
	}
	planted.WriteString("connect failed: password=zqx60 token=zqx61 access_token=zqx62") // the checks' own text
	var goroutines bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&goroutines, 1); err != nil {
		t.Fatal(err)
	}
	planted.WriteString(goroutines.String())
	for _, m := range markers {
		if !strings.Contains(planted.String(), m) {
			t.Errorf("%s was not planted", m)
		}
	}

	ts := mcp.NewToolSet()
	must(t, registerViews(ts))
	tl, err := tools(&Options{Logs: logs, Health: health, Vars: expvarVars}, func(s *state) {
		s.buildInfo = func() (*debug.BuildInfo, bool) { return bi, true }
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Register(tl...); err != nil {
		t.Fatal(err)
	}
	c := mcptest.NewClient(t, mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), &mcptest.ClientOptions{Caller: mcptest.Caller("oncall", allGrants...)})
	everyVar := append([]string{"cmdline", "memstats"}, varNames...)
	var answers strings.Builder
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{GoroutinesToolName, map[string]any{}},
		{GoroutinesToolName, map[string]any{"states": true, "limit": 100}},
		{GoroutinesToolName, map[string]any{"function": "TestNoPlantedSecret"}},
		{MetricsToolName, map[string]any{}},
		{ProfileToolName, map[string]any{"kind": "goroutine", "top": 50}},
		{ProfileToolName, map[string]any{"kind": "heap"}},
		{ProfileToolName, map[string]any{"kind": "allocs"}},
		{LogsToolName, map[string]any{"limit": 100}},
		{LogsToolName, map[string]any{"contains": "zqx"}},
		{LogsToolName, map[string]any{"level": "error"}},
		{BuildToolName, map[string]any{}},
		{BuildToolName, map[string]any{"module": "pprof"}},
		{VarsToolName, map[string]any{}},
		{VarsToolName, map[string]any{"names": everyVar}},
		{HealthToolName, map[string]any{}},
	} {
		res, err := c.CallTool(tc.tool, tc.args)
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %s", tc.tool, tc.args, err, mcptest.ResultText(res))
		}
		all := resultJSON(t, res)
		answers.WriteString(all)
		for _, m := range markers {
			if strings.Contains(all, m) {
				i := strings.Index(all, m)
				t.Errorf("%s %v shows %s: …%s…", tc.tool, tc.args, m, all[max(0, i-80):min(len(all), i+40)])
			}
		}
	}
	// The answers are not empty: what is not secret is shown.
	for _, want := range []string{"visible-user", "main.version=1.2.3", "requests", "db1", "text/html", "-addr", ":8080",
		"connect failed: password=[REDACTED]", "https://u:[REDACTED]@h/x", "session_id"} {
		if !strings.Contains(answers.String(), want) {
			t.Errorf("no answer shows %q", want)
		}
	}
}
