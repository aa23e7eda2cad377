package mcp

// Fuzz targets for everything that reads bytes from a client: the bounded
// JSON parser, Protocol.Handle, the HTTP Handler and the stdio transport.
// Their seeds (fuzzSeeds: one or more bodies of every malformed class) run
// in the normal `go test`; to fuzz for longer, one target at a time:
//
//	go test -run XXX -fuzz FuzzParseLimits -fuzztime 10m .
//	go test -run XXX -fuzz FuzzHandle -fuzztime 10m .
//	go test -run XXX -fuzz FuzzHTTPHandler -fuzztime 10m .
//	go test -run XXX -fuzz FuzzStdio -fuzztime 10m .
//
// A crash is written to testdata/fuzz/<FuzzName>/ and replays in every later
// `go test` run; keep it there once fixed.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/embedmcp/mcp/internal/boundedjson"
	"github.com/embedmcp/mcp/internal/jsonshape"
	"github.com/google/jsonschema-go/jsonschema"
)

// fuzzLimits are small bounds, so that fuzzing reaches every one of them.
var fuzzLimits = Limits{MaxDepth: 6, MaxString: 48, MaxMembers: 6}

// fuzzSeeds returns request bodies of every malformed class, and some valid
// ones to mutate from.
func fuzzSeeds() [][]byte {
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"a":1}}}`
	modern := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	s := []string{
		// valid
		call,
		modern,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":"server/discover"}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		// truncated
		call[:len(call)/2],
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"a":`,
		`{"jsonrpc":"2.0","id":"abc`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"\u12`,
		`[`,
		``,
		// deep
		strings.Repeat("[", 40) + strings.Repeat("]", 40),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":` + strings.Repeat(`{"a":`, 10) + `1` + strings.Repeat(`}`, 10) + `}}`,
		// huge strings
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"s":"` + strings.Repeat("x", 200) + `"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"` + strings.Repeat("k", 100) + `":1}}}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("\\u00e9", 40) + `","method":"ping"}`,
		// wide
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"a":[1,2,3,4,5,6,7,8,9]}}}`,
		// duplicate keys, at the top and at depth
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","name":"other"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"a":{"b":1,"b":2}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"a":1,"\u0061":2}}}`,
		// invalid UTF-8, bad escapes, lone surrogates, control characters
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"count\",\"arguments\":{\"s\":\"\xff\xfe\"}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\",\"method\":\"ping\"}",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"s":"\ud800"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"s":"\udc00\ud800"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"\x"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"a\tb\"}}",
		// NaN-like and out-of-range numbers
		`{"jsonrpc":"2.0","id":NaN,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":Infinity,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-Infinity,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":01,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":+1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":0x10,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1` + strings.Repeat("0", 1100) + `,"method":"ping"}`,
		// batches
		`[` + call + `,{"jsonrpc":"2.0","method":"notifications/x"}]`,
		`[]`,
		`[1,2]`,
		`[` + call + `,` + call + `]`,
		`[[` + call + `]]`,
		`[{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"2.0","method":"notifications/b"}]`,
		// wrong types
		`{"jsonrpc":2.0,"id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":[]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":"1","b":2}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"count"}}`,
		`"just a string"`,
		`null`,
		`42`,
		// wrong versions
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","_meta":{"io.modelcontextprotocol/protocolVersion":5}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		// trailing data, whitespace, BOM
		call + ` {}`,
		"\xef\xbb\xbf" + call,
		" \r\n\t" + call + "\n",
	}
	out := make([][]byte, len(s))
	for i := range s {
		out[i] = []byte(s[i])
	}
	return out
}

// fuzzServer is the Server the Handle, HTTP and stdio targets fuzz: a tool
// "count" that counts its runs and accepts any object, and a typed tool
// "add" whose runs are counted too. Every run of either answers a result
// whose text is "counted:<tool>", so the targets can match runs to answers.
func fuzzServer(tb testing.TB, runs *atomic.Int64) *Server {
	tb.Helper()
	ts := NewToolSet()
	err := ts.Register(NewRawTool(ToolInfo{Name: "count", Description: "counts"},
		func(context.Context, *Request) (*Result, error) {
			runs.Add(1)
			return TextResult("counted:count"), nil
		}))
	if err != nil {
		tb.Fatal(err)
	}
	type addIn struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	err = ts.Register(NewRawTool(ToolInfo{Name: "add", Description: "adds", InputSchema: mustFuzzSchema(tb, `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`)},
		func(_ context.Context, req *Request) (*Result, error) {
			var in addIn
			if err := json.Unmarshal(req.Arguments, &in); err != nil {
				return nil, err
			}
			runs.Add(1)
			return TextResult("counted:add"), nil
		}))
	if err != nil {
		tb.Fatal(err)
	}
	return NewServer(ts, AllowAll(), &Options{Limits: fuzzLimits, CallTimeout: time.Second})
}

