package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
)

// FuzzStdioLiveness: whatever mix of listens, calls, cancellations,
// notifications, batches, initializes and garbage arrives, with few slots,
// ServeStdio returns soon after the end of its input, writes only JSON-RPC
// lines, answers no request twice, and answers every request that no
// cancellation names. Each pair of input bytes is one message: a kind and
// an id.
func FuzzStdioLiveness(f *testing.F) {
	var listens64 []byte
	for i := 0; i < 64; i++ {
		listens64 = append(listens64, 0, byte(i))
	}
	f.Add(append(listens64, 1, 64, 3, 0))
	f.Add([]byte{2, 1, 2, 2, 2, 3, 1, 4, 3, 1, 0, 5, 0, 6, 0, 7, 6, 8})
	f.Add([]byte{7, 1, 6, 2, 5, 0, 4, 0, 1, 3})

	p := livenessProtocol(f)
	f.Fuzz(func(t *testing.T, ops []byte) { stdioLiveness(t, p, ops) })
}

// livenessProtocol serves echo and nap (10 ms).
func livenessProtocol(tb testing.TB) mcp.Protocol {
	ts := mcp.NewToolSet()
	type text struct {
		Text string `json:"text"`
	}
	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo."},
		func(_ context.Context, _ *mcp.Request, in text) (text, error) { return in, nil })
	must(tb, err)
	must(tb, ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "nap", Description: "Sleeps 10 ms."},
		func(ctx context.Context, _ *mcp.Request) (*mcp.Result, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Millisecond):
				return mcp.TextResult("rested"), nil
			}
		})))
	return mcp.NewServer(ts, mcp.AllowAll(), nil)
}

// stdioLiveness runs one input of FuzzStdioLiveness.
func stdioLiveness(t *testing.T, p mcp.Protocol, ops []byte) {
	if len(ops) > 512 {
		ops = ops[:512]
	}
	var in bytes.Buffer
	required, possible, cancelled := map[string]int{}, map[string]int{}, map[string]bool{}
	for i := 0; i+1 < len(ops); i += 2 {
		id := fmt.Sprint(ops[i+1] % 32)
		call := func(tool string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"text":"x"}}}`
		}
		switch ops[i] % 8 {
		case 0:
			in.WriteString(stdioListenLine(int(ops[i+1] % 32)))
			required[id]++
		case 1:
			in.WriteString(call("echo"))
			required[id]++
		case 2:
			in.WriteString(call("nap"))
			required[id]++
		case 3:
			in.WriteString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`)
			cancelled[id] = true
		case 4:
			in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		case 5:
			in.WriteString(`{"jsonrpc":` + id)
		case 6:
			in.WriteString("[" + call("echo") + "," + call("nap") + "]")
			possible[id] += 2 // a batch refused whole is answered without ids
		case 7:
			in.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`)
			required[id]++
		}
		in.WriteByte('\n')
	}
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- mcp.ServeStdio(context.Background(), p, mcp.Caller{Principal: "fuzz"}, bytes.NewReader(in.Bytes()), out,
			&mcp.StdioOptions{MaxConcurrent: 2, MaxListens: 2})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("ServeStdio still running 10 s after the end of its input\ninput:\n%s", in.Bytes())
	}
	answers := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var msgs []json.RawMessage
		if strings.HasPrefix(line, "[") {
			must(t, json.Unmarshal([]byte(line), &msgs))
		} else {
			msgs = []json.RawMessage{json.RawMessage(line)}
		}
		for _, m := range msgs {
			var probe struct {
				Method *string `json:"method"`
			}
			if err := json.Unmarshal(m, &probe); err != nil {
				t.Fatalf("output line is not JSON: %q", line)
			}
			if probe.Method == nil {
				answers[string(decodeRPC(t, m).ID)]++
			}
		}
	}
	for id, n := range answers {
		if id == "null" {
			continue
		}
		if n > required[id]+possible[id] {
			t.Fatalf("id %s answered %d times for %d requests\ninput:\n%s\noutput:\n%s", id, n, required[id]+possible[id], in.Bytes(), out)
		}
	}
	for id, n := range required {
		if !cancelled[id] && answers[id] < n {
			t.Fatalf("id %s answered %d times for %d requests and no cancellation\ninput:\n%s\noutput:\n%s", id, answers[id], n, in.Bytes(), out)
		}
	}
}
