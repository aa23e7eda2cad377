package codetools

import (
	"strings"
	"testing"
)

// A struct field is an entry of its own: a literal search for its name
// finds it, the kind filter keeps fields, and code_definition answers the
// struct, focused on the field's line, for its id or its short name.
func TestFieldEntries(t *testing.T) {
	c := priorCatalog(t, true)
	res := searchOK(t, c, SearchQuery{Query: "MaxConns"})
	if got := ids(res); len(got) == 0 || got[0] != "example.com/app.Config.MaxConns" || res.Results[0].Kind != KindField {
		t.Fatalf("MaxConns: %q %+v", got, res.Results)
	}
	res = searchOK(t, c, SearchQuery{Query: "region", Kind: KindField})
	if got := ids(res); len(got) != 1 || got[0] != "example.com/app.Config.Region" {
		t.Errorf("region, kind field: %q", got)
	}
	res = searchOK(t, c, SearchQuery{Query: "region", Kind: KindType})
	for _, h := range res.Results {
		if h.Kind != KindType {
			t.Errorf("region, kind type: %+v", h)
		}
	}
	for _, name := range []string{"example.com/app.Config.MaxConns", "MaxConns", "app.Config.MaxConns"} {
		d, err := c.Definition(ctx, DefinitionQuery{Name: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Name != "example.com/app.Config" || d.Kind != KindType || d.Focus == nil ||
			!strings.Contains(d.Focus.Text, "MaxConns") || d.Focus.Line <= d.Line {
			t.Errorf("%s: %s %s focus %+v", name, d.Name, d.Kind, d.Focus)
		}
	}
	// A field does not enclose a file line: the struct does.
	x, _ := c.index(ctx)
	i, _ := x.ExactID("example.com/app.Config.MaxConns")
	e := &x.Entries[i]
	d, err := c.Definition(ctx, DefinitionQuery{Name: "x.go:" + itoa(int(e.Line))})
	if err != nil || d.Name != "example.com/app.Config" {
		t.Errorf("x.go:%d: %v %v", e.Line, d, err)
	}
}
