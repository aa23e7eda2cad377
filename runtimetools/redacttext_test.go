package runtimetools

import (
	"net/http"
	"net/url"
	"testing"
)

func TestRedactText(t *testing.T) {
	for in, want := range map[string]string{
		// Left alone.
		"request served":                           "request served",
		"GET /api/orders/17 200 in 1.2ms":          "GET /api/orders/17 200 in 1.2ms",
		"net/http.(*conn).serve at server.go:2102": "net/http.(*conn).serve at server.go:2102",
		"/usr/local/go/src/runtime/proc.go:402":    "/usr/local/go/src/runtime/proc.go:402",
		"BenchmarkGoroutines100k took 12:30":       "BenchmarkGoroutines100k took 12:30",
		"status=500 user=ada elapsed=3s":           "status=500 user=ada elapsed=3s",
		"1700000000000000000 bytes":                "1700000000000000000 bytes",
		"ServeHTTPWithTimeoutHandlerForRequests":   "ServeHTTPWithTimeoutHandlerForRequests",
		// URL user information.
		"dial postgres://app:hunter2@db:5432/x failed": "dial postgres://app:[REDACTED]@db:5432/x failed",
		// Schemes.
		"Authorization: Basic dXNlcjpwYXNz":   "Authorization: [REDACTED]",
		"sent bearer abc.def-ghi to upstream": "sent bearer [REDACTED] to upstream",
		"with Basic zz9 now":                  "with Basic [REDACTED] now",
		// Assignments, query parameters, JSON.
		"connect: password=hunter2 host=db":        "connect: password=[REDACTED] host=db",
		"https://h/cb?access_token=abc&x=1":        "https://h/cb?access_token=[REDACTED]&x=1",
		"GET /x?api_key=abc#frag":                  "GET /x?api_key=[REDACTED]#frag",
		`{"user":"ada","secret":"s 3"}`:            `{"user":"ada","secret":"[REDACTED]"}`,
		`cfg: {"db": {"pwd": 42}}`:                 `cfg: {"db": {"pwd": [REDACTED]}}`,
		"map[Cookie:[sid=abc] Accept:[text/html]]": "map[Cookie:[[REDACTED]] Accept:[text/html]]",
		"-X main.dbPass=x1":                        "-X main.dbPass=[REDACTED]",
		"DB_PASSWORD = 'a b c' next":               "DB_PASSWORD = '[REDACTED]' next",
		"session: 77 left":                         "session: [REDACTED] left",
		"pin=1234, otp=999999, sig=AbC":            "pin=[REDACTED], otp=[REDACTED], sig=[REDACTED]",
		"redis://:pw@cache:6379 token=x":           "redis://:[REDACTED]@cache:6379 token=[REDACTED]",
		"token=[REDACTED] stays":                   "token=[REDACTED] stays",
		"Authorization: Bearer [REDACTED]":         "Authorization: [REDACTED]",
		"x == y":                                   "x == y",
		// Token shapes.
		"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig_x end": "jwt [REDACTED] end",
		"key Zq7vK2pX9mR4tW8yB3nL6hD1fG5jS0cA end":           "key [REDACTED] end",
		"aws AKIAIOSFODNN7EXAMPLE here":                      "aws [REDACTED] here",
		"gh ghp_abcdefghijklmnopqrstuvwxyz0123456789 x":      "gh [REDACTED] x",
		"sha 3f786850e387550fdab836ed7e6dc881de23001b":       "sha [REDACTED]",
		"id 550e8400-e29b-41d4-a716-446655440000":            "id [REDACTED]",
	} {
		if got := defaultSecrets.redactText(in); got != want {
			t.Errorf("redactText(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

func TestRedactTextAllocatesNothingWhenClean(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	clean := "GET /api/orders/17 served in 1.2ms: status=200 user=ada route=/api/orders/{id}"
	if n := testing.AllocsPerRun(100, func() { defaultSecrets.redactText(clean) }); n != 0 {
		t.Errorf("%v allocations for a string without secrets", n)
	}
}

type config struct {
	Host     string
	Password string
	Token    string `json:"tok"`
	Nested   struct{ APIKey string }
	Upstream *url.URL
	hidden   string
}

func TestAnyText(t *testing.T) {
	u, _ := url.Parse("https://bob:pw1@h/x?access_token=tk2")
	cfg := config{Host: "db", Password: "pw3", Token: "tk4", Upstream: u, hidden: "secret=hid5"}
	cfg.Nested.APIKey = "ak6"
	for _, tc := range []struct {
		v    any
		want string
	}{
		{http.Header{"Authorization": {"Bearer x"}, "Set-Cookie": {"a=b"}, "Accept": {"text/html"}},
			`{"Accept":["text/html"],"Authorization":"[REDACTED]","Set-Cookie":"[REDACTED]"}`},
		{url.Values{"api_key": {"k"}, "q": {"go"}}, `{"api_key":"[REDACTED]","q":["go"]}`},
		{map[string]any{"db": map[string]any{"pass": "p", "host": "h"}}, `{"db":{"host":"h","pass":"[REDACTED]"}}`},
		{&cfg, `{"Host":"db","Nested":{"APIKey":"[REDACTED]"},"Password":"[REDACTED]","Token":"[REDACTED]","Upstream":"https://bob:[REDACTED]@h/x?access_token=[REDACTED]","hidden":"secret=[REDACTED]"}`},
		{[]string{"password=x", "ok"}, `["password=[REDACTED]","ok"]`},
		{[]byte("Bearer abc"), "Bearer [REDACTED]"},
		{42, "42"},
		{nil, "<nil>"},
	} {
		if got := defaultSecrets.anyText(tc.v); got != tc.want {
			t.Errorf("anyText(%T)\n = %s\nwant %s", tc.v, got, tc.want)
		}
	}
	// A cycle ends at the depth bound.
	type node struct {
		Next *node
		Name string
	}
	n := &node{Name: "a"}
	n.Next = n
	if got := defaultSecrets.anyText(n); len(got) > 1000 {
		t.Errorf("a cycle: %d bytes", len(got))
	}
}

func TestRedactArgs(t *testing.T) {
	got := defaultSecrets.redactArgs([]string{"srv", "-api-key", "-Vx9", "-token", "-", "-pass=p", "--session", "s", "-v", "-addr", ":80",
		"-dsn", "postgres://u:pw@h/x", "--", "-token", "operand"})
	want := []string{"srv", "-api-key", Redacted, "-token", Redacted, "-pass=" + Redacted, "--session", Redacted, "-v", "-addr", ":80",
		"-dsn", "postgres://u:[REDACTED]@h/x", "--", "-token", Redacted} // a flag after "--" may still be one: redacted
	if len(got) != len(want) {
		t.Fatalf("redactArgs = %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("redactArgs[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}
