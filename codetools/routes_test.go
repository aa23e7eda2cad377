package codetools

import (
	"context"
	"net/http"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/nav"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// logging is a middleware of a struct type, as chi's ChainHandler is.
type logging struct {
	name string
	next http.Handler
}

func (l *logging) ServeHTTP(w http.ResponseWriter, r *http.Request) { l.next.ServeHTTP(w, r) }

func serveOrders(w http.ResponseWriter, _ *http.Request) {}

// TestRouteThroughStructMiddleware: a handler wrapped in struct
// middleware resolves to the innermost handler, naming the wrappers, and
// ServeMux keeps where the route was registered.
func TestRouteThroughStructMiddleware(t *testing.T) {
	c := NewCatalog(nil)
	mux := NewServeMux(c, nil)
	mux.Handle("GET /orders/{id}", &logging{name: "access", next: &logging{next: http.HandlerFunc(serveOrders)}})
	res, err := c.Search(context.Background(), SearchQuery{Query: "GET /orders/7"})
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "github.com/embedmcp/mcp/codetools"
	if len(res.Results) == 0 || res.Results[0].Name != pkg+".serveOrders" {
		t.Fatalf("route through struct middleware: %+v", res.Results)
	}
	text := res.Listing()
	if !strings.Contains(text, "wrapped by "+pkg+".logging > "+pkg+".logging") || !strings.Contains(text, "registered at routes_test.go:") {
		t.Errorf("listing does not name the middleware and registration:\n%s", text)
	}
}

// TestRouteThroughClosureMiddleware: middleware that returns a closure
// (the common func(http.Handler) http.Handler) is read from the
// registration in the snapshot: the route resolves to the innermost
// handler, a method value or a function.
func TestRouteThroughClosureMiddleware(t *testing.T) {
	const src = `package main

import "net/http"

type server struct{}

func (s *server) orders(w http.ResponseWriter, r *http.Request) {}

func health(w http.ResponseWriter, r *http.Request) {}

func accessLog(next http.Handler) http.Handler { return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) }) }

func auth(realm string, next http.Handler) http.Handler { return next }

func routes(mux *http.ServeMux, s *server) {
	mux.Handle("GET /orders/{id}", accessLog(auth("shop",
		http.HandlerFunc(s.orders))))
	mux.Handle("GET /health", accessLog(http.HandlerFunc(health)))
	mux.HandleFunc("GET /plain", health)
}
`
	man := codesnap.Manifest{MainPackage: "example.com/app", GOOS: "linux", GOARCH: "amd64",
		Modules: []codesnap.Module{{Path: "example.com/app", Main: true}}}
	fsys := makeSnapshot(t, man, []srcFile{{"example.com/app", "main.go", src}})
	bi := &debug.BuildInfo{GoVersion: "go1.26", Path: "example.com/app", Main: debug.Module{Path: "example.com/app"}}
	c := NewCatalog(&Options{Snapshot: fsys, BuildInfo: bi, Server: "app"})
	c.loadRuntime = func() (*index.RuntimeTable, error) {
		return &index.RuntimeTable{Funcs: []index.RuntimeFunc{
			{Name: "main.(*server).orders", File: "/build/app/main.go", Line: 7},
			{Name: "main.health", File: "/build/app/main.go", Line: 9},
			{Name: "main.accessLog.func1", File: "/build/app/main.go", Line: 11},
		}}, nil
	}
	closure := func(w http.ResponseWriter, r *http.Request) {} // stands for accessLog's closure
	line := strings.Count(src[:strings.Index(src, `mux.Handle("GET /orders`)], "\n") + 1
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.AddRoutes(Route{Pattern: "GET /orders/{id}", Handler: closure, Registered: "/build/app/main.go:" + itoa(line)}))
	must(c.AddRoutes(Route{Pattern: "GET /health", Handler: closure, Registered: "/build/app/main.go:" + itoa(line+2)}))
	must(c.AddRoutes(Route{Pattern: "GET /plain", Handler: closure, Registered: "/build/app/main.go:" + itoa(line+3)}))
	for _, tc := range []struct{ query, want, wrapped string }{
		{"/orders/42", "example.com/app.(*server).orders", "wrapped by accessLog > auth; registered at main.go:" + itoa(line)},
		{"GET /health", "example.com/app.health", "wrapped by accessLog; registered at main.go:" + itoa(line+2)},
	} {
		res, err := c.Search(context.Background(), SearchQuery{Query: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].Name != tc.want || !strings.Contains(res.Listing(), tc.wrapped) {
			t.Errorf("%s: %+v\n%s", tc.query, res.Results, res.Listing())
		}
	}
	// Not wrapped: the handler stays as registered.
	res, _ := c.Search(context.Background(), SearchQuery{Query: "/plain"})
	if len(res.Results) == 0 || strings.Contains(res.Listing(), "wrapped by") || !strings.Contains(res.Listing(), "registered at main.go:") {
		t.Errorf("/plain: %s", res.Listing())
	}
}

func TestParseRegistration(t *testing.T) {
	for _, tc := range []struct {
		src, inner, wrappers string
	}{
		{`mux.Handle("/x", logging(auth(http.HandlerFunc(orders))))`, "orders", "logging auth"},
		{`mux.Handle("/x", http.TimeoutHandler(h, 5*time.Second, "slow"))`, "h", "http.TimeoutHandler"},
		{`r.With(mw).Get("/x", s.list)`, "s.list", ""},
		{`mux.Handle("/x", mw.Chain(cfg, &api{db: db}))`, "api", "mw.Chain"},
		{`mux.Handle("/x", logging(newOrders()))`, "newOrders", "logging"},
		{`mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) {`, "", ""},
	} {
		reg, _ := nav.ParseRegistration([]string{tc.src, "})"}, nil)
		if reg.Inner != tc.inner || strings.Join(reg.Wrappers, " ") != tc.wrappers {
			t.Errorf("%s: inner %q wrappers %q", tc.src, reg.Inner, reg.Wrappers)
		}
	}
}
