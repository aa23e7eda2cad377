// The resources methods of the MCP Apps extension: resources/list,
// resources/read and resources/templates/list, served for the views of
// Options.Views (or of the Registry) once at least one is registered.

package mcp

import (
	"context"
	"encoding/base64"
	"strings"
)

// viewRegistry returns the source of views, or nil.
func (s *Server) viewRegistry() ViewRegistry {
	if s.opts.Views != nil {
		return s.opts.Views
	}
	vr, _ := s.reg.(ViewRegistry)
	return vr
}

// servesViews reports whether any view is registered: only then does the
// Server have the resources capability and methods, and advertise the
// extension.
func (s *Server) servesViews() (ok bool) {
	vr := s.viewRegistry()
	if vr == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	for range vr.AllViews() {
		return true
	}
	return false
}

// viewsAllowed returns the URIs of the views a caller may see through
// the tools it may call; a view's own permission is asked of separately.
func (s *Server) viewsAllowed(ctx context.Context, caller Caller) map[string]bool {
	ok := map[string]bool{}
	asked := map[string]bool{} // permissions already refused
	for t := range s.reg.All() {
		c, err := s.tools.get(t, s.reg)
		if err != nil || c.info.View == "" || ok[c.info.View] || asked[c.info.Permission] {
			continue
		}
		if allowed(ctx, s.az, caller, c.info.Permission) {
			ok[c.info.View] = true
		} else {
			asked[c.info.Permission] = true
		}
	}
	return ok
}

// mayRead reports whether caller may see v: through a tool or by the
// view's own permission.
func (s *Server) mayRead(ctx context.Context, caller Caller, v *View, viaTools map[string]bool) bool {
	return viaTools[v.URI] || (v.Permission != "" && allowed(ctx, s.az, caller, v.Permission))
}

// compiled returns the wire forms of v, from the ToolSet when it made them.
func (s *Server) compiledView(vr ViewRegistry, v *View) (*compiledView, error) {
	if ts, ok := vr.(interface {
		compiledView(string) (*compiledView, bool)
	}); ok {
		if cv, ok := ts.compiledView(v.URI); ok && cv.v == v {
			return cv, nil
		}
	}
	return compileView(v)
}

// resourceNotFound is the answer to a resources/read of a view that does
// not exist or that the caller may not see: the two are indistinguishable.
func resourceNotFound(rev revision, uri string) *Error {
	code := -32002 // before 2026-07-28
	if rev.perRequest {
		code = CodeInvalidParams
	}
	return &Error{Code: code, Message: "Resource not found", Data: map[string]any{"uri": shorten(uri)}}
}

// listResources answers resources/list with the views the caller may see,
// a page at a time when PageSize is set (the cursor, as in tools/list,
// names the last URI of the previous page).
func (s *Server) listResources(ctx context.Context, m *message) (_ []byte, err error) {
	after := ""
	if c, has := m.params["cursor"]; has {
		cs, ok := c.(string)
		if !ok {
			return nil, invalidParams("cursor must be a string")
		}
		raw, derr := base64.RawURLEncoding.DecodeString(cs)
		if derr != nil || !strings.HasPrefix(string(raw), cursorPrefix) || checkViewURI(string(raw[len(cursorPrefix):])) != nil {
			return nil, invalidParams("invalid cursor %s", quoteName(cs))
		}
		after = string(raw[len(cursorPrefix):])
	}
	vr := s.viewRegistry()
	viaTools := s.viewsAllowed(ctx, m.caller)
	b := appendResourcesListStart(nil)
	n, last, more := 0, "", false
	defer func() {
		if r := recover(); r != nil { // a ViewRegistry that panics
			err = &Error{Code: CodeInternalError, Message: "Internal error"}
		}
	}()
	for v := range vr.AllViews() {
		if v == nil || (after != "" && v.URI <= after) || !s.mayRead(ctx, m.caller, v, viaTools) {
			continue
		}
		cv, cerr := s.compiledView(vr, v)
		if cerr != nil {
			continue
		}
		if s.opts.PageSize > 0 && n == s.opts.PageSize {
			more = true
			break
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, cv.desc...)
		n++
		last = v.URI
	}
	next := ""
	if more {
		next = base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + last))
	}
	b = appendResourcesListEnd(b, next)
	if m.rev.perRequest {
		b = s.appendCacheable(b)
		b = s.appendCompleteResult(b, false)
	}
	return m.respond(b), nil
}

// listResourceTemplates answers resources/templates/list: views have none.
func (s *Server) listResourceTemplates(_ context.Context, m *message) ([]byte, error) {
	if c, has := m.params["cursor"]; has {
		cs, ok := c.(string)
		if !ok {
			return nil, invalidParams("cursor must be a string")
		}
		return nil, invalidParams("invalid cursor %s", quoteName(cs))
	}
	b := appendResourceTemplatesResult(nil)
	if m.rev.perRequest {
		b = s.appendCacheable(b)
		b = s.appendCompleteResult(b, false)
	}
	return m.respond(b), nil
}

// readResource answers resources/read of a view the caller may see; any
// other URI is not found.
func (s *Server) readResource(ctx context.Context, m *message) (_ []byte, err error) {
	raw, has := m.params["uri"]
	if !has {
		return nil, invalidParams("uri is required")
	}
	uri, ok := raw.(string)
	if !ok {
		return nil, invalidParams("uri must be a string, got %s", jsonTypeName(raw))
	}
	defer func() {
		if r := recover(); r != nil { // a ViewRegistry that panics
			err = &Error{Code: CodeInternalError, Message: "Internal error"}
		}
	}()
	vr := s.viewRegistry()
	if checkViewURI(uri) != nil {
		return nil, resourceNotFound(m.rev, uri)
	}
	v, ok := vr.LookupView(uri)
	if !ok || v == nil || v.URI != uri {
		return nil, resourceNotFound(m.rev, uri)
	}
	if !(v.Permission != "" && allowed(ctx, s.az, m.caller, v.Permission)) && !s.viewsAllowed(ctx, m.caller)[uri] {
		return nil, resourceNotFound(m.rev, uri)
	}
	cv, cerr := s.compiledView(vr, v)
	if cerr != nil {
		return nil, cerr // an internal error: the registry holds a view that does not check
	}
	bp := scratchBufs.Get().(*[]byte)
	defer putScratch(bp)
	b := appendReadResult((*bp)[:0], cv.content)
	if m.rev.perRequest {
		b = s.appendCacheable(b)
		b = s.appendCompleteResult(b, false)
	}
	*bp = b
	return m.respond(b), nil
}

// declaresExtension reports whether a 2026-07-28 request's client
// declared the extension id in its _meta clientCapabilities.
func declaresExtension(meta map[string]any, id string) bool {
	caps, _ := meta[metaClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext[id]
	return ok
}

// resourceMethod dispatches the resources methods views answer.
func (s *Server) resourceMethod(ctx context.Context, m *message) ([]byte, error) {
	switch m.method {
	case "resources/read":
		return s.readResource(ctx, m)
	case "resources/list":
		return s.listResources(ctx, m)
	}
	return s.listResourceTemplates(ctx, m)
}
