package mcptest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/embedmcp/mcp"
)

// CheckViews checks the contracts the Server relies on in a
// ViewRegistry, and reports every violation (Violation.Tool names the
// view's URI):
//
//   - list: AllViews yields views, sorted by URI, without duplicates, the
//     same on a second pass.
//   - lookup: LookupView finds every listed view under its URI, and not an
//     unknown URI.
//   - register: every view is one a ToolSet accepts (a ui:// URI, a name,
//     HTML within mcp.MaxViewBytes, origins in its CSP).
//
// A panic in either method is reported as a violation too.
func CheckViews(vr mcp.ViewRegistry) (err error) {
	var errs []error
	fail := func(uri, rule, format string, args ...any) {
		errs = append(errs, &Violation{Tool: uri, Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}
	defer func() {
		if r := recover(); r != nil {
			fail("", "panic", "the ViewRegistry panicked: %v", r)
		}
		err = errors.Join(errs...)
	}()
	list := func() []*mcp.View {
		var out []*mcp.View
		for v := range vr.AllViews() {
			out = append(out, v)
		}
		return out
	}
	views := list()
	var uris []string
	for i, v := range views {
		if v == nil {
			fail("", "list", "view %d of AllViews is nil", i)
			return
		}
		uris = append(uris, v.URI)
	}
	if !slices.IsSorted(uris) {
		fail("", "list", "not sorted by URI: %s", strings.Join(uris, ", "))
	}
	if len(slices.Compact(slices.Clone(uris))) != len(uris) {
		fail("", "list", "a URI appears twice: %s", strings.Join(uris, ", "))
	}
	var again []string
	for _, v := range list() {
		if v != nil {
			again = append(again, v.URI)
		}
	}
	if !slices.Equal(again, uris) {
		fail("", "list", "a second pass over AllViews yields other views: [%s], then [%s]", strings.Join(uris, ", "), strings.Join(again, ", "))
	}
	for _, v := range views {
		if got, ok := vr.LookupView(v.URI); !ok || got == nil || got.URI != v.URI {
			fail(v.URI, "lookup", "listed, but LookupView does not find it")
		}
		if err := mcp.NewToolSet().RegisterViews(*v); err != nil {
			fail(v.URI, "register", "the Server cannot serve it: %v", err)
		}
	}
	unknown := "ui://mcptest/no-such-view"
	if _, ok := vr.LookupView(unknown); ok {
		fail("", "lookup", "LookupView finds the unknown URI %q", unknown)
	}
	return nil
}
