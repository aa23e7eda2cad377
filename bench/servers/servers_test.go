package servers

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func serve(t *testing.T, h http.Handler, body []byte) (int, []byte) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	SetHeaders(r.Header)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

func handlers(t *testing.T, n int) map[string]http.Handler {
	t.Helper()
	out := map[string]http.Handler{}
	for _, impl := range Impls {
		h, err := New(impl, n)
		if err != nil {
			t.Fatalf("New(%q, %d): %v", impl, n, err)
		}
		out[impl] = h
	}
	return out
}

// TestEcho checks that every server answers a standalone tools/call (no
// initialize, no session) with the same structured result.
func TestEcho(t *testing.T) {
	texts := []string{"hello", "", strings.Repeat("x", 64<<10)}
	for impl, h := range handlers(t, 1) {
		for i, text := range texts {
			id := int64(41 + i)
			code, body := serve(t, h, AppendEchoCall(nil, id, text))
			if code != http.StatusOK {
				t.Errorf("%s: status %d, body %.200q", impl, code, body)
				continue
			}
			if err := CheckEcho(body, id, text); err != nil {
				t.Errorf("%s: text of %d bytes: %v", impl, len(text), err)
			}
		}
	}
}

// TestSameResult checks that the MCP servers' echo results are the same
// JSON value as the bare floor's.
func TestSameResult(t *testing.T) {
	results := map[string]any{}
	for impl, h := range handlers(t, 1) {
		_, body := serve(t, h, AppendEchoCall(nil, 7, "same"))
		r, err := DecodeResponse(body, 7)
		if err != nil || r.Result == nil {
			t.Fatalf("%s: %v, body %.200q", impl, err, body)
		}
		var v struct {
			Content           any `json:"content"`
			StructuredContent any `json:"structuredContent"`
			IsError           any `json:"isError,omitempty"`
		}
		full, _ := json.Marshal(r.Result)
		if err := json.Unmarshal(full, &v); err != nil {
			t.Fatal(err)
		}
		if v.IsError == false {
			v.IsError = nil
		}
		results[impl] = v
	}
	want, _ := json.Marshal(results[ImplBare])
	for impl, v := range results {
		if got, _ := json.Marshal(v); !bytes.Equal(got, want) {
			t.Errorf("%s result %s, bare floor %s", impl, got, want)
		}
	}
}

// TestValidation checks that the MCP servers validate the arguments: a
// number for text is refused (a JSON-RPC error or an isError result), and
// the tool does not echo it.
func TestValidation(t *testing.T) {
	bad := []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}`)
	for impl, h := range handlers(t, 1) {
		if impl == ImplBare {
			continue // the floor validates nothing
		}
		code, body := serve(t, h, bad)
		if code >= 500 {
			t.Errorf("%s: status %d", impl, code)
			continue
		}
		r, err := DecodeResponse(body, 3)
		if err != nil {
			t.Errorf("%s: %v", impl, err)
			continue
		}
		if r.Error == nil && (r.Result == nil || !r.Result.IsError) {
			t.Errorf("%s accepted {\"text\":5}: %.300q", impl, body)
		}
	}
}

// TestList checks tools/list of the 1 000-tool servers.
func TestList(t *testing.T) {
	const n = 1000
	for impl, h := range handlers(t, n) {
		code, body := serve(t, h, AppendListCall(nil, 9))
		if code != http.StatusOK {
			t.Errorf("%s: status %d, body %.200q", impl, code, body)
			continue
		}
		if err := CheckList(body, 9, n); err != nil {
			t.Errorf("%s: %v", impl, err)
		}
		// The echo tool still works among 1 000.
		code, body = serve(t, h, AppendEchoCall(nil, 10, "many"))
		if err := CheckEcho(body, 10, "many"); code != http.StatusOK || err != nil {
			t.Errorf("%s with %d tools: status %d, %v", impl, n, code, err)
		}
	}
}

// TestLoopback checks each server over a real loopback listener, where the
// Host checks against DNS rebinding apply.
func TestLoopback(t *testing.T) {
	for impl, h := range handlers(t, 1) {
		srv := httptest.NewServer(h)
		body := AppendEchoCall(nil, 12, "over the wire")
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		SetHeaders(req.Header)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Errorf("%s: %v", impl, err)
			srv.Close()
			continue
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d, body %.200q", impl, resp.StatusCode, got)
		} else if err := CheckEcho(got, 12, "over the wire"); err != nil {
			t.Errorf("%s: %v", impl, err)
		}
		srv.Close()
	}
}

func TestNewUnknown(t *testing.T) {
	if _, err := New("nope", 1); err == nil {
		t.Fatal("New accepted an unknown implementation")
	}
}
