package nav

import (
	"go/ast"
	"go/parser"
	"net/http"
	"reflect"
	"runtime"
	"strconv"
	"strings"
)

// maxUnwrap bounds the wrappers followed from a route's handler to the
// innermost one.
const maxUnwrap = 16

// handlerType is the type of http.Handler.
var handlerType = reflect.TypeFor[http.Handler]()

// UnwrapStruct follows a handler that is a struct wrapping another
// handler (a middleware's type with a next field, chi's ChainHandler with
// its Endpoint) to the innermost handler, and returns it with the types of
// the wrappers, outermost first. A handler that wraps nothing is returned
// as it is.
func UnwrapStruct(h any) (inner reflect.Value, wrappers []string) {
	v := reflect.ValueOf(h)
	for range maxUnwrap {
		s := v
		for s.Kind() == reflect.Pointer || s.Kind() == reflect.Interface {
			if s.IsNil() {
				return v, wrappers
			}
			s = s.Elem()
		}
		if s.Kind() != reflect.Struct || s.Type().PkgPath() == "" {
			return v, wrappers
		}
		next, ok := innerField(s)
		if !ok {
			return v, wrappers
		}
		wrappers = append(wrappers, s.Type().PkgPath()+"."+s.Type().Name())
		v = next
	}
	return v, wrappers
}

// innerField returns the first field of a struct that holds a handler: an
// http.Handler, or a function of a handler's signature.
func innerField(s reflect.Value) (reflect.Value, bool) {
	t := s.Type()
	for i := range t.NumField() {
		f := s.Field(i)
		ft := t.Field(i).Type
		switch {
		case ft == handlerType || (ft.Kind() == reflect.Interface && ft.Implements(handlerType)):
			if !f.IsNil() {
				return f.Elem(), true
			}
		case ft.Kind() == reflect.Func && ft.ConvertibleTo(reflect.TypeFor[http.HandlerFunc]()):
			if !f.IsNil() {
				return f, true
			}
		}
	}
	return reflect.Value{}, false
}

// ValueCode is handlerCode for a reflected handler, which may come from an
// unexported field (whose value cannot be taken as an interface).
func ValueCode(v reflect.Value) (symbol, file string, line int, note string) {
	if v.Kind() == reflect.Func {
		if v.IsNil() {
			return "", "", 0, "a nil function"
		}
		f := runtime.FuncForPC(v.Pointer())
		if f == nil {
			return "", "", 0, "a function the function table does not know"
		}
		file, line = f.FileLine(f.Entry())
		return f.Name(), file, line, ""
	}
	t := v.Type()
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
	return t.PkgPath() + "." + recv + ".ServeHTTP", "", 0, ""
}

// Registration is a route's handler as its Registration reads in the
// source: the innermost handler expression and the middleware calls
// around it, outermost first.
type Registration struct {
	Inner    string // an identifier or selector, "" for a function literal
	Wrappers []string
}

// ParseRegistration reads the call that registered a route from lines of
// source starting at the call's line, such as
// mux.Handle("GET /orders", logging(auth(http.HandlerFunc(orders)))), and
// returns the handler argument unwrapped. known, if not nil, reports
// whether a name (an identifier or selector, as the source spells it) is a
// function, method or type of the package: of a wrapper's arguments, the
// last known one is the handler it wraps, so that a.accessLog(p, a.get)
// finds a.get and not the pattern p. It reports false when the lines hold
// no call it can read.
func ParseRegistration(lines []string, known func(name string) bool) (Registration, bool) {
	var src strings.Builder
	for _, l := range lines {
		src.WriteString(l)
		src.WriteByte('\n')
		e, err := parser.ParseExpr(strings.TrimSpace(src.String()))
		if err != nil {
			continue
		}
		call, ok := e.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return Registration{}, false
		}
		return unwrapExpr(call.Args[len(call.Args)-1], known), true
	}
	return Registration{}, false
}

// unwrapExpr follows a handler expression through middleware calls and
// conversions to the innermost handler.
func unwrapExpr(e ast.Expr, known func(string) bool) Registration {
	var r Registration
	for range maxUnwrap {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.UnaryExpr:
			e = x.X
			continue
		case *ast.Ident, *ast.SelectorExpr:
			r.Inner = exprText(x)
			return r
		case *ast.CompositeLit:
			r.Inner = exprText(x.Type)
			return r
		case *ast.CallExpr:
			name := exprText(x.Fun)
			arg := handlerArg(x.Args, known)
			if arg == nil {
				// A constructor (newOrders()): the handler is what it
				// returns, named by the constructor.
				r.Inner = name
				return r
			}
			if name != "http.HandlerFunc" && name != "HandlerFunc" && name != "" {
				r.Wrappers = append(r.Wrappers, name)
			}
			e = arg
			continue
		}
		return r
	}
	return r
}

// handlerArg picks the argument of a middleware call that is the handler
// it wraps: the last name that known reports, else the last that can be
// one (not a literal string or number, not arithmetic), so that mw(next),
// mw(cfg, next), a.mw(p, a.get) and http.TimeoutHandler(next, d, "msg")
// all find the handler.
func handlerArg(args []ast.Expr, known func(string) bool) ast.Expr {
	if known != nil && len(args) > 1 {
		for i := len(args) - 1; i >= 0; i-- {
			switch a := args[i].(type) {
			case *ast.Ident, *ast.SelectorExpr:
				if n := exprText(a); n != "" && known(n) {
					return a
				}
			}
		}
	}
	for i := len(args) - 1; i >= 0; i-- {
		switch args[i].(type) {
		case *ast.Ident, *ast.CallExpr, *ast.FuncLit, *ast.CompositeLit, *ast.UnaryExpr, *ast.ParenExpr:
			if id, ok := args[i].(*ast.Ident); ok && (id.Name == "nil" || id.Name == "true" || id.Name == "false") {
				continue
			}
			return args[i]
		case *ast.SelectorExpr:
			if i == 0 || len(args) == 1 {
				return args[i]
			}
		}
	}
	return nil
}

// exprText renders a name expression (x, pkg.F, s.method); "" for others.
func exprText(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		if l := exprText(x.X); l != "" {
			return l + "." + x.Sel.Name
		}
		return x.Sel.Name
	case *ast.IndexExpr:
		return exprText(x.X)
	case *ast.ParenExpr:
		return exprText(x.X)
	case *ast.StarExpr:
		return exprText(x.X)
	}
	return ""
}

// WrappedDoc is what a route hit says of its middleware and Registration.
func (r *Route) WrappedDoc() string {
	var parts []string
	if len(r.Wrappers) > 0 {
		parts = append(parts, "wrapped by "+strings.Join(r.Wrappers, " > "))
	}
	if r.RegFile != "" && r.RegLine > 0 {
		parts = append(parts, "registered at "+BaseName(r.RegFile)+":"+strconv.Itoa(r.RegLine))
	}
	return strings.Join(parts, "; ")
}
