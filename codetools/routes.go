package codetools

import (
	"context"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"net/http"
	"reflect"
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

// route is a route as the catalog keeps it.
type route struct {
	method, pattern string
	// symbol is the function symbol or id of the handler's code; file and
	// line locate a function handler (a closure's own line).
	symbol string
	file   string
	line   int
	// note says what the handler is when its code is not the route's own
	// (a ServeMux, a wrapper of net/http).
	note string
	// regFile and regLine are where the route was registered; wrappers
	// the middleware around the handler, outermost first.
	regFile  string
	regLine  int
	wrappers []string
}

// AddRoutes adds the host's HTTP routes to the catalog; code_search then
// answers paths ("/delay/3", "GET /delay") and scope "routes" with the
// handlers' ids. Use it for any router that can list its routes (chi's
// Walk, gorilla/mux's Walk, echo's Routes); for net/http's ServeMux, which
// cannot, register the routes through a ServeMux of this package. It
// returns an error wrapping ErrInvalidArgument for a route without a
// pattern or handler, adding none of them.
func (c *Catalog) AddRoutes(routes ...Route) error {
	add := make([]route, 0, len(routes))
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

func newRoute(r Route) (route, error) {
	pattern := strings.TrimSpace(r.Pattern)
	method := strings.ToUpper(strings.TrimSpace(r.Method))
	switch {
	case pattern == "":
		return route{}, invalidf("a route needs a pattern")
	case len(pattern) > maxPatternBytes || len(method) > maxPatternBytes || len(r.Code) > MaxNameBytes:
		return route{}, invalidf("route pattern %q is too long", search.Clip(pattern, index.MaxEcho))
	case !utf8.ValidString(pattern) || !utf8.ValidString(method) || !utf8.ValidString(r.Code):
		return route{}, invalidf("route pattern, method and code must be valid UTF-8")
	case r.Handler == nil && r.Code == "":
		return route{}, invalidf("route %q needs a handler or a code id", search.Clip(pattern, index.MaxEcho))
	}
	if m, rest, ok := strings.Cut(pattern, " "); ok && isMethod(m) {
		method, pattern = m, strings.TrimSpace(rest)
	}
	rt := route{method: method, pattern: pattern, symbol: strings.TrimSpace(r.Code)}
	if f, l, ok := strings.Cut(r.Registered, ":"); ok {
		if i := strings.LastIndexByte(r.Registered, ':'); i > 0 {
			f, l = r.Registered[:i], r.Registered[i+1:]
		}
		rt.regFile, rt.regLine = f, atoiOr0(l)
	}
	if rt.symbol == "" {
		inner, wrappers := unwrapStruct(r.Handler)
		if len(wrappers) > 0 && inner.IsValid() {
			rt.wrappers = wrappers
			rt.symbol, rt.file, rt.line, rt.note = valueCode(inner)
		} else {
			rt.symbol, rt.file, rt.line, rt.note = handlerCode(r.Handler)
		}
	}
	return rt, nil
}

// isMethod reports whether s looks like an HTTP method (GET, POST, ...).
func isMethod(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// handlerCode finds the code of a handler: the function of a function
// value (with its own file and line), or the ServeHTTP method of a type.
func handlerCode(h any) (symbol, file string, line int, note string) {
	v := reflect.ValueOf(h)
	t := v.Type()
	if t.Kind() == reflect.Func {
		if v.IsNil() {
			return "", "", 0, "a nil function"
		}
		f := runtime.FuncForPC(v.Pointer())
		if f == nil {
			return "", "", 0, "a function the function table does not know"
		}
		file, line = f.FileLine(f.Entry())
		if strings.HasPrefix(f.Name(), "net/http.") {
			note = "a handler of net/http wrapping the route's own handler, which it cannot tell"
		}
		return f.Name(), file, line, note
	}
	ptr := t.Kind() == reflect.Pointer
	if ptr {
		t = t.Elem()
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return "", "", 0, "a handler of an unnamed type"
	}
	recv := t.Name()
	if ptr {
		recv = "(*" + recv + ")"
	}
	switch {
	case t == reflect.TypeFor[http.ServeMux]():
		note = "a ServeMux: the routes registered on it are listed where they are registered through codetools.ServeMux"
	case t.PkgPath() == "net/http":
		note = "a handler of net/http wrapping the route's own handler, which it cannot tell"
	}
	return t.PkgPath() + "." + recv + ".ServeHTTP", "", 0, note
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

// routeQuery reports whether a query is an HTTP path ("/delay/3") or a
// method and a path ("GET /delay"), and not a file path.
func routeQuery(query string) bool {
	if _, ok := search.ParseFileQuery(query); ok {
		return false
	}
	if m, rest, ok := strings.Cut(query, " "); ok && isMethod(m) {
		query = strings.TrimSpace(rest)
	}
	return strings.HasPrefix(query, "/") && !strings.ContainsAny(query, " \t")
}

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
	if m, rest, ok := strings.Cut(query, " "); ok && isMethod(m) {
		method, p = m, strings.TrimSpace(rest)
	}
	type hit struct {
		r          *route
		tier, spec int
	}
	var hits []hit
	lowerQ := strings.ToLower(p)
	for i := range routes {
		r := &routes[i]
		if method != "" && r.method != "" && r.method != method && !(method == "HEAD" && r.method == "GET") {
			continue
		}
		switch spec, ok := matchRoute(r.pattern, p); {
		case ok:
			hits = append(hits, hit{r, 0, spec})
		case strings.Contains(strings.ToLower(r.pattern), lowerQ):
			hits = append(hits, hit{r, 1, 0})
		case scope == ScopeRoutes && strings.Contains(strings.ToLower(r.symbol), lowerQ):
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
		return strings.Compare(a.r.pattern, b.r.pattern)
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
func (x renderer) routeHit(r *route) SearchHit {
	pattern := r.pattern
	if r.method != "" {
		pattern = r.method + " " + pattern
	}
	h := SearchHit{Name: r.symbol, Kind: "handler", Route: pattern, doc: "serves " + search.Clip(pattern, maxHitDoc)}
	if r.note != "" {
		h.doc += "; " + r.note
	}
	if w := r.wrappedDoc(); w != "" {
		h.doc += "; " + w
	}
	if e, ok := x.ResolveSymbolName(r.symbol); ok {
		h.Name, h.Kind, h.pkg = e.ID, e.Kind.String(), e.Pkg
		h.At = x.hit(x.EntryIndex(e)).At
	} else if s, ok := index.ParseSymbol(r.symbol, "", nil); ok {
		// Not in the catalog: its declaration's id, folded as code_definition
		// folds a stack-trace symbol.
		if s.Pkg == "main" && len(x.Search.MainPkgs) > 0 {
			s.Pkg = x.Search.MainPkgs[0]
		}
		h.Name = s.ID()
	}
	if r.file != "" && r.line > 0 && !strings.HasPrefix(r.file, "<") {
		// The function's own line: a closure's, within its declaration.
		h.At = baseName(r.file) + ":" + itoa(r.line)
	}
	return h
}

func baseName(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

// matchRoute reports whether the request path p matches a route pattern
// (a ServeMux pattern or one in its style), and how specific the match
// is: the number of literal segments matched, plus one for an exact
// match.
func matchRoute(pattern, p string) (int, bool) {
	if i := strings.IndexByte(pattern, '/'); i > 0 {
		pattern = pattern[i:] // a host
	} else if i < 0 {
		return 0, false
	}
	if !strings.HasPrefix(p, "/") {
		return 0, false
	}
	p, _, _ = strings.Cut(p, "?")
	subtree := strings.HasSuffix(pattern, "/")
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	rs := strings.Split(strings.Trim(p, "/"), "/")
	if pattern == "/" {
		ps = nil
	}
	if p == "/" {
		rs = nil
	}
	spec := 0
	for i, seg := range ps {
		switch {
		case seg == "{$}":
			return spec + 1, i == len(rs)
		case seg == "*" && i == len(ps)-1, strings.HasSuffix(seg, "...}") && strings.HasPrefix(seg, "{"):
			return spec, true
		case i >= len(rs):
			return 0, false
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"):
			if rs[i] == "" {
				return 0, false
			}
		case seg == rs[i]:
			spec++
		default:
			return 0, false
		}
	}
	switch {
	case len(rs) == len(ps):
		return spec + 1, true
	case subtree && len(rs) > len(ps):
		return spec, true
	}
	return 0, false
}
