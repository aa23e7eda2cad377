package runtimetools

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
	"github.com/google/pprof/profile"
)

// burnCPU is the CPU burner the CPU profile must find.
//
//go:noinline
func burnCPU(stop <-chan struct{}) (x float64) {
	for {
		select {
		case <-stop:
			return x
		default:
		}
		for i := range 100000 {
			x += math.Sqrt(float64(i))
		}
	}
}

// allocSink makes allocate's allocations escape to the heap.
var allocSink []byte

// allocate allocates steadily until stop.
//
//go:noinline
func allocate(stop <-chan struct{}) (n int) {
	for {
		select {
		case <-stop:
			return n
		default:
		}
		for range 64 {
			allocSink = make([]byte, 4096)
			n += len(allocSink)
		}
		runtime.Gosched()
	}
}

// runUntilCleanup runs fn in a goroutine until the test ends.
func runUntilCleanup[T any](t *testing.T, fn func(<-chan struct{}) T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { fn(stop) })
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
	})
}

func TestCPUProfileFindsBurner(t *testing.T) {
	runUntilCleanup(t, burnCPU)
	c := newTestClient(t, nil)
	res, err := c.CallTool(ProfileToolName, map[string]any{"kind": "cpu", "seconds": 1, "top": 5, "raw": true})
	if err != nil || res.IsError {
		t.Fatalf("cpu profile: %v %s", err, mcptest.ResultText(res))
	}
	var got profileResult
	raw, _ := res.StructuredContent.(json.RawMessage)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if !inTop(got.Top, "runtimetools.burnCPU") {
		t.Errorf("burnCPU not in the top 5: %+v", got.Top)
	}
	if got.Kind != "cpu" || got.Sample != "cpu" || got.Unit != "nanoseconds" || got.Total <= 0 || got.Seconds != 1 {
		t.Errorf("answer = %+v", got)
	}
	if len(res.Content) != 2 || res.Content[1].Type != mcp.ContentResource {
		t.Fatalf("content = %d blocks, want text and an embedded resource", len(res.Content))
	}
	r := res.Content[1].Resource
	if r.MIMEType != "application/vnd.google.protobuf" || len(r.Blob) != got.Bytes || !got.Embedded || r.URI != got.URI {
		t.Fatalf("resource %s %s, %d bytes; answer %+v", r.URI, r.MIMEType, len(r.Blob), got)
	}
	p, err := profile.ParseData(r.Blob)
	if err != nil {
		t.Fatalf("the embedded profile does not parse: %v", err)
	}
	if p.SampleType[len(p.SampleType)-1].Type != "cpu" || len(p.Sample) == 0 {
		t.Errorf("parsed profile: %v, %d samples", p.SampleType, len(p.Sample))
	}
	pprofOpens(t, r.Blob, "burnCPU")
}

// pprofOpens checks that go tool pprof opens a profile and shows want.
func pprofOpens(t *testing.T, blob []byte, want string) {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run go tool pprof")
	}
	file := filepath.Join(t.TempDir(), "profile.pb.gz")
	if err := os.WriteFile(file, blob, 0o666); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goCmd, "tool", "pprof", "-top", "-nodecount=20", file).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), want) {
		t.Errorf("go tool pprof -top does not show %s:\n%s", want, out)
	}
}

func inTop(top []topFunction, id string) bool {
	for _, f := range top {
		if strings.Contains(f.ID, id) {
			return true
		}
	}
	return false
}

func TestConcurrentCPUProfilesOneRuns(t *testing.T) {
	c := newTestClient(t, nil)
	const n = 3
	results := make([]*mcp.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := c.CallTool(ProfileToolName, map[string]any{"kind": "cpu", "seconds": 1})
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		})
	}
	wg.Wait()
	ran := 0
	for _, res := range results {
		if res == nil {
			continue
		}
		if !res.IsError {
			ran++
			continue
		}
		text := mcptest.ResultText(res)
		_, after, ok := strings.Cut(text, "it ends at ")
		if !strings.HasPrefix(text, "runtimetools: busy: a CPU profile is already running") || !ok {
			t.Errorf("refused with %q, want busy and when the profile ends", text)
			continue
		}
		end, err := time.Parse(time.RFC3339, strings.TrimSuffix(strings.Fields(after)[0], "."))
		if err != nil || time.Until(end) > 3*time.Second {
			t.Errorf("end time in %q: %v", text, err)
		}
	}
	if ran != 1 {
		t.Errorf("%d CPU profiles ran, want exactly 1", ran)
	}
	// Once it ended, the next one runs.
	res, err := c.CallTool(ProfileToolName, map[string]any{"kind": "cpu", "seconds": 1})
	if err != nil || res.IsError {
		t.Errorf("after the first ended: %v %s", err, mcptest.ResultText(res))
	}
}

