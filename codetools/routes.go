package codetools

import (
	"context"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/nav"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"
)

// A Route is an HTTP route of the host: the pattern it serves and the
// handler that serves it. Catalog.AddRoutes adds routes, so that
// code_search answers "which handler serves GET /delay" with the handler's
// id.
type Route struct {
	// Pattern is the route as the router takes it: a net/http ServeMux
	// pattern ("GET /delay/{n}", "/static/", "example.com/"), or a pattern
	// of another router in the same style ("/items/{id}", chi's
	// "/files/*" and "{id:[0-9]+}"). Required.
	Pattern string
	// Method is the route's HTTP method, "" for any. A method written in
	// Pattern, as ServeMux patterns do, is taken from there.
	Method string
	// Handler serves the route: an http.Handler, an http.HandlerFunc or
	// another function. Its code is found from its function (a closure,
	// a method value) or its type (whose ServeHTTP method serves).
	Handler any
	// Code, if set, names the handler's code (an id code_definition
	// accepts), for a handler whose own code is not the interesting part,
	// such as one wrapped by middleware.
	Code string
	// Registered is where the route was registered, as file:line (an
	// absolute build path, as a stack trace prints it). ServeMux fills it
	// in. With a source snapshot, a handler wrapped in middleware there
	// (logging(auth(orders))) resolves to the innermost handler, and the
	// search hit names the middleware.
	Registered string
}

// Bounds of the routes a catalog keeps.
const (
	// maxRoutes bounds the routes of a catalog.
	maxRoutes = 10000
	// maxPatternBytes bounds a route's pattern and method.
	maxPatternBytes = 1000
)

// AddRoutes adds the host's HTTP routes to the catalog; code_search then
// answers paths ("/delay/3", "GET /delay") and scope "routes" with the
// handlers' ids. Use it for any router that can list its routes (chi's
// Walk, gorilla/mux's Walk, echo's Routes); for net/http's ServeMux, which
// cannot, register the routes through a ServeMux of this package. It
// returns an error wrapping ErrInvalidArgument for a route without a
// pattern or handler, adding none of them.
func (c *Catalog) AddRoutes(routes ...Route) error {
	add := make([]nav.Route, 0, len(routes))
	for _, r := range routes {
		rt, err := newRoute(r)
		if err != nil {
			return err
		}
		add = append(add, rt)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.routes)+len(add) > maxRoutes {
		return invalidf("a catalog keeps at most %d routes", maxRoutes)
	}
	c.routes = append(c.routes, add...)
	return nil
}

func newRoute(r Route) (nav.Route, error) {
	pattern := strings.TrimSpace(r.Pattern)
	method := strings.ToUpper(strings.TrimSpace(r.Method))
	switch {
	case pattern == "":
		return nav.Route{}, invalidf("a route needs a pattern")
	case len(pattern) > maxPatternBytes || len(method) > maxPatternBytes || len(r.Code) > MaxNameBytes:
		return nav.Route{}, invalidf("route pattern %q is too long", search.Clip(pattern, index.MaxEcho))
	case !utf8.ValidString(pattern) || !utf8.ValidString(method) || !utf8.ValidString(r.Code):
		return nav.Route{}, invalidf("route pattern, method and code must be valid UTF-8")
	case r.Handler == nil && r.Code == "":
		return nav.Route{}, invalidf("route %q needs a handler or a code id", search.Clip(pattern, index.MaxEcho))
	}
	if m, rest, ok := strings.Cut(pattern, " "); ok && nav.IsMethod(m) {
		method, pattern = m, strings.TrimSpace(rest)
	}
	rt := nav.Route{Method: method, Pattern: pattern, Symbol: strings.TrimSpace(r.Code)}
	if f, l, ok := strings.Cut(r.Registered, ":"); ok {
		if i := strings.LastIndexByte(r.Registered, ':'); i > 0 {
			f, l = r.Registered[:i], r.Registered[i+1:]
		}
		rt.RegFile, rt.RegLine = f, atoiOr0(l)
	}
	if rt.Symbol == "" {
		inner, wrappers := nav.UnwrapStruct(r.Handler)
		if len(wrappers) > 0 && inner.IsValid() {
			rt.Wrappers = wrappers
			rt.Symbol, rt.File, rt.Line, rt.Note = nav.ValueCode(inner)
		} else {
			rt.Symbol, rt.File, rt.Line, rt.Note = nav.HandlerCode(r.Handler)
		}
	}
	return rt, nil
}

