package mcp_test

// Results are capped while they are encoded, and parsing costs about the
// body in memory: what one request costs stays near its bounds, whatever
// the tool returns or the client sends.

import (
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// allocated returns the bytes allocated while f runs (run alone: the
// count is the process's).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestResultCapWhileEncoding: a tool returning 200 MiB (one text block,
// or 51 200 blocks of 4 KiB) gets its isError result naming the cap, and
// answering it allocates at most three times the cap (4 MiB) and 1 MiB:
// the encoding stops at the cap (before, it grew past 400 MiB).
func TestResultCapWhileEncoding(t *testing.T) {
	const size = 200 << 20
	one := []mcp.Content{mcp.TextContent(strings.Repeat("x", size))}
	block := mcp.TextContent(strings.Repeat("y", 4096))
	many := make([]mcp.Content, size/4096)
	for i := range many {
		many[i] = block
	}
	ts := mcp.NewToolSet()
	hostileMust(t, ts.Register(
		mcp.NewRawTool(mcp.ToolInfo{Name: "one", Description: "200 MiB in one block."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { return &mcp.Result{Content: one}, nil }),
		mcp.NewRawTool(mcp.ToolInfo{Name: "many", Description: "200 MiB in 4 KiB blocks."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { return &mcp.Result{Content: many}, nil }),
	))
	s := mcp.NewServer(ts, mcp.AllowAll(), nil)
	const limit = 4 << 20 // the default MaxResultBytes
	for _, tool := range []string{"one", "many"} {
		var resp []byte
		n := allocated(func() { _, resp = s.Handle(context.Background(), mcp.Caller{}, []byte(callBody("1", tool))) })
		t.Logf("%s: a 200 MiB result answered with %d bytes, allocating %d KiB (cap %d KiB)", tool, len(resp), n>>10, limit>>10)
		var r struct {
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(resp, &r); err != nil || !r.Result.IsError || len(r.Result.Content) != 1 ||
			!strings.Contains(r.Result.Content[0].Text, "MaxResultBytes") || !strings.Contains(r.Result.Content[0].Text, "4194304") {
			t.Fatalf("%s: want the cap's isError result, got %.300s", tool, resp)
		}
		if n > 3*limit+1<<20 {
			t.Errorf("%s: answering a 200 MiB result allocated %d MiB, want at most 3 × the cap + 1 MiB", tool, n>>20)
		}
	}
	runtime.KeepAlive(one)
	runtime.KeepAlive(many)
}

// manyValues is a tools/call of "sink" whose arguments hold about n small
// numbers, 256 to an array, arrays 256 to an array.
func manyValues(n int) []byte {
	inner := "[" + strings.Repeat("1,", 255) + "1]"
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sink","arguments":{"v":[`)
	arrays := n / 256
	for g := 0; g*256 < arrays; g++ {
		if g > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for i := g * 256; i < min(arrays, (g+1)*256); i++ {
			if i > g*256 {
				b.WriteByte(',')
			}
			b.WriteString(inner)
		}
		b.WriteByte(']')
	}
	b.WriteString(`]}}}`)
	return []byte(b.String())
}

func sinkServer(t testing.TB, opts *mcp.Options) *mcp.Server {
	ts := mcp.NewToolSet()
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "sink", Description: "Takes anything."},
		func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("ok"), nil })); err != nil {
		t.Fatal(err)
	}
	return mcp.NewServer(ts, mcp.AllowAll(), opts)
}

// TestParseCostBounded: a 4 MiB body of two million small values (inside
// every other bound) is refused by Limits.MaxValues, having cost less than
// twice its size (2 MiB, where it cost 57 MiB); a body just under the
// bound is answered, costing at most 4 MiB.
func TestParseCostBounded(t *testing.T) {
	s := sinkServer(t, nil)
	for i, tc := range []struct {
		values int
		ok     bool
	}{{2_000_000, false}, {mcp.DefaultLimits().MaxValues - 4096, true}} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			body := manyValues(tc.values)
			var resp []byte
			n := allocated(func() { _, resp = s.Handle(context.Background(), mcp.Caller{}, body) })
			t.Logf("%d values in %d KiB: allocated %d KiB (%.2f × the body): %.120s", tc.values, len(body)>>10, n>>10,
				float64(n)/float64(len(body)), resp)
			if answered := strings.Contains(string(resp), `"ok"`); answered != tc.ok {
				t.Errorf("%d values: answered %v, want %v: %.300s", tc.values, answered, tc.ok, resp)
			}
			if !tc.ok && (!strings.Contains(string(resp), "values") || n > 2*uint64(len(body))) {
				t.Errorf("%d values: %d bytes allocated for a %d-byte body, want at most 2×, and an error naming the bound: %.300s",
					tc.values, n, len(body), resp)
			}
			if tc.ok && n > 4<<20 {
				t.Errorf("%d values: %d MiB allocated, want at most 4", tc.values, n>>20)
			}
		})
	}
}

// BenchmarkParseAmplification reports the bytes allocated per byte of
// body of a tools/call carrying small values: two million of them in 4 MiB
// (refused at Limits.MaxValues), just under that bound (answered), and,
// for comparison, two million without the bound (what each value costs).
func BenchmarkParseAmplification(b *testing.B) {
	bounded := sinkServer(b, nil)
	unbounded := sinkServer(b, &mcp.Options{Limits: mcp.Limits{MaxValues: 1 << 30}})
	for _, tc := range []struct {
		name   string
		s      *mcp.Server
		values int
	}{{"2M-values-4MiB", bounded, 2_000_000}, {"under-MaxValues", bounded, mcp.DefaultLimits().MaxValues - 4096},
		{"2M-values-no-MaxValues", unbounded, 2_000_000}} {
		s := tc.s
		body := manyValues(tc.values)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			for b.Loop() {
				s.Handle(context.Background(), mcp.Caller{}, body)
			}
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/float64(len(body)), "alloc/body-byte")
		})
	}
}
