package mcp

import (
	"context"
	"testing"

	"github.com/embedmcp/mcp/internal/jsonshape"
)

func TestLimitsThroughHandle(t *testing.T) {
	// Through Server.Handle with Options.Limits.
	s, c := newCounterServer(t, &Options{Limits: Limits{MaxDepth: 4, MaxString: 10, MaxMembers: 4}})
	call := func(args string) (int, response) {
		status, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":`+args+`}}`))
		return status, decodeResponse(t, body)
	}
	// The envelope is depth 1, params 2, arguments 3; it has 4 members.
	if status, r := call(`{"a":[1]}`); status != 200 || r.Error != nil {
		t.Errorf("depth 4 under MaxDepth 4: %d %+v", status, r.Error)
	}
	for args, msg := range map[string]string{
		`{"a":[[1]]}`:                     "Parse error: nesting deeper than 4 at /params/arguments/a/0",
		`{"a":"0123456789x"}`:             "Parse error: string longer than 10 bytes at /params/arguments/a",
		`{"a":1,"b":2,"c":3,"d":4,"e":5}`: "Parse error: object with more than 4 members at /params/arguments",
	} {
		status, r := call(args)
		if status != 400 || r.Error == nil || r.Error.Code != -32700 || r.Error.Message != msg {
			t.Errorf("%s: got %d %+v, want 400 -32700 %q", args, status, r.Error, msg)
		}
	}
	if n := c.n.Load(); n != 1 {
		t.Errorf("tool ran %d times, want 1", n)
	}
}

// TestBoundsThroughHandle sends bodies at and one past each bound inside the
// arguments of a tools/call: the first reach the tool, the others never do.
func TestBoundsThroughHandle(t *testing.T) {
	const max = 65536
	wrap := func(args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"x":` + args + `}}}`)
	}
	// The envelope, params and arguments use 3 levels, so x may add 29.
	tests := []struct {
		name string
		args string
		code int // 0: the tool runs
	}{
		{"depth 32", jsonshape.Nest(29), 0},
		{"depth 33", jsonshape.Nest(30), -32700},
		{"string 65536", jsonshape.String(`\u00e9`, max/2), 0},
		{"string 65537", jsonshape.String("é", max/2)[:1+max] + `a"`, -32700},
		{"256 members", jsonshape.Members(256, true), 0},
		{"257 members", jsonshape.Members(257, true), -32700},
		{"256 elements", jsonshape.Members(256, false), 0},
		{"257 elements", jsonshape.Members(257, false), -32700},
		{"number out of range", `1e999`, -32700},
		{"lone surrogate", `"\ud800"`, -32700},
		{"invalid utf-8", "\"\xff\"", -32700},
		{"duplicate", `{"a":1,"a":1}`, -32600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := newCounterServer(t, nil)
			status, body := s.Handle(context.Background(), Caller{}, wrap(tt.args))
			r := decodeResponse(t, body)
			if tt.code == 0 {
				if status != 200 || r.Error != nil || c.n.Load() != 1 {
					t.Fatalf("got %d %s, tool ran %d times; want it to run", status, body, c.n.Load())
				}
				return
			}
			if status != 400 || r.Error == nil || r.Error.Code != tt.code || string(r.ID) != "null" {
				t.Errorf("got %d %s, want 400 %d", status, body, tt.code)
			}
			if c.n.Load() != 0 {
				t.Errorf("a body breaking a bound reached the tool")
			}
		})
	}
}