// ServeMux is an http.ServeMux that also adds the routes registered on it
// to a catalog, so that code_search finds the handler of a path. net/http's
// ServeMux does not list its patterns, so they are recorded as they are
// registered: use a ServeMux where the host would use an http.ServeMux
// (the embedded one serves, and can be passed where an *http.ServeMux is
// wanted for routes that need not be found).
type ServeMux struct {
	*http.ServeMux
	catalog *Catalog
}

// NewServeMux returns a ServeMux that registers on mux (a new
// http.ServeMux if nil) and adds its routes to c.
func NewServeMux(c *Catalog, mux *http.ServeMux) *ServeMux {
	if mux == nil {
		mux = http.NewServeMux()
	}
	return &ServeMux{ServeMux: mux, catalog: c}
}

// Handle registers handler for pattern, as http.ServeMux.Handle does
// (panicking as it does on a bad or conflicting pattern), and adds the
// route to the catalog.
func (m *ServeMux) Handle(pattern string, handler http.Handler) {
	m.ServeMux.Handle(pattern, handler)
	_ = m.catalog.AddRoutes(Route{Pattern: pattern, Handler: handler, Registered: callerLine()}) // the mux accepted it
}

// HandleFunc registers handler for pattern, as http.ServeMux.HandleFunc
// does, and adds the route to the catalog.
func (m *ServeMux) HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request)) {
	m.ServeMux.HandleFunc(pattern, handler)
	_ = m.catalog.AddRoutes(Route{Pattern: pattern, Handler: handler, Registered: callerLine()})
}

// callerLine is the file:line of the caller of ServeMux's method.
func callerLine() string {
	_, file, line, ok := runtime.Caller(2)
	if !ok {
		return ""
	}
	return file + ":" + itoa(line)
}

