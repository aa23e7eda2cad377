// Views: the MCP Apps extension (io.modelcontextprotocol/ui, SEP-1865).
// A host registers a View (a ui:// HTML resource) in a ToolSet and names
// it from a tool's ToolInfo.View; clients that render MCP Apps read it with
// resources/read and show the tool's results in it. The Server's side of
// the resources methods is in resources.go.

package mcp

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// The MCP Apps extension's names and bounds.
const (
	// UIExtension is the identifier of the MCP Apps extension, advertised
	// in server/discover (2026-07-28) when views are registered.
	UIExtension = "io.modelcontextprotocol/ui"
	// ViewMIMEType is the MIME type of a view's HTML in resources/read.
	ViewMIMEType = "text/html;profile=mcp-app"
	// MaxViewBytes bounds a view's HTML: 160 KiB.
	MaxViewBytes = 160 << 10
	// MaxViewURIBytes bounds a view's URI.
	MaxViewURIBytes = 512
	// MaxViewDomains bounds each of a view's CSP domain lists.
	MaxViewDomains = 32
)

// Errors of view registration, for errors.Is.
var (
	// ErrInvalidView: a View whose URI is not a ui:// URI within
	// MaxViewURIBytes, without a name, whose HTML is empty, larger than
	// MaxViewBytes or not UTF-8, or whose CSP names something that is not
	// an origin.
	ErrInvalidView = errors.New("mcp: invalid view")
	// ErrDuplicateView: RegisterViews was given a URI already registered.
	ErrDuplicateView = errors.New("mcp: duplicate view")
	// ErrUnknownView: a tool names a view (ToolInfo.View) that its ToolSet
	// does not hold.
	ErrUnknownView = errors.New("mcp: unknown view")
	// ErrViewInUse: RemoveViews was asked to remove a view a registered
	// tool names.
	ErrViewInUse = errors.New("mcp: view in use")
)

// A View is an MCP Apps user interface: one self-contained HTML document,
// served at a ui:// URI as text/html;profile=mcp-app, that a client
// renders in a sandboxed iframe and hands the results of the tools that
// name it (ToolInfo.View). A caller sees a view (resources/list,
// resources/read) only if it may call a tool that names it, or holds the
// view's own Permission; to anyone else it does not exist.
type View struct {
	// URI identifies the view: "ui://" followed by a host and an optional
	// path, at most MaxViewURIBytes, e.g. "ui://runtime/profile".
	URI string
	// Name is the view's programmatic name; Title an optional
	// human-readable one.
	Name, Title string
	// Description says what the view shows.
	Description string
	// HTML is the complete HTML5 document, at most MaxViewBytes, valid UTF-8.
	// Hosts apply a Content Security Policy that, unless CSP names them,
	// allows no outside origin: inline script and style only.
	HTML string
	// CSP names the outside origins the view needs, if any.
	CSP ViewCSP
	// PrefersBorder asks the host for a visible border and background
	// (true) or none (false); nil lets the host decide.
	PrefersBorder *bool
	// Permission, when not "", lets callers that hold it read the view
	// even if they may call no tool that names it.
	Permission string
}

// ViewCSP lists the origins a view may reach, each "scheme://host[:port]"
// with scheme http, https, ws or wss and a host that may start with "*."
// (any subdomain); at most MaxViewDomains per list. Empty lists allow no
// outside origin.
type ViewCSP struct {
	ConnectDomains  []string // fetch, XHR, WebSocket (connect-src)
	ResourceDomains []string // scripts, styles, images, fonts, media
	FrameDomains    []string // nested iframes (frame-src)
	BaseURIDomains  []string // base URIs (base-uri)
}

// Visibility says who may call a tool that a view shows (MCP Apps
// _meta.ui.visibility): the model, the view (through the host), or both.
// The zero value is the default, both, and is not sent.
type Visibility uint8

// The audiences of a tool. An app-only tool (VisibleToApp alone) is meant
// for views, which call it through the host: hosts leave it out of the
// model's tool list, and so does the Server under 2026-07-28 for clients
// that do not declare UIExtension; it stays callable.
const (
	VisibleToModel Visibility = 1 << iota
	VisibleToApp
)

// appOnly reports whether only views may see the tool.
func (v Visibility) appOnly() bool { return v == VisibleToApp }

// names returns the audiences as MCP Apps names them.
func (v Visibility) names() []string {
	var n []string
	if v&VisibleToModel != 0 {
		n = append(n, "model")
	}
	if v&VisibleToApp != 0 {
		n = append(n, "app")
	}
	return n
}

// A ViewRegistry holds views by URI. ToolSet implements it; the Server
// serves the views of Options.Views, or of its Registry when that is a
// ViewRegistry.
//
// Implementations must be safe for concurrent use.
type ViewRegistry interface {
	// LookupView returns the view registered under uri.
	LookupView(uri string) (*View, bool)
	// AllViews yields every registered view once, sorted by URI.
	AllViews() iter.Seq[*View]
}

// compiledView is a checked view with its wire forms, made once.
type compiledView struct {
	v       *View
	desc    []byte // the Resource of resources/list
	content []byte // the TextResourceContents of resources/read
}