func TestCPUProfileProgressAndCancel(t *testing.T) {
	srv := newTestServer(t, nil)
	var mu sync.Mutex
	var progress []map[string]any
	first := make(chan struct{})
	ex := &mcp.Exchange{ProtocolVersion: mcp.Version20251125, Notify: func(method string, params json.RawMessage) error {
		if method != "notifications/progress" {
			return nil
		}
		var p map[string]any
		if err := json.Unmarshal(params, &p); err != nil {
			t.Error(err)
		}
		mu.Lock()
		defer mu.Unlock()
		progress = append(progress, p)
		if p["progress"] == 1.0 {
			close(first)
		}
		return nil
	}}
	ctx, cancel := context.WithCancel(mcp.ContextWithExchange(t.Context(), ex))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runtime_profile","arguments":{"kind":"cpu","seconds":30},"_meta":{"progressToken":"tok"}}}`
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		srv.Handle(ctx, mcptest.Caller("oncall", allGrants...), []byte(body))
	}()
	select {
	case <-first:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress after a second of profiling")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the profile did not stop when the request was cancelled")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("returned after %v of a 30 s profile", d)
	}
	mu.Lock()
	if len(progress) < 2 || progress[0]["progress"] != 0.0 || progress[0]["total"] != 30.0 || progress[0]["progressToken"] != "tok" ||
		!strings.Contains(progress[1]["message"].(string), "1 of 30 s") {
		t.Errorf("progress = %v", progress)
	}
	mu.Unlock()
	// The slot and the runtime's profiler are free again.
	c := mcptest.NewClient(t, srv, &mcptest.ClientOptions{Caller: mcptest.Caller("oncall", allGrants...)})
	if res, err := c.CallTool(ProfileToolName, map[string]any{"kind": "cpu", "seconds": 1}); err != nil || res.IsError {
		t.Errorf("a CPU profile after the cancelled one: %v %s", err, mcptest.ResultText(res))
	}
}

func TestAllocsDeltaProfile(t *testing.T) {
	runUntilCleanup(t, allocate)
	c := newTestClient(t, nil)
	res, err := c.CallTool(ProfileToolName, map[string]any{"kind": "allocs", "seconds": 1, "top": 10, "raw": true})
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, mcptest.ResultText(res))
	}
	var got profileResult
	json.Unmarshal(res.StructuredContent.(json.RawMessage), &got)
	if got.Sample != "alloc_space" || got.Unit != "bytes" || !inTop(got.Top, "runtimetools.allocate") {
		t.Errorf("allocs over 1 s: %+v", got)
	}
	p, err := profile.ParseData(res.Content[1].Resource.Blob)
	if err != nil || p.DurationNanos < int64(time.Second) {
		t.Errorf("delta profile: %v, duration %v", err, p)
	}
}

func TestSnapshotProfiles(t *testing.T) {
	c := newTestClient(t, nil)
	for _, kind := range []string{"heap", "allocs", "goroutine", "mutex", "block"} {
		got := call[profileResult](t, c, ProfileToolName, map[string]any{"kind": kind, "top": 3, "raw": true})
		if got.Kind != kind || got.Bytes == 0 || !got.Embedded || len(got.Top) > 3 {
			t.Errorf("%s: %+v", kind, got)
		}
		if kind == "goroutine" && (len(got.Top) == 0 || got.Unit != "count") {
			t.Errorf("goroutine profile: %+v", got)
		}
		if got.Total == 0 && got.Note == "" {
			t.Errorf("%s: an empty profile without a note", kind)
		}
	}
	byCum := call[profileResult](t, c, ProfileToolName, map[string]any{"kind": "goroutine", "sortBy": "cum", "top": 50})
	for i := 1; i < len(byCum.Top); i++ {
		if byCum.Top[i].Cum > byCum.Top[i-1].Cum {
			t.Fatalf("sortBy cum: not sorted: %+v", byCum.Top)
		}
	}
}

func TestProfileTooLargeIsSummarised(t *testing.T) {
	c := newTestClient(t, &Options{MaxProfileBytes: 16})
	res, err := c.CallTool(ProfileToolName, map[string]any{"kind": "goroutine", "raw": true})
	if err != nil || res.IsError {
		t.Fatal(err, mcptest.ResultText(res))
	}
	var got profileResult
	json.Unmarshal(res.StructuredContent.(json.RawMessage), &got)
	if got.Embedded || len(res.Content) != 1 || !strings.Contains(got.Note, "larger than the 16 bytes") {
		t.Errorf("over MaxProfileBytes: %+v, %d blocks", got, len(res.Content))
	}
}

func TestProfileWindowFitsTheCallTimeout(t *testing.T) {
	ts := mcp.NewToolSet()
	must(t, Register(ts, nil))
	srv := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, &mcp.Options{CallTimeout: 5 * time.Second})
	c := mcptest.NewClient(t, srv, &mcptest.ClientOptions{Caller: mcptest.Caller("oncall", allGrants...)})
	text := callError(t, c, ProfileToolName, map[string]any{"kind": "cpu", "seconds": 10})
	if !strings.Contains(text, "must end within 5s: ask for at most 3 seconds (got 10)") {
		t.Errorf("a 10 s profile under a 5 s call timeout: %s", text)
	}
	if res, err := c.CallTool(ProfileToolName, map[string]any{"kind": "heap"}); err != nil || res.IsError {
		t.Errorf("a snapshot needs no window: %v %s", err, mcptest.ResultText(res))
	}
}

func TestNativeSymbols(t *testing.T) {
	for name, want := range map[string]bool{
		"main.main": false, "runtime.futex": false, "net/http.(*conn).serve": false, "gopkg.in/yaml%2ev3.Unmarshal": false,
		"racecall": true, "_ZN6__tsan18MemoryAccessRangeTILb0EEEvPNS_11ThreadStateEmmm": true, "__tsan_read": true,
		"example.com/x.F": false,
	} {
		if got := native(name, "/src/x.go"); got != want {
			t.Errorf("native(%q) = %v, want %v", name, got, want)
		}
	}
	if !native("foo.part.0", "/src/foo.c") {
		t.Error("a C function with a dot in its name")
	}
}
