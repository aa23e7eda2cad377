package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestAnswerContentLength: JSON answers of every size go with a
// Content-Length, never chunked, whether net/http counts it (up to its
// 2 KiB buffer) or the Handler sets it.
func TestAnswerContentLength(t *testing.T) {
	ts := mcp.NewToolSet()
	mustAdd(t)(mcp.AddTool(ts, mcp.ToolInfo{Name: "echo", Description: "Echo text."},
		func(_ context.Context, _ *mcp.Request, in struct {
			Text string `json:"text"`
		}) (struct {
			Text string `json:"text"`
		}, error) {
			return in, nil
		}))
	srv := httptest.NewServer(mcp.NewHandler(mcp.NewServer(ts, mcp.AllowAll(), nil), nil))
	defer srv.Close()
	for _, n := range []int{1, 900, 930, 950, 1000, 1100, 4000, 40000} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("a", n) + `"}}}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(got), strings.Repeat("a", n)) {
			t.Fatalf("text of %d: %d %v %.100s", n, resp.StatusCode, err, got)
		}
		if resp.ContentLength != int64(len(got)) || len(resp.TransferEncoding) != 0 {
			t.Errorf("text of %d: an answer of %d bytes with Content-Length %d, Transfer-Encoding %q",
				n, len(got), resp.ContentLength, resp.TransferEncoding)
		}
	}
}
