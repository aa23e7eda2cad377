package runtimetools

import (
	"log/slog"
	"strings"
	"testing"
)

func TestShortFile(t *testing.T) {
	for _, c := range []struct{ fn, file, want string }{
		{"github.com/embedmcp/mcp/runtimetools.burnCPU", "/work/x/runtimetools/profile_test.go", "github.com/embedmcp/mcp/runtimetools/profile_test.go"},
		{"net/http.(*conn).serve", "/usr/local/go/src/net/http/server.go", "net/http/server.go"},
		{"gopkg.in/yaml%2ev3.Unmarshal", "/root/go/pkg/mod/gopkg.in/yaml.v3@v3.0.1/yaml.go", "gopkg.in/yaml.v3/yaml.go"},
		{"golang.org/x/net/http2.(*Framer).ReadFrame", "/root/go/pkg/mod/golang.org/x/net@v0.30.0/http2/frame.go", "golang.org/x/net/http2/frame.go"},
		{"example.com/app.handler.func1", "/home/ci/build/app/main.go", "example.com/app/main.go"},
		{"example.com/app/internal/store.(*DB).Get", "/srv/src/internal/store/db.go", "example.com/app/internal/store/db.go"},
		{"weird", "/a/b/c.go", "b/c.go"},
		{"internal/poll.runtime_pollWait", "/usr/local/go/src/runtime/netpoll.go", "runtime/netpoll.go"},
		{"github.com/embedmcp/mcp.compileTool", "/work/wt/diag/toolcache.go", "github.com/embedmcp/mcp/toolcache.go"},
		{"example.com/app.F", "example.com/app/f.go", "example.com/app/f.go"},
		{"example.com/app.F", "", ""},
	} {
		if got := shortFile(c.fn, c.file); got != c.want {
			t.Errorf("shortFile(%q, %q) = %q, want %q", c.fn, c.file, got, c.want)
		}
	}
}

func TestGrowing(t *testing.T) {
	for _, c := range []struct {
		series []int
		want   bool
	}{
		{[]int{265, 390, 536}, true},
		{[]int{3, 4, 4}, false},
		{[]int{0, 0, 1}, false},
		{[]int{1, 2}, false},
		{[]int{10, 12, 14, 13}, false},
		{[]int{10, 12, 12, 14, 16, 18}, true},
		{[]int{10, 10, 10, 10, 10, 18}, false},
	} {
		if got := growing(c.series); got != c.want {
			t.Errorf("growing(%v) = %v, want %v", c.series, got, c.want)
		}
	}
}

// TestStructuredFilesNotAbsolute: the structured content of the goroutine,
// profile and log tools names files as the text does (import path and
// file name), never by the build machine's absolute path.
func TestStructuredFilesNotAbsolute(t *testing.T) {
	logs := newLogs(t, nil, nil)
	slog.New(logs).Warn("disk almost full")
	c := newTestClient(t, &Options{Logs: logs})
	for _, tc := range []struct {
		tool string
		args any
	}{
		{"runtime_goroutines", map[string]any{}},
		{"runtime_profile", map[string]any{"kind": "goroutine"}},
		{"runtime_logs", map[string]any{}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			out := call[map[string]any](t, c, tc.tool, tc.args)
			files := 0
			var walk func(v any)
			walk = func(v any) {
				switch v := v.(type) {
				case map[string]any:
					for k, x := range v {
						if s, ok := x.(string); ok && k == "file" {
							files++
							if strings.HasPrefix(s, "/") || (len(s) > 2 && s[1] == ':') {
								t.Errorf("%s: file %q is an absolute path", tc.tool, s)
							}
						}
						walk(x)
					}
				case []any:
					for _, x := range v {
						walk(x)
					}
				}
			}
			walk(out)
			if files == 0 {
				t.Fatalf("%s: no file in the structured content: %v", tc.tool, out)
			}
		})
	}
}
