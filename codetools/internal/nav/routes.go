package nav

import (
	"net/http"
	"reflect"
	"runtime"
	"strings"
)

// Route is a route as the catalog keeps it.
type Route struct {
	Method, Pattern string
	// symbol is the function symbol or id of the handler's code; file and
	// line locate a function handler (a closure's own line).
	Symbol string
	File   string
	Line   int
	// note says what the handler is when its code is not the route's own
	// (a ServeMux, a wrapper of net/http).
	Note string
	// regFile and regLine are where the route was registered; wrappers
	// the middleware around the handler, outermost first.
	RegFile  string
	RegLine  int
	Wrappers []string
}

// IsMethod reports whether s looks like an HTTP method (GET, POST, ...).
func IsMethod(s string) bool {
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

// HandlerCode finds the code of a handler: the function of a function
// value (with its own file and line), or the ServeHTTP method of a type.
func HandlerCode(h any) (symbol, file string, line int, note string) {
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

// BaseName returns the last element of path p.
func BaseName(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

// MatchRoute reports whether the request path p matches a route pattern
// (a ServeMux pattern or one in its style), and how specific the match
// is: the number of literal segments matched, plus one for an exact
// match.
func MatchRoute(pattern, p string) (int, bool) {
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
