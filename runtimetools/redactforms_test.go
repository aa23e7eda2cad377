package runtimetools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// textForms are secrets in free text in the encodings that used to defeat
// the patterns: the value on the line after its name (YAML, INI, .env,
// CRLF), percent-encoding (once and twice, a query-escaped DSN), JSON
// inside JSON strings, and both together. %s is where the secret goes.
var textForms = []struct{ name, text string }{
	{"next line", "password=\n%s"},
	{"next line, spaces", "api_key =  \n   %s"},
	{"YAML", "db:\n  host: db1\n  password:\n    %s\n  port: 5432"},
	{"YAML block", "credentials:\n  value: %s\nhost: db1"},
	{"YAML, CRLF", "token:\r\n  %s\r\nhost: db1"},
	{"INI", "[db]\nhost=db1\npassword=\n%s\n"},
	{".env", "HOST=db1\nDB_PASSWORD=\n%s\n"},
	{"percent", "password%%3D%s"},
	{"percent, lower case", "GET /cb?q=token%%3d%s&x=1"},
	{"percent, twice", "next=%%2Fcb%%3Fpassword%%253D%s"},
	{"percent DSN", "dsn=postgres%%3A%%2F%%2Fapp%%3A%s%%40db%%2Fx"},
	{"JSON in a JSON string", `{"cfg":"{\"password\":\"%s\"}"}`},
	{"JSON in JSON in a JSON string", `{"a":"{\"b\":\"{\\\"token\\\":\\\"%s\\\"}\"}"}`},
	{"escaped JSON after text", `upstream said: {\"secret\":\"%s\"}`},
	{"percent in a JSON string", `{"q":"password%%3D%s"}`},
	{"YAML in a JSON string", `{"dump":"password:\n  %s"}`},
}

// TestRedactionForms plants a distinct secret in every form of textForms
// in each channel the tools show text from (a log message, a logged
// string, a health check's error, an expvar string, a command-line
// argument), secrets under groups opened with Logger.WithGroup and
// With, and secrets on the command line after "--": no answer shows any
// of them, and what is not secret (db1) is still shown.
func TestRedactionForms(t *testing.T) {
	type planted struct{ channel, form, marker string }
	var all []planted
	mark := func(channel, form string) string {
		m := fmt.Sprintf("zqy%c%02d", channel[0], len(all))
		all = append(all, planted{channel, form, m})
		return m
	}
	logs := newLogs(t, nil, nil)
	logger := slog.New(logs)
	health := newHealth(t, nil)
	var vars []namedVar
	args := []string{"prog", "-addr", ":8080"}
	for i, f := range textForms {
		logger.Info(fmt.Sprintf(f.text, mark("message", f.name)))
		logger.Info("detail "+f.name, "detail", fmt.Sprintf(f.text, mark("logged string", f.name)))
		text := fmt.Sprintf(f.text, mark("health", f.name))
		must(t, health.Add(fmt.Sprintf("check%02d", i), func(context.Context) error { return errors.New(text) }))
		vars = append(vars, namedVar{fmt.Sprintf("form%02d", i), stringVar(fmt.Sprintf(f.text, mark("expvar", f.name)))})
		args = append(args, "-note", fmt.Sprintf(f.text, mark("command line", f.name)))
	}
	// Groups opened on the logger, treated like slog.Group.
	logger.WithGroup("auth").Info("grouped 1", "value", mark("group", "WithGroup"))
	logger.WithGroup("credentials").With("value", mark("group", "WithGroup then With")).Info("grouped 2")
	logger.With("user", "ada").WithGroup("auth").WithGroup("inner").Info("grouped 3", "value", mark("group", "nested WithGroup"))
	logger.WithGroup("auth").With(slog.Group("g", "value", mark("group", "With a Group under WithGroup"))).Info("grouped 4")
	logger.With(slog.Group("auth", "value", mark("group", "With a Group"))).Info("grouped 5")
	logger.WithGroup("request").Info("grouped 6", "host", "db1")
	// Flags after "--".
	args = append(args, "--", "--client-secret", mark("command line", "flag after --"))
	args = append(args, "-token="+mark("command line", "flag=value after --"))
	args = append(args, "-client-secret", "--", mark("command line", "value after -- after a flag"))
	vars = append(vars, namedVar{"cmdline", argsVar(args)})

	ts := mcp.NewToolSet()
	tl, err := Tools(&Options{Logs: logs, Health: health, Vars: func(f func(string, fmt.Stringer)) {
		for _, v := range vars {
			f(v.name, v.value)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	must(t, registerViews(ts))
	must(t, ts.Register(tl...))
	c := mcptest.NewClient(t, mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), &mcptest.ClientOptions{Caller: mcptest.Caller("oncall", allGrants...)})
	var names []string
	for _, v := range vars {
		names = append(names, v.name)
	}
	var answers strings.Builder
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{LogsToolName, map[string]any{"limit": 200}},
		{HealthToolName, map[string]any{}},
		{VarsToolName, map[string]any{"names": names}},
	} {
		res, err := c.CallTool(tc.tool, tc.args)
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %s", tc.tool, tc.args, err, mcptest.ResultText(res))
		}
		answers.WriteString(resultJSON(t, res))
	}
	out := answers.String()
	for _, p := range all {
		if i := strings.Index(out, p.marker); i >= 0 {
			t.Errorf("%s, %s: shown: …%s…", p.channel, p.form, out[max(0, i-60):min(len(out), i+20)])
		}
	}
	for _, want := range []string{"db1", ":8080", "ada", "-client-secret"} {
		if !strings.Contains(out, want) {
			t.Errorf("no answer shows %q", want)
		}
	}
}

// argsVar is an expvar value whose String is the JSON of a command line.
type argsVar []string

func (v argsVar) String() string { b, _ := json.Marshal([]string(v)); return string(b) }
