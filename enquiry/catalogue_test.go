package enquiry

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// page is tool_catalogue's answer as a client decodes it.
type page struct {
	Categories []struct {
		Name  string `json:"name"`
		Tools []struct {
			Name        string `json:"name"`
			Title       string `json:"title"`
			Description string `json:"description"`
			WhenToUse   string `json:"whenToUse"`
		} `json:"tools"`
	} `json:"categories"`
	Total      int  `json:"total"`
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	NextOffset *int `json:"nextOffset"`
	Meta       struct {
		ServerMs *float64 `json:"serverMs"`
	} `json:"meta"`
}

func catalogue(t *testing.T, ts *mcp.ToolSet, az mcp.Authorizer, caller mcp.Caller, args string) page {
	t.Helper()
	_, res := callRaw(t, ts, az, caller, DefaultCatalogueName, args)
	var p page
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &p); err != nil {
		t.Fatal(err)
	}
	if p.Categories == nil || p.Meta.ServerMs == nil {
		t.Fatalf("%s: categories or meta.serverMs missing", args)
	}
	return p
}

// flat lists a page as "Category/name".
func (p page) flat() []string {
	var out []string
	for _, c := range p.Categories {
		if len(c.Tools) == 0 {
			out = append(out, c.Name+"/(empty)")
		}
		for _, tl := range c.Tools {
			out = append(out, c.Name+"/"+tl.Name)
		}
	}
	return out
}

func TestCatalogueGrouping(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	p := catalogue(t, ts, mcp.AllowAll(), mcp.Caller{}, `{}`)
	want := []string{
		"Code generation/ek9_add_constructor", "Code generation/ek9_add_field",
		"Diagnostics/ek9_apply_quick_fix", "Diagnostics/ek9_explain_error",
		"Editing/ek9_add_reference", "Editing/ek9_edit_file", "Editing/ek9_insert_statements",
		"Enquiry/tool_catalogue", "Enquiry/tool_detail",
		"Navigation/ek9_find_references", "Navigation/ek9_find_symbol",
		"Refactoring/ek9_change_signature", "Refactoring/ek9_extract_method", "Refactoring/ek9_inline_variable",
		"Refactoring/ek9_introduce_parameter", "Refactoring/ek9_introduce_variable", "Refactoring/ek9_rename_symbol",
		"Refactoring/ek9_surround_with",
		"Other/ek9_format_file", "Other/ek9_run_tests",
	}
	if got := p.flat(); !slices.Equal(got, want) {
		t.Errorf("catalogue\n got %q\nwant %q", got, want)
	}
	if p.Total != len(want) || p.NextOffset != nil || p.Limit != 50 || p.Offset != 0 {
		t.Errorf("total %d nextOffset %v limit %d offset %d", p.Total, p.NextOffset, p.Limit, p.Offset)
	}
	for _, c := range p.Categories {
		for _, tl := range c.Tools {
			if tl.Name == "ek9_edit_file" && (tl.Title != "Edit file" || !strings.HasPrefix(tl.WhenToUse, "Text edits") || tl.Description == "") {
				t.Errorf("ek9_edit_file entry %+v", tl)
			}
		}
	}
}

func TestCataloguePaging(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	whole := catalogue(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"limit":200}`).flat()
	var got []string
	offset, pages := 0, 0
	for {
		p := catalogue(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"limit":7,"offset":`+itoa(offset)+`}`)
		pages++
		if p.Total != len(whole) {
			t.Fatalf("page %d: total %d, want %d", pages, p.Total, len(whole))
		}
		if n := len(p.flat()); n > 7 || n == 0 {
			t.Fatalf("page %d has %d tools", pages, n)
		}
		got = append(got, p.flat()...)
		if p.NextOffset == nil {
			break
		}
		if *p.NextOffset != offset+7 {
			t.Fatalf("nextOffset %d after offset %d", *p.NextOffset, offset)
		}
		offset = *p.NextOffset
	}
	if pages != 3 || !slices.Equal(got, whole) {
		t.Errorf("%d pages concatenate to\n%q\nwant\n%q", pages, got, whole)
	}
	p := catalogue(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"offset":500}`)
	if len(p.Categories) != 0 || p.Total != len(whole) || p.NextOffset != nil {
		t.Errorf("past the end: %+v", p)
	}
}

func TestCatalogueCategoryFilter(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	p := catalogue(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"category":" navigation "}`)
	if want := []string{"Navigation/ek9_find_references", "Navigation/ek9_find_symbol"}; !slices.Equal(p.flat(), want) || p.Total != 2 {
		t.Errorf("navigation: %q total %d", p.flat(), p.Total)
	}
	p = catalogue(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"category":"other"}`)
	if want := []string{"Other/ek9_format_file", "Other/ek9_run_tests"}; !slices.Equal(p.flat(), want) {
		t.Errorf("other: %q", p.flat())
	}
	// An unknown category is an error naming the valid ones, those of the
	// tools the caller may use only.
	for _, c := range []struct {
		az     mcp.Authorizer
		caller mcp.Caller
		want   string
	}{
		{mcp.AllowAll(), mcp.Caller{}, "Code generation, Diagnostics, Editing, Enquiry, Navigation, Refactoring, Other"},
		{mcp.GrantsAuthorizer{}, mcp.Caller{Grants: []string{permDiag}}, "Diagnostics, Enquiry, Navigation"},
	} {
		ts := ek9Set(t, c.az, nil)
		_, err := mcp.NewServer(ts, c.az, nil).CallTool(context.Background(), mcp.NewRequest(c.caller, DefaultCatalogueName, json.RawMessage(`{"category":"Nonexistent"}`)))
		var ae *mcp.ArgumentError
		if !errors.As(err, &ae) || !strings.Contains(ae.Msg, `unknown category "Nonexistent"`) || !strings.HasSuffix(ae.Msg, "are "+c.want) {
			t.Errorf("unknown category for %v: %v", c.caller.Grants, err)
		}
	}
}

func TestCatalogueAuthorization(t *testing.T) {
	az := mcp.GrantsAuthorizer{}
	ts := ek9Set(t, az, nil)
	p := catalogue(t, ts, az, mcp.Caller{Grants: []string{permDiag}}, `{}`)
	want := []string{
		"Diagnostics/ek9_explain_error",
		"Enquiry/tool_catalogue", "Enquiry/tool_detail",
		"Navigation/ek9_find_references", "Navigation/ek9_find_symbol",
	}
	if !slices.Equal(p.flat(), want) || p.Total != len(want) {
		t.Errorf("diag reader sees %q (total %d), want %q", p.flat(), p.Total, want)
	}
}

func TestCatalogueArgumentErrors(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	for _, args := range []string{`{"limit":0}`, `{"limit":201}`, `{"offset":-1}`, `{"limit":"5"}`, `{"page":2}`, `{"limit":1.5}`} {
		_, err := mcp.NewServer(ts, mcp.AllowAll(), nil).CallTool(context.Background(), mcp.NewRequest(mcp.Caller{}, DefaultCatalogueName, json.RawMessage(args)))
		if !errors.Is(err, mcp.ErrInvalidArguments) {
			t.Errorf("%s: want invalid arguments, got %v", args, err)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
