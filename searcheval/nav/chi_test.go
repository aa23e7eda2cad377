package nav

import (
	"context"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/embedmcp/mcp/codetools"
)

// Handlers of the chi router.
func serveDelay(w http.ResponseWriter, r *http.Request) { w.Write([]byte(chi.URLParam(r, "n"))) }

func listBuckets(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }

func serveObject(w http.ResponseWriter, r *http.Request) { w.Write([]byte(chi.URLParam(r, "*"))) }

type buckets struct{ created int }

func (b *buckets) create(w http.ResponseWriter, r *http.Request) {
	b.created++
	w.WriteHeader(http.StatusCreated)
}

type status struct{}

func (status) ServeHTTP(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }

func adminRouter() http.Handler {
	r := chi.NewRouter()
	r.Get("/users/{id:[0-9]+}", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(chi.URLParam(r, "id"))) })
	return r
}

// TestChiRoutes registers a chi router's routes with chi.Walk and
// Catalog.AddRoutes, and asks code_search which handler serves requests.
func TestChiRoutes(t *testing.T) {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Get("/delay/{n}", serveDelay)
	b := &buckets{}
	r.Route("/buckets", func(r chi.Router) {
		r.Get("/", listBuckets)
		r.With(middleware.NoCache).Put("/{bucket}", b.create)
		r.Get("/{bucket}/objects/*", serveObject)
	})
	r.Method(http.MethodGet, "/status", status{})
	r.Mount("/admin", adminRouter())

	c := codetools.NewCatalog(nil) // the function table of this test binary
	err := chi.Walk(r, func(method, route string, h http.Handler, _ ...func(http.Handler) http.Handler) error {
		return c.AddRoutes(codetools.Route{Method: method, Pattern: route, Handler: h})
	})
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "github.com/embedmcp/mcp/searcheval/nav"
	for _, tc := range []struct{ query, scope, want, route string }{
		{"GET /delay/3", "", pkg + ".serveDelay", "GET /delay/{n}"},
		{"/delay/3", "", pkg + ".serveDelay", "GET /delay/{n}"},
		{"GET /buckets/", "", pkg + ".listBuckets", "GET /buckets/"},
		{"PUT /buckets/photos", "", pkg + ".(*buckets).create", "PUT /buckets/{bucket}"},
		{"GET /buckets/photos/objects/2024/a.jpg", "", pkg + ".serveObject", "GET /buckets/{bucket}/objects/*"},
		{"/status", "", pkg + ".status.ServeHTTP", "GET /status"},
		{"GET /admin/users/42", "", pkg + ".adminRouter", "GET /admin/users/{id:[0-9]+}"},
		{"objects", "routes", pkg + ".serveObject", "GET /buckets/{bucket}/objects/*"},
	} {
		res, err := c.Search(context.Background(), codetools.SearchQuery{Query: tc.query, Scope: tc.scope})
		if err != nil {
			t.Fatal(err)
		}
		if res.Match != codetools.MatchRoute || len(res.Results) == 0 || res.Results[0].Name != tc.want || res.Results[0].Route != tc.route {
			t.Errorf("%q: match %s, %+v", tc.query, res.Match, res.Results)
			continue
		}
		d, err := c.Definition(context.Background(), codetools.DefinitionQuery{Name: res.Results[0].Name})
		if err != nil || !d.Linked {
			t.Errorf("%q: code_definition of %s: %v", tc.query, res.Results[0].Name, err)
		}
	}
	// A method the route does not serve finds nothing.
	if res, err := c.Search(context.Background(), codetools.SearchQuery{Query: "DELETE /delay/3", Scope: "routes"}); err != nil || res.Total != 0 {
		t.Errorf("DELETE /delay/3: %+v %v", res, err)
	}
}
