package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/staticembed"
)

func TestServeAnswersHTTPEmbedder(t *testing.T) {
	tab, err := staticembed.Load(os.DirFS("../../testdata"), "tiny.semb")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler(tab))
	defer srv.Close()
	em := &codetools.HTTPEmbedder{URL: srv.URL}
	texts := []string{"close the session", "parse DNS message header"}
	got, err := em.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tab.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		for d := range want[i] {
			if got[i][d] != want[i][d] {
				t.Fatalf("vector %d over HTTP: %v, want %v", i, got[i], want[i])
			}
		}
	}
	for _, body := range []string{`{"input": []}`, `{"input": 3}`, `nope`, `{"input": ["` + strings.Repeat("a", maxTextBytes+1) + `"]}`} {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%.30s: status %d, want 400", body, resp.StatusCode)
		}
	}
}
