package runtimetools

import "testing"

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
