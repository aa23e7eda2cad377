package enquiry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
)

// Page sizes of tool_catalogue.
const (
	defaultLimit = 50
	maxLimit     = 200
)

// catalogueInput is the arguments of tool_catalogue.
type catalogueInput struct {
	Category string `json:"category,omitempty" jsonschema:"Only this category (case-insensitive); Other for tools without one."`
	Offset   int    `json:"offset,omitempty" jsonschema:"nextOffset of the previous page."`
	Limit    int    `json:"limit,omitempty" jsonschema:"Tools per page."`
}

// catalogueResult is the answer of tool_catalogue.
type catalogueResult struct {
	// Categories hold this page's tools, grouped by category in catalogue
	// order (categories alphabetically, Other last; tools by name).
	Categories []catalogueCategory `json:"categories"`
	// Total is the number of tools in the (filtered) catalogue.
	Total  int `json:"total"`
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	// NextOffset is the offset of the next page; absent on the last page.
	NextOffset *int `json:"nextOffset,omitempty"`
	Meta       meta `json:"meta"`
}

// catalogueCategory is one category of a catalogue page.
type catalogueCategory struct {
	Name  string          `json:"name"`
	Tools []catalogueTool `json:"tools"`
}

// catalogueTool is one tool of a catalogue page.
type catalogueTool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	WhenToUse   string `json:"whenToUse,omitempty"`
}

// catalogueTool builds tool_catalogue.
func (e *enquirer) catalogueTool() (mcp.Tool, error) {
	in, err := mcp.SchemaFor[catalogueInput]()
	if err != nil {
		return nil, err
	}
	in.Properties["category"].MaxLength = ptr(200)
	in.Properties["offset"].Minimum = ptr(0.0)
	in.Properties["limit"].Minimum = ptr(1.0)
	in.Properties["limit"].Maximum = ptr(float64(maxLimit))
	in.Properties["limit"].Default = json.RawMessage(fmt.Sprint(defaultLimit))
	out, err := mcp.SchemaFor[catalogueResult]()
	if err != nil {
		return nil, err
	}
	return mcp.NewTool(mcp.ToolInfo{
		Name:        e.opts.CatalogueName,
		Title:       "Tool catalogue",
		Description: "Lists every tool you may call by category (name, title, description, whenToUse), paged.",
		InputSchema: in,
		Permission:  e.opts.Permission,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
		Guide: &mcp.Guide{
			OutputSchema: out,
			Category:     e.opts.Category,
			WhenToUse:    "The whole tool inventory, or every tool of one category, to choose among them.",
			WhenNotToUse: []string{"One tool's parameters or schema, or which tool does a given thing - use " + e.opts.DetailName + "."},
			Details: "Categories are sorted by name with Other (tools without a category) last, tools by name; an " +
				"unknown category is an error that names the valid ones. limit is 1..200, default 50. " +
				"Page with offset: pass the answer's nextOffset until it is absent. total counts the whole (filtered) catalogue.",
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{}`), Outcome: "the first 50 tools, grouped by category, with nextOffset when there are more."},
				{Arguments: json.RawMessage(`{"category":"` + e.opts.Category + `"}`), Outcome: "the enquiry tools only."},
			},
		},
	}, e.catalogue)
}

// catalogue answers one tool_catalogue call.
func (e *enquirer) catalogue(ctx context.Context, req *mcp.Request, in catalogueInput) (catalogueResult, error) {
	start := time.Now()
	limit := in.Limit
	switch {
	case limit == 0:
		limit = defaultLimit
	case limit < 1 || limit > maxLimit:
		return catalogueResult{}, &mcp.ArgumentError{Tool: req.Name, Path: "/limit",
			Msg: fmt.Sprintf("expected 1..%d, got %d", maxLimit, in.Limit)}
	}
	if in.Offset < 0 {
		return catalogueResult{}, &mcp.ArgumentError{Tool: req.Name, Path: "/offset",
			Msg: fmt.Sprintf("expected ≥ 0, got %d", in.Offset)}
	}
	category := strings.TrimSpace(in.Category)

	ix := e.index()
	allowed := ix.allowed(func(p string) bool { return e.az.Allowed(ctx, req.Caller, p) })
	res := catalogueResult{Categories: []catalogueCategory{}, Offset: in.Offset, Limit: limit}
	for _, id := range ix.catalogue {
		d := &ix.docs[id]
		if !allowed[d.group] || category != "" && !strings.EqualFold(category, d.category) {
			continue
		}
		res.Total++
		if res.Total <= in.Offset || res.Total > in.Offset+limit {
			continue
		}
		n := len(res.Categories)
		if n == 0 || res.Categories[n-1].Name != d.category {
			res.Categories = append(res.Categories, catalogueCategory{Name: d.category})
			n++
		}
		c := &res.Categories[n-1]
		c.Tools = append(c.Tools, catalogueTool{Name: d.name, Title: d.entry.Title,
			Description: d.entry.Description, WhenToUse: d.entry.WhenToUse})
	}
	if category != "" && res.Total == 0 {
		return catalogueResult{}, &mcp.ArgumentError{Tool: req.Name, Path: "/category",
			Msg: fmt.Sprintf("unknown category %q; the categories are %s", clip(category), ix.categories(allowed))}
	}
	if next := in.Offset + limit; next < res.Total {
		res.NextOffset = &next
	}
	res.Meta.ServerMs = sinceMs(start)
	return res, nil
}

// categories lists the categories of the permitted tools, in catalogue
// order, for an error message.
func (ix *index) categories(allowed []bool) string {
	var names []string
	for _, id := range ix.catalogue {
		d := &ix.docs[id]
		if allowed[d.group] && (len(names) == 0 || names[len(names)-1] != d.category) {
			names = append(names, d.category)
		}
	}
	if len(names) == 0 {
		return "none: no tool may be called"
	}
	return strings.Join(names, ", ")
}