// checkViewURI reports what is wrong with a view URI, or nil.
func checkViewURI(uri string) error {
	const scheme = "ui://"
	switch {
	case !strings.HasPrefix(uri, scheme):
		return fmt.Errorf("%w: URI %s does not start with ui://", ErrInvalidView, quoteName(uri))
	case len(uri) > MaxViewURIBytes:
		return fmt.Errorf("%w: URI %s is longer than %d bytes", ErrInvalidView, quoteName(uri), MaxViewURIBytes)
	}
	rest := uri[len(scheme):]
	host, _, _ := strings.Cut(rest, "/")
	if host == "" {
		return fmt.Errorf("%w: URI %s has no host after ui://", ErrInvalidView, quoteName(uri))
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c <= ' ' || c >= 0x7F || strings.IndexByte(`"<>\^`+"`{|}?#", c) >= 0 {
			return fmt.Errorf("%w: URI %s has a character a ui:// URI cannot have", ErrInvalidView, quoteName(uri))
		}
	}
	return nil
}

// checkOrigin reports what is wrong with a CSP origin, or nil.
func checkOrigin(o string) error {
	scheme, host, ok := strings.Cut(o, "://")
	switch {
	case !ok || (scheme != "https" && scheme != "http" && scheme != "wss" && scheme != "ws"):
		return errors.New("is not an http, https, ws or wss origin")
	case len(o) > 256:
		return errors.New("is longer than 256 bytes")
	}
	host = strings.TrimPrefix(host, "*.")
	if h, port, has := strings.Cut(host, ":"); has {
		if port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
			return errors.New("has an invalid port")
		}
		host = h
	}
	if host == "" || strings.Trim(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != "" {
		return errors.New("is not scheme://host[:port]")
	}
	return nil
}

// checkText reports what is wrong with a short text of a view, or nil.
func checkText(field, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%s is longer than %d bytes", field, max)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", field)
	}
	return nil
}

// compileView checks v and encodes its wire forms.
func compileView(v *View) (*compiledView, error) {
	if v == nil {
		return nil, fmt.Errorf("%w: nil view", ErrInvalidView)
	}
	if err := checkViewURI(v.URI); err != nil {
		return nil, err
	}
	bad := func(err error) error { return fmt.Errorf("%w: %s: %v", ErrInvalidView, v.URI, err) }
	if v.Name == "" {
		return nil, bad(errors.New("the name is empty"))
	}
	for _, f := range []struct {
		field, s string
		max      int
	}{{"Name", v.Name, 128}, {"Title", v.Title, 128}, {"Description", v.Description, 4096}, {"Permission", v.Permission, 256}} {
		if err := checkText(f.field, f.s, f.max); err != nil {
			return nil, bad(err)
		}
	}
	switch {
	case v.HTML == "":
		return nil, bad(errors.New("the HTML is empty"))
	case len(v.HTML) > MaxViewBytes:
		return nil, bad(fmt.Errorf("HTML is %d bytes, more than %d", len(v.HTML), MaxViewBytes))
	case !utf8.ValidString(v.HTML):
		return nil, bad(errors.New("HTML is not valid UTF-8"))
	}
	lists := []struct {
		key string
		l   []string
	}{{"connectDomains", v.CSP.ConnectDomains}, {"resourceDomains", v.CSP.ResourceDomains},
		{"frameDomains", v.CSP.FrameDomains}, {"baseUriDomains", v.CSP.BaseURIDomains}}
	for _, l := range lists {
		if len(l.l) > MaxViewDomains {
			return nil, bad(fmt.Errorf("csp %s has %d origins, more than %d", l.key, len(l.l), MaxViewDomains))
		}
		for _, o := range l.l {
			if err := checkOrigin(o); err != nil {
				return nil, bad(fmt.Errorf("csp %s: %s %v", l.key, quoteName(o), err))
			}
		}
	}
	// A copy, so that the caller's later changes change nothing.
	cp := *v
	cp.CSP = ViewCSP{slices.Clone(v.CSP.ConnectDomains), slices.Clone(v.CSP.ResourceDomains),
		slices.Clone(v.CSP.FrameDomains), slices.Clone(v.CSP.BaseURIDomains)}
	if v.PrefersBorder != nil {
		b := *v.PrefersBorder
		cp.PrefersBorder = &b
	}
	meta := appendViewMeta(nil, &cp)
	return &compiledView{v: &cp, desc: appendViewResource(nil, &cp, meta), content: appendViewContents(nil, &cp, meta)}, nil
}

// checkViews compiles views, refusing two with one URI.
func checkViews(views []View) ([]*compiledView, error) {
	out := make([]*compiledView, len(views))
	seen := make(map[string]bool, len(views))
	for i := range views {
		cv, err := compileView(&views[i])
		if err != nil {
			return nil, err
		}
		if seen[cv.v.URI] {
			return nil, fmt.Errorf("%w: %s is given twice", ErrDuplicateView, cv.v.URI)
		}
		seen[cv.v.URI] = true
		out[i] = cv
	}
	return out, nil
}