func mustFuzzSchema(tb testing.TB, doc string) *jsonschema.Schema {
	tb.Helper()
	s, err := ParseSchema([]byte(doc))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// checkRPCMessage checks one JSON-RPC response object and returns whether
// it is a result produced by a counted tool run.
func checkRPCMessage(t *testing.T, raw json.RawMessage, whole []byte) (counted bool) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("response element is not an object: %v\n%s", err, whole)
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		t.Fatalf("response without jsonrpc 2.0: %s", whole)
	}
	_, hasRes := m["result"]
	_, hasErr := m["error"]
	if hasRes == hasErr {
		t.Fatalf("response must have exactly one of result and error: %s", whole)
	}
	if _, ok := m["id"]; !ok {
		t.Fatalf("response without id: %s", whole)
	}
	if hasErr {
		var e struct {
			Code    *int    `json:"code"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(m["error"], &e); err != nil || e.Code == nil || e.Message == nil {
			t.Fatalf("error member without integer code and string message: %s", whole)
		}
		return false
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(m["result"], &res)
	return len(res.Content) == 1 && strings.HasPrefix(res.Content[0].Text, "counted:")
}

// checkRPCBody checks a Handle answer (a response or a batch of them) and
// returns how many of its responses report a counted tool run.
func checkRPCBody(t *testing.T, body []byte) int {
	t.Helper()
	if !json.Valid(body) {
		t.Fatalf("answer is not valid JSON: %q", body)
	}
	if !utf8.Valid(body) {
		t.Fatalf("answer is not valid UTF-8: %q", body)
	}
	trimmed := bytes.TrimSpace(body)
	n := 0
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil || len(elems) == 0 {
			t.Fatalf("batch answer is not a non-empty array: %s", body)
		}
		for _, e := range elems {
			if checkRPCMessage(t, e, body) {
				n++
			}
		}
		return n
	}
	if checkRPCMessage(t, trimmed, body) {
		n++
	}
	return n
}

// fuzzVersions are the MCP-Protocol-Version values the targets choose from.
var fuzzVersions = []string{"", Version20250326, Version20250618, Version20251125, Version20260728, "1999-01-01", "2026-07-28\x00"}

// FuzzHandle feeds any body, under any transport version, to
// Server.Handle: the status is 200, 202, 400 or 404; the body is empty
// exactly for 202 and otherwise a JSON-RPC response (or a batch of them)
// with exactly one of result and error; and a tool runs exactly as often as
// the answer reports a result of one, so notifications, responses and
// invalid bodies run nothing. A tool that ran was given a body within the
// parser's bounds.
func FuzzHandle(f *testing.F) {
	for _, s := range fuzzSeeds() {
		for _, v := range []uint8{0, 3, 4, 5} {
			f.Add(v, s)
		}
	}
	var runs atomic.Int64
	s := fuzzServer(f, &runs)
	f.Fuzz(func(t *testing.T, version uint8, body []byte) {
		ex := &Exchange{ProtocolVersion: fuzzVersions[int(version)%len(fuzzVersions)]}
		before := runs.Load()
		status, resp := s.Handle(ContextWithExchange(context.Background(), ex), Caller{Principal: "fuzz"}, body)
		ran := runs.Load() - before
		switch status {
		case 200, 400, 404:
			if len(resp) == 0 {
				t.Fatalf("status %d with an empty body", status)
			}
			if got := checkRPCBody(t, resp); int64(got) != ran {
				t.Fatalf("tools ran %d times but %d results report a run: %q → %s", ran, got, body, resp)
			}
		case 202:
			if len(resp) != 0 {
				t.Fatalf("202 with a body: %s", resp)
			}
			if ran != 0 {
				t.Fatalf("a tool ran %d times for a body answered 202: %q", ran, body)
			}
		default:
			t.Fatalf("status %d for %q", status, body)
		}
		if ran > 0 {
			sh, ok := jsonshape.Measure(body)
			if !ok || !sh.Within(fuzzLimits.MaxDepth, fuzzLimits.MaxString, fuzzLimits.MaxMembers, boundedjson.MaxNumberLen) {
				t.Fatalf("a tool ran for a body outside the bounds %+v: %+v %q", fuzzLimits, sh, body)
			}
			if sh.Dup {
				// In a batch a duplicate member invalidates only its own
				// element: tools may run for the others, never for it.
				var elems []json.RawMessage
				if json.Unmarshal(body, &elems) != nil {
					t.Fatalf("a tool ran for a message with a duplicate member: %q", body)
				}
				clean := 0
				for _, e := range elems {
					if esh, ok := jsonshape.Measure(e); ok && !esh.Dup {
						clean++
					}
				}
				if ran > int64(clean) {
					t.Fatalf("tools ran %d times but only %d batch elements are free of duplicates: %q", ran, clean, body)
				}
			}
		}
	})
}

// fuzzHTTPStatuses are the statuses the Handler may answer.
var fuzzHTTPStatuses = map[int]bool{200: true, 202: true, 400: true, 401: true, 403: true, 404: true,
	405: true, 406: true, 413: true, 415: true}

// FuzzHTTPHandler sends any method, headers and body through the HTTP
// Handler (origin and host checks on a loopback listener, bearer tokens, a
// 512-byte body limit): it never panics, it answers one of the defined
// statuses (204 only for a CORS preflight), every JSON answer is a JSON-RPC
// response, every SSE answer is a stream of JSON-RPC messages, and tools
// run only on 200 answers that report them.
func FuzzHTTPHandler(f *testing.F) {
	methods := []string{"POST", "GET", "DELETE", "OPTIONS", "PUT"}
	for i, s := range fuzzSeeds() {
		f.Add(methods[i%len(methods)], "application/json", "application/json, text/event-stream", fuzzVersions[i%len(fuzzVersions)], "", "localhost", "Bearer good", s)
	}
	f.Add("POST", "application/json; charset=latin1", "*/*", "", "", "127.0.0.1:80", "Bearer good", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	f.Add("POST", "text/plain", "text/event-stream", "", "http://evil.example", "evil.example", "", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	f.Add("OPTIONS", "", "", "", "http://localhost:3000", "localhost", "", []byte{})
	f.Add("POST", "application/json", "text/html", "", "null", "[::1]:8080", "Bearer bad", []byte(`{}`))
	f.Add("POST", "application/json", "text/event-stream", "2026-07-28", "", "localhost", "Basic Zm9v", []byte(fuzzSeeds()[1]))
	f.Add("POST", "application/json", "application/json", "", "", "localhost", "Bearer good", bytes.Repeat([]byte("x"), 600))

	var runs atomic.Int64
	h := NewHandler(fuzzServer(f, &runs), &HandlerOptions{
		MaxBodyBytes:   512,
		AllowedOrigins: []string{"https://app.example.com"},
		Authenticator:  StaticTokens(map[string]Caller{"good": {Principal: "fuzz"}}),
	})
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	f.Fuzz(func(t *testing.T, method, contentType, accept, version, origin, host, auth string, body []byte) {
		r, err := http.NewRequest(method, "http://localhost/mcp", bytes.NewReader(body))
		if err != nil {
			return // not a method net/http would deliver
		}
		for k, v := range map[string]string{"Content-Type": contentType, "Accept": accept,
			"Mcp-Protocol-Version": version, "Origin": origin, "Authorization": auth} {
			if v != "" {
				r.Header.Set(k, v)
			}
		}
		r.Host = host
		if len(body)%2 == 1 {
			r.ContentLength = -1 // as for a chunked body
		}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(loopback)))
		w := newFuzzRecorder()
		before := runs.Load()
		h.ServeHTTP(w, r)
		ran := runs.Load() - before
		if w.code == http.StatusNoContent && method == http.MethodOptions {
			return
		}
		if !fuzzHTTPStatuses[w.code] {
			t.Fatalf("status %d for %s %q", w.code, method, body)
		}
		if ran > 0 && w.code != http.StatusOK {
			t.Fatalf("a tool ran for an answer %d", w.code)
		}
		out := w.body.Bytes()
		switch ct := w.header.Get("Content-Type"); {
		case w.code == http.StatusAccepted:
			if len(out) != 0 || ran != 0 {
				t.Fatalf("202 with a body %q or tool runs %d", out, ran)
			}
		case ct == "application/json":
			if got := checkRPCBody(t, out); int64(got) != ran {
				t.Fatalf("tools ran %d times, answer reports %d: %s", ran, got, out)
			}
		case ct == "text/event-stream":
			got := 0
			for _, ev := range sseEvents(t, out) {
				var probe struct {
					Method *string `json:"method"`
				}
				if err := json.Unmarshal(ev, &probe); err != nil {
					t.Fatalf("SSE event is not JSON: %q", ev)
				}
				if probe.Method != nil {
					continue // a notification
				}
				got += checkRPCBody(t, ev)
			}
			if int64(got) != ran {
				t.Fatalf("tools ran %d times, stream reports %d: %s", ran, got, out)
			}
		default:
			t.Fatalf("status %d with Content-Type %q: %q", w.code, ct, out)
		}
	})
}

// sseEvents splits an SSE body into the data of its events.
func sseEvents(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var events [][]byte
	var data []byte
	has := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if has {
				events = append(events, data)
			}
			data, has = nil, false
		case bytes.HasPrefix(line, []byte("data: ")):
			if has {
				data = append(data, '\n')
			}
			data = append(data, line[len("data: "):]...)
			has = true
		case line[0] == ':', bytes.HasPrefix(line, []byte("event: ")):
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if has {
		t.Fatalf("SSE stream ends inside an event: %q", body)
	}
	return events
}

// fuzzRecorder is a minimal ResponseWriter that, unlike httptest's, keeps
// the status of the first WriteHeader and records a Write's implicit 200.
type fuzzRecorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func newFuzzRecorder() *fuzzRecorder { return &fuzzRecorder{header: http.Header{}} }

func (r *fuzzRecorder) Header() http.Header { return r.header }
func (r *fuzzRecorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *fuzzRecorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
func (r *fuzzRecorder) Flush() {}

// FuzzStdio feeds any byte stream to ServeStdio: it returns nil at the end
// of the input, and writes only newline-delimited JSON-RPC messages, each a
// response with exactly one of result and error or a notification with a
// method; tools run exactly as often as responses report.
func FuzzStdio(f *testing.F) {
	seeds := fuzzSeeds()
	for _, s := range seeds {
		f.Add(append(append([]byte{}, s...), '\n'))
	}
	f.Add(bytes.Join(seeds[:8], []byte("\n")))
	f.Add(bytes.Join(seeds, []byte("\r\n")))
	f.Add([]byte(string(seeds[3]) + "\n" + string(seeds[0]) + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}` + "\n"))
	f.Add([]byte("\n\n\r\n   \n"))
	f.Add(bytes.Repeat([]byte("x"), 300))

	var runs atomic.Int64
	s := fuzzServer(f, &runs)
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		before := runs.Load()
		err := ServeStdio(ctx, s, Caller{Principal: "fuzz"}, bytes.NewReader(in), &out, &StdioOptions{MaxMessageBytes: 256})
		if err != nil {
			t.Fatalf("ServeStdio did not return nil at the end of the input: %v", err)
		}
		ran := runs.Load() - before
		b := out.Bytes()
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Fatalf("output does not end with a newline: %q", b)
		}
		got := 0
		for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if len(b) == 0 {
				break
			}
			if !json.Valid(line) {
				t.Fatalf("output line is not JSON: %q", line)
			}
			var probe struct {
				Method *string `json:"method"`
			}
			if json.Unmarshal(line, &probe) == nil && probe.Method != nil {
				if !bytes.Contains(line, []byte(`"jsonrpc":"2.0"`)) {
					t.Fatalf("notification without jsonrpc 2.0: %q", line)
				}
				continue
			}
			got += checkRPCBody(t, line)
		}
		// A request cancelled by notifications/cancelled may have run
		// without an answer, so runs may exceed answers, never the reverse.
		if int64(got) > ran || (int64(got) < ran && !sendsCancel(in)) {
			t.Fatalf("tools ran %d times, output reports %d\ninput %q\noutput %s", ran, got, in, b)
		}
	})
}

// sendsCancel reports whether a stdio input has a notifications/cancelled
// message on one of its lines.
func sendsCancel(in []byte) bool {
	for _, line := range bytes.Split(in, []byte("\n")) {
		var env struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(bytes.TrimSuffix(line, []byte("\r")), &env) == nil && env.Method == "notifications/cancelled" {
			return true
		}
	}
	return false
}