// atoiOr0 parses a line number, 0 if it is none.
func atoiOr0(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' || n > 1<<24 {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// ScopeRoutes is the code_search scope of the host's HTTP routes.
const ScopeRoutes = "routes"

// MatchRoute is the SearchResult.Match of a route search.
const MatchRoute = "route"

// routeSearch answers a search among the routes: it reports false when
// the query is not for routes, or when a path query without scope
// "routes" matches no route (the ordinary search then answers).
func (c *Catalog) routeSearch(ctx context.Context, q SearchQuery) (*SearchResult, bool, error) {
	query, scope := strings.TrimSpace(q.Query), strings.TrimSpace(q.Scope)
	if scope != ScopeRoutes && !routeQuery(query) {
		return nil, false, nil
	}
	x, err := c.index(ctx)
	if err != nil {
		return nil, true, err
	}
	c.mu.Lock()
	routes := c.routes[:len(c.routes):len(c.routes)]
	c.mu.Unlock()
	method, p := "", query
	if m, rest, ok := strings.Cut(query, " "); ok && nav.IsMethod(m) {
		method, p = m, strings.TrimSpace(rest)
	}
	type hit struct {
		r          *nav.Route
		tier, spec int
	}
	var hits []hit
	lowerQ := strings.ToLower(p)
	for i := range routes {
		r := &routes[i]
		if method != "" && r.Method != "" && r.Method != method && !(method == "HEAD" && r.Method == "GET") {
			continue
		}
		switch spec, ok := nav.MatchRoute(r.Pattern, p); {
		case ok:
			hits = append(hits, hit{r, 0, spec})
		case strings.Contains(strings.ToLower(r.Pattern), lowerQ):
			hits = append(hits, hit{r, 1, 0})
		case scope == ScopeRoutes && strings.Contains(strings.ToLower(r.Symbol), lowerQ):
			hits = append(hits, hit{r, 2, 0})
		}
	}
	if len(hits) == 0 && scope != ScopeRoutes {
		return nil, false, nil
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.tier != b.tier {
			return a.tier - b.tier
		}
		if a.spec != b.spec {
			return b.spec - a.spec
		}
		return strings.Compare(a.r.Pattern, b.r.Pattern)
	})
	res := &SearchResult{Match: MatchRoute, Scope: ScopeRoutes, Total: len(hits), Coverage: x.cov, Results: []SearchHit{},
		Limitations: strings.TrimSpace(x.base.limitations(""))}
	if len(routes) == 0 {
		res.Note = "the host registered no HTTP routes (codetools.ServeMux, Catalog.AddRoutes)"
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	for i := q.Offset; i < len(hits) && i < q.Offset+limit; i++ {
		r := *hits[i].r
		c.unwrapRoute(ctx, x, &r)
		res.Results = append(res.Results, renderer{x}.routeHit(&r))
	}
	if next := q.Offset + len(res.Results); next < res.Total {
		res.More = true
		res.NextOffset = &next
	}
	return res, true, nil
}

// routeHit is the search hit of a route: its handler's id.
func (x renderer) routeHit(r *nav.Route) SearchHit {
	pattern := r.Pattern
	if r.Method != "" {
		pattern = r.Method + " " + pattern
	}
	h := SearchHit{Name: r.Symbol, Kind: "handler", Route: pattern, doc: "serves " + search.Clip(pattern, maxHitDoc)}
	if r.Note != "" {
		h.doc += "; " + r.Note
	}
	if w := r.WrappedDoc(); w != "" {
		h.doc += "; " + w
	}
	if e, ok := x.ResolveSymbolName(r.Symbol); ok {
		h.Name, h.Kind, h.pkg = e.ID, e.Kind.String(), e.Pkg
		h.At = x.hit(x.EntryIndex(e)).At
	} else if s, ok := index.ParseSymbol(r.Symbol, "", nil); ok {
		// Not in the catalog: its declaration's id, folded as code_definition
		// folds a stack-trace symbol.
		if s.Pkg == "main" && len(x.Search.MainPkgs) > 0 {
			s.Pkg = x.Search.MainPkgs[0]
		}
		h.Name = s.ID()
	}
	if r.File != "" && r.Line > 0 && !strings.HasPrefix(r.File, "<") {
		// The function's own line: a closure's, within its declaration.
		h.At = nav.BaseName(r.File) + ":" + itoa(r.Line)
	}
	return h
}

// routeQuery reports whether a query is an HTTP path ("/delay/3") or a
// method and a path ("GET /delay"), and not a file path.
func routeQuery(query string) bool {
	if _, ok := search.ParseFileQuery(query); ok {
		return false
	}
	if m, rest, ok := strings.Cut(query, " "); ok && nav.IsMethod(m) {
		query = strings.TrimSpace(rest)
	}
	return strings.HasPrefix(query, "/") && !strings.ContainsAny(query, " \t")
}

// unwrapRoute reads a route's registration from the snapshot and, when
// its handler is wrapped in middleware, points the route at the innermost
// handler. It changes nothing when the registration cannot be read.
func (c *Catalog) unwrapRoute(ctx context.Context, x *catalogIndex, r *nav.Route) {
	if r.RegFile == "" || r.RegLine <= 0 {
		return
	}
	ft, err := c.File(ctx, FileQuery{Path: r.RegFile, StartLine: r.RegLine, EndLine: r.RegLine + 12})
	if err != nil {
		return
	}
	known := func(name string) bool {
		e, ok := x.ResolveLocal(ft.Package, name)
		return ok && (e.Kind == index.KindFunc || e.Kind == index.KindMethod || e.Kind == index.KindType)
	}
	reg, ok := nav.ParseRegistration(strings.Split(ft.Text, "\n"), known)
	if !ok || len(reg.Wrappers) == 0 {
		return
	}
	r.Wrappers = append(reg.Wrappers, r.Wrappers...)
	if reg.Inner == "" {
		return // a function literal: the handler's own closure line stands
	}
	if e, ok := x.ResolveLocal(ft.Package, reg.Inner); ok {
		r.Symbol, r.File, r.Line, r.Note = e.ID, "", 0, ""
	}
}