// RegisterViews adds views. It adds all of them or, on the first invalid
// or duplicate one, none, and returns an error that matches ErrInvalidView
// or ErrDuplicateView. Views are registered before the tools that name
// them.
func (ts *ToolSet) RegisterViews(views ...View) error { return ts.changeViews(views, false) }

// SetViews adds views, replacing those registered under the same URIs, in
// one atomic change. Like RegisterViews it changes nothing when one of the
// views is invalid.
func (ts *ToolSet) SetViews(views ...View) error { return ts.changeViews(views, true) }

func (ts *ToolSet) changeViews(views []View, replace bool) error {
	cvs, err := checkViews(views)
	if err != nil {
		return err
	}
	ts.mu.Lock()
	old := ts.load()
	next := make(map[string]*compiledView, len(old.views)+len(cvs))
	maps.Copy(next, old.views)
	for _, cv := range cvs {
		if _, exists := next[cv.v.URI]; exists && !replace {
			ts.mu.Unlock()
			return fmt.Errorf("%w: %s is already registered", ErrDuplicateView, cv.v.URI)
		}
		next[cv.v.URI] = cv
	}
	ts.swapAndNotify(old.byName, next)
	return nil
}

// RemoveViews removes the views of the given URIs and reports how many were
// registered. It removes none, and returns an error matching ErrViewInUse,
// when a registered tool names one of them: remove the tool first.
func (ts *ToolSet) RemoveViews(uris ...string) (int, error) {
	ts.mu.Lock()
	old := ts.load()
	n := 0
	for _, uri := range uris {
		if _, ok := old.views[uri]; ok {
			n++
		}
	}
	if n == 0 {
		ts.mu.Unlock()
		return 0, nil
	}
	for _, t := range old.sorted {
		if info, err := toolInfo(t); err == nil && info.View != "" && slices.Contains(uris, info.View) {
			ts.mu.Unlock()
			return 0, fmt.Errorf("%w: tool %q names %s", ErrViewInUse, info.Name, info.View)
		}
	}
	next := maps.Clone(old.views)
	for _, uri := range uris {
		delete(next, uri)
	}
	ts.swapAndNotify(old.byName, next)
	return n, nil
}

// checkToolViews reports a tool among tools that names a view views does
// not hold.
func checkToolViews(tools []Tool, views map[string]*compiledView) error {
	for _, t := range tools {
		info, err := toolInfo(t)
		if err != nil {
			return err
		}
		if info.View != "" && views[info.View] == nil {
			return fmt.Errorf("%w: tool %q names %s, which is not registered", ErrUnknownView, info.Name, quoteName(info.View))
		}
	}
	return nil
}

// LookupView implements ViewRegistry.
func (ts *ToolSet) LookupView(uri string) (*View, bool) {
	cv, ok := ts.load().views[uri]
	if !ok {
		return nil, false
	}
	return cv.v, true
}

// AllViews implements ViewRegistry: it yields the views of the set as it
// was when AllViews was called, sorted by URI.
func (ts *ToolSet) AllViews() iter.Seq[*View] {
	sorted := ts.load().viewsSorted
	return func(yield func(*View) bool) {
		for _, cv := range sorted {
			if !yield(cv.v) {
				return
			}
		}
	}
}

// compiledView returns the checked form of a registered view (the Server
// uses it instead of encoding the view again).
func (ts *ToolSet) compiledView(uri string) (*compiledView, bool) {
	cv, ok := ts.load().views[uri]
	return cv, ok
}

// checkToolUI reports what is wrong with a tool's View and Visibility.
func checkToolUI(info *ToolInfo) error {
	if info.View != "" {
		if err := checkViewURI(info.View); err != nil {
			return fmt.Errorf("%w: tool %q: View: %v", ErrInvalidToolInfo, info.Name, err)
		}
	}
	if info.Visibility > VisibleToModel|VisibleToApp {
		return fmt.Errorf("%w: tool %q: Visibility %d is no combination of VisibleToModel and VisibleToApp",
			ErrInvalidToolInfo, info.Name, info.Visibility)
	}
	if info.View != "" || info.Visibility != 0 {
		for _, k := range []string{"ui", legacyResourceURIKey} {
			if _, has := info.Meta[k]; has {
				return fmt.Errorf("%w: tool %q: Meta[%q] is View and Visibility's", ErrInvalidToolInfo, info.Name, k)
			}
		}
	}
	return nil
}

// legacyResourceURIKey is the flat _meta key of MCP Apps drafts, which
// hosts of today still read; tools/list carries it beside _meta.ui.
const legacyResourceURIKey = "ui/resourceUri"

// toolMeta returns a tool's _meta object: Meta with View and Visibility.
func toolMeta(info *ToolInfo) map[string]any {
	if info.View == "" && info.Visibility == 0 {
		return info.Meta
	}
	m := make(map[string]any, len(info.Meta)+2)
	maps.Copy(m, info.Meta)
	ui := map[string]any{}
	if info.View != "" {
		ui["resourceUri"] = info.View
		m[legacyResourceURIKey] = info.View
	}
	if info.Visibility != 0 {
		ui["visibility"] = info.Visibility.names()
	}
	m["ui"] = ui
	return m
}
