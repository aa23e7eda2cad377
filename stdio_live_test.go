package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

// stdioListenLine is a 2026-07-28 subscriptions/listen request with id.
func stdioListenLine(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id)
}

// stdioAnswers splits ServeStdio's output into the final answers by id
// (notifications left out), checking every line is one JSON-RPC message.
func stdioAnswers(t *testing.T, out string) map[string][]mcptest.Response {
	t.Helper()
	answers := map[string][]mcptest.Response{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var probe struct {
			Method *string `json:"method"`
		}
		if err := json.Unmarshal([]byte(line), &probe); err != nil {
			t.Fatalf("output line is not JSON: %q", line)
		}
		if probe.Method != nil {
			continue
		}
		r := decodeRPC(t, []byte(line))
		answers[string(r.ID)] = append(answers[string(r.ID)], r)
	}
	return answers
}

// TestStdio64Listens: 64 listens, an echo, a cancellation and the end of
// the input. ServeStdio must see all of them: the echo is answered, every
// listen gets exactly one answer (its completion result, or a refusal
// naming the limit), the cancelled one none, and it returns promptly.
func TestStdio64Listens(t *testing.T) {
	p, _ := testProtocol(t, nil)
	var in strings.Builder
	for i := 1; i <= 64; i++ {
		in.WriteString(stdioListenLine(i) + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":1000,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after 64 listens"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}` + "\n")

	out := &syncBuffer{}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- mcp.ServeStdio(context.Background(), p, mcp.Caller{Principal: "local"}, strings.NewReader(in.String()), out, nil)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("ServeStdio still running 10 s after the end of its input; output so far:\n%.2000s", out.String())
	}
	t.Logf("64 listens, an echo, a cancellation, EOF: ServeStdio returned after %v", time.Since(start))
	answers := stdioAnswers(t, out.String())
	if a := answers["1000"]; len(a) != 1 || !strings.Contains(string(a[0].Result), "after 64 listens") {
		t.Fatalf("echo answered %+v", a)
	}
	refused := 0
	for i := 2; i <= 64; i++ {
		a := answers[fmt.Sprint(i)]
		switch {
		case len(a) != 1:
			t.Fatalf("listen %d answered %d times", i, len(a))
		case a[0].Error != nil:
			if a[0].Error.Code != mcp.CodeLimitExceeded || !strings.Contains(a[0].Error.Message, "MaxListens") {
				t.Fatalf("listen %d refused with %+v", i, *a[0].Error)
			}
			refused++
		case !strings.Contains(string(a[0].Result), `"resultType":"complete"`):
			t.Fatalf("listen %d: %s", i, a[0].Result)
		}
	}
	if len(answers["1"]) > 1 {
		t.Fatalf("the cancelled listen was answered %d times", len(answers["1"]))
	}
	t.Logf("%d listens served, %d refused", 63-refused, refused)
}

// TestStdioBusy: with every request slot taken, one more request is
// answered at once with an error naming the limit, and the cancellation
// that frees a slot is still read.
func TestStdioBusy(t *testing.T) {
	p, hk := testProtocol(t, nil)
	c := startStdio(t, p, &mcp.StdioOptions{MaxConcurrent: 2})
	for id := 1; id <= 2; id++ {
		c.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow"}}`, id))
		within(t, "slow to start", (<-chan struct{})(hk.started))
	}
	// next returns the next answer (not a notification) with the given id.
	next := func(id string) mcptest.Response {
		t.Helper()
		for {
			line := c.recv(t)
			if strings.Contains(line, `"method"`) {
				continue
			}
			r := decodeRPC(t, []byte(line))
			if string(r.ID) != id {
				t.Fatalf("answer %s, want id %s", line, id)
			}
			return r
		}
	}
	c.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	if r := next("3"); r.Error == nil || r.Error.Code != mcp.CodeLimitExceeded || !strings.Contains(r.Error.Message, "MaxConcurrent") {
		t.Fatalf("request past the limit: %+v", r)
	}
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	if err := within(t, "the cancellation", (<-chan error)(hk.cancelled)); err == nil {
		t.Fatal("slow was not cancelled")
	}
	close(hk.release)
	if r := next("2"); r.Error != nil {
		t.Fatalf("slow: %+v", r)
	}
	c.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	if r := next("4"); r.Error != nil {
		t.Fatalf("echo once slots are free: %+v", *r.Error)
	}
}
