package codetools

import (
	"context"
	"github.com/embedmcp/mcp/codetools/internal/nav"
	"strings"
)

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
	reg, ok := nav.ParseRegistration(strings.Split(ft.Text, "\n"))
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
