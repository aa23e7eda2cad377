package codetools

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools/internal/routefixture"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// TestRoutesThroughWrappers registers routefixture's routes on a
// ServeMux, with a snapshot of its source, and checks that each route is
// attributed to the innermost handler with its wrappers named beside it:
// a closure returning an http.HandlerFunc around a method value
// (a.accessLog(p, a.getPrice)), an http.Handler middleware chain, wrappers
// nested two levels, and a plain method value.
func TestRoutesThroughWrappers(t *testing.T) {
	const pkg = modPath + "/codetools/internal/routefixture"
	src, err := os.ReadFile(filepath.Join("internal", "routefixture", "routes.go"))
	if err != nil {
		t.Fatal(err)
	}
	man := codesnap.Manifest{MainPackage: modPath + "/cmd/none", GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		Modules: []codesnap.Module{{Path: modPath, Main: true}}}
	c := NewCatalog(&Options{Snapshot: makeSnapshot(t, man, []srcFile{{pkg, "routes.go", string(src)}})})
	mux := NewServeMux(c, nil)
	(&routefixture.API{Log: slog.New(slog.DiscardHandler)}).Register(mux)

	// The wrapped handlers serve: the mux got what was registered.
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/prices/7", nil))
	if rec.Body.String() != "42" {
		t.Fatalf("GET /v1/prices/7 = %d %q", rec.Code, rec.Body)
	}

	reg := func(s string) string { return "registered at routes.go:" + itoa(lineOf(t, string(src), s)) }
	for _, tc := range []struct{ query, want, doc string }{
		{"GET /v1/prices/7", pkg + ".(*API).getPrice", "wrapped by a.accessLog; " + reg("mux.HandleFunc(p, ")},
		{"GET /v1/orders/7", pkg + ".(*API).getOrder", "wrapped by logging > a.auth; " + reg(`mux.Handle("GET /v1/orders`)},
		{"GET /v1/quotes/7", pkg + ".(*API).getQuote", "wrapped by a.accessLog > a.timed; " + reg("mux.HandleFunc(q, ")},
		{"GET /v1/health", pkg + ".(*API).health", reg(`mux.HandleFunc("GET /v1/health"`)},
	} {
		res, err := c.Search(context.Background(), SearchQuery{Query: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Listing()
		if len(res.Results) == 0 || res.Results[0].Name != tc.want {
			t.Errorf("%s: want %s first, got\n%s", tc.query, tc.want, text)
			continue
		}
		if !strings.Contains(text, tc.doc) {
			t.Errorf("%s: listing does not say %q:\n%s", tc.query, tc.doc, text)
		}
		if tc.query == "GET /v1/health" && strings.Contains(text, "wrapped by") {
			t.Errorf("%s: an unwrapped route names wrappers:\n%s", tc.query, text)
		}
	}
}
