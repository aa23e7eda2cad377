package codetools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/testsupport/shop"
)

// refs asks c for a relation and returns its items as "how id file:line".
func refs(t *testing.T, c *codetools.Catalog, name, relation string) (*codetools.References, []string) {
	t.Helper()
	res, err := c.References(context.Background(), codetools.ReferencesQuery{Name: name, Relation: relation})
	if err != nil {
		t.Fatalf("%s of %s: %v", relation, name, err)
	}
	var out []string
	for _, it := range res.Items {
		s := it.How + " " + it.ID
		if it.Via != "" {
			s += " via " + it.Via
		}
		if it.File != "" {
			s += " " + filepath.Base(it.File) + ":" + strconv.Itoa(it.Line)
		}
		out = append(out, s)
	}
	return res, out
}

func TestReferencesOfTheShop(t *testing.T) {
	c := shop.Catalog("shopd")
	for _, tc := range []struct {
		name, relation string
		want           []string
	}{
		{shop.Pricing + ".Promotion.Apply", "callers",
			[]string{"dynamic " + shop.Checkout + ".Price via " + shop.Checkout + ".Discount.Apply checkout.go:33"}},
		{"checkout.Discount", "implementations", []string{"implements " + shop.Pricing + ".Promotion pricing.go:5"}},
		{shop.Pricing + ".Promotion", "implementations", []string{"implements " + shop.Checkout + ".Discount checkout.go:13"}},
		{"checkout.Discount.Apply", "implementations", []string{"implements " + shop.Pricing + ".Promotion.Apply pricing.go:12"}},
		{shop.Pricing + ".Promotion.Apply", "implementations", []string{"implements " + shop.Checkout + ".Discount.Apply checkout.go:14"}},
		{shop.Checkout + ".Price", "callees", []string{
			"call " + shop.Basket + ".Basket.Total checkout.go:31",
			"dynamic " + shop.Checkout + ".Discount.Apply checkout.go:33"}},
		{shop.Checkout + ".Price", "callers", []string{"call " + shop.Checkout + ".WithCode checkout.go:40"}},
		{shop.Checkout + ".Order.String", "callers",
			[]string{"dynamic " + shop.Checkout + ".Receipt via fmt.Stringer.String checkout.go:50"}},
		{"fmt.Stringer", "implementations", []string{"implements " + shop.Checkout + ".Order checkout.go:21"}},
		{"basket.Basket", "methods", []string{
			"declared " + shop.Basket + ".(*Basket).Add basket.go:33",
			"declared " + shop.Basket + ".Basket.Total basket.go:57"}},
		{"checkout.Discount", "methods", []string{"declared " + shop.Checkout + ".Discount.Apply checkout.go:14"}},
		{"basket.Line.Quantity", "references", []string{
			"read " + shop.Basket + ".(*Basket).Add basket.go:39",
			"write " + shop.Basket + ".(*Basket).Add basket.go:42",
			"write " + shop.Basket + ".(*Basket).Add basket.go:52",
			"read " + shop.Basket + ".Basket.Total basket.go:60"}},
		{shop.Basket + ".ErrOutOfStock", "references", []string{
			"read " + shop.Basket + ".(*Basket).Add basket.go:40",
			"read " + shop.Basket + ".(*Basket).Add basket.go:50"}},
		{"errors.New", "references", []string{
			"call " + shop.Basket + ".ErrOutOfStock basket.go:14",
			"call " + shop.Checkout + ".ErrEmpty checkout.go:18"}},
	} {
		res, got := refs(t, c, tc.name, tc.relation)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s of %s:\n%s\nwant\n%s", tc.relation, tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
		if res.Total != len(tc.want) || res.More || !strings.Contains(res.Limitations, "reflection") {
			t.Errorf("%s of %s: total %d more %v limitations %q", tc.relation, tc.name, res.Total, res.More, res.Limitations)
		}
		for _, it := range res.Items {
			if it.File != "" && it.Text == "" {
				t.Errorf("%s of %s: item %s has no text", tc.relation, tc.name, it.ID)
			}
		}
	}
	// Every item's id is one code_definition accepts.
	for _, rel := range []string{"callers", "callees", "references"} {
		res, _ := refs(t, c, shop.Checkout+".Price", rel)
		for _, it := range res.Items {
			if _, err := c.Definition(context.Background(), codetools.DefinitionQuery{Name: it.ID}); err != nil {
				t.Errorf("code_definition of %s (%s of Price): %v", it.ID, rel, err)
			}
		}
	}
}

func TestReferencesPages(t *testing.T) {
	c := shop.Catalog("shopd")
	q := codetools.ReferencesQuery{Name: "basket.Line.Quantity", Relation: "references", Limit: 3}
	var lines []int
	for range 3 {
		res, err := c.References(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range res.Items {
			lines = append(lines, it.Line)
		}
		if !res.More {
			break
		}
		q = *res.NextArguments
	}
	if !slices.Equal(lines, []int{39, 42, 52, 60}) {
		t.Errorf("pages gave lines %v", lines)
	}
}

func TestReferencesBadInput(t *testing.T) {
	c := shop.Catalog("shopd")
	ctx := context.Background()
	for _, tc := range []struct {
		q    codetools.ReferencesQuery
		is   error
		want []string
	}{
		{codetools.ReferencesQuery{Name: "checkout.Price", Relation: "callerz"}, codetools.ErrInvalidArgument,
			[]string{`unknown relation "callerz"`, "callers, callees, references, implementations, methods"}},
		{codetools.ReferencesQuery{Name: "checkout.Price", Relation: strings.Repeat("x", 5000)}, codetools.ErrInvalidArgument,
			[]string{"unknown relation"}},
		{codetools.ReferencesQuery{Name: "checkout.Prise", Relation: "callers"}, codetools.ErrUnknownName,
			[]string{"checkout.Prise", shop.Checkout + ".Price"}},
		{codetools.ReferencesQuery{Name: "Add", Relation: "callers"}, codetools.ErrAmbiguousName,
			[]string{shop.Basket + ".(*Basket).Add"}},
		{codetools.ReferencesQuery{Name: "checkout.Price", Relation: "methods"}, codetools.ErrInvalidArgument,
			[]string{"methods applies to types and interfaces", "callers, callees, references"}},
		{codetools.ReferencesQuery{Name: "basket.Line.Quantity", Relation: "callers"}, codetools.ErrInvalidArgument,
			[]string{"is a field"}},
		{codetools.ReferencesQuery{Name: shop.Basket, Relation: "references"}, codetools.ErrInvalidArgument,
			[]string{"is a package"}},
		{codetools.ReferencesQuery{Name: "", Relation: "callers"}, codetools.ErrInvalidArgument, []string{"name must not be empty"}},
		{codetools.ReferencesQuery{Name: "checkout.Price", Relation: "callers", Limit: 101}, codetools.ErrInvalidArgument, []string{"limit"}},
		{codetools.ReferencesQuery{Name: "checkout.Price", Relation: "callers", Offset: -1}, codetools.ErrInvalidArgument, []string{"offset"}},
		{codetools.ReferencesQuery{Name: "checkout.Price", Relation: "callers", Offset: 7}, codetools.ErrInvalidArgument, []string{"past the 1 callers"}},
	} {
		_, err := c.References(ctx, tc.q)
		if !errors.Is(err, tc.is) {
			t.Errorf("%+.60v: %v, want %v", tc.q, err, tc.is)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+.60v: %q lacks %q", tc.q, err, w)
			}
		}
		if len(err.Error()) > 1500 {
			t.Errorf("%+.60v: error of %d bytes", tc.q, len(err.Error()))
		}
	}
}

func TestFileOfTheShop(t *testing.T) {
	c := shop.Catalog("shopd")
	ctx := context.Background()
	f, err := c.File(ctx, codetools.FileQuery{Path: "checkout/checkout.go", StartLine: 27, EndLine: 28})
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != shop.Checkout+"/checkout.go" || f.StartLine != 27 || f.EndLine != 28 || f.More ||
		f.Text != "func Price(b basket.Basket, d Discount) (Order, error) {\n\tif len(b.Lines) == 0 {\n" {
		t.Errorf("lines 26-27: %+v", f)
	}
	mod, err := c.File(ctx, codetools.FileQuery{Path: shop.Module + "/go.mod"})
	if err != nil || !strings.HasPrefix(mod.Text, "module example.com/shop\n") || mod.TotalLines != 3 {
		t.Errorf("go.mod: %+v %v", mod, err)
	}
	trace, err := c.File(ctx, codetools.FileQuery{Path: shop.Basket + "/basket.go:40 +0x1d"})
	if err != nil || trace.StartLine != 20 || trace.EndLine != 60 || !strings.Contains(trace.Text, "return ErrOutOfStock") {
		t.Errorf("stack-trace line: %+v %v", trace, err)
	}
	dir := t.TempDir()
	outside := filepath.Join(dir, "secret.go")
	if err := os.WriteFile(outside, []byte("package secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../../etc/passwd", "/etc/passwd", "basket/../../../etc/passwd", "..", "/", outside,
		"manifest.json", "index.txt", "src/" + shop.Basket + "/../../../../manifest.json", "secret.go", "C:\\Windows\\win.ini"} {
		_, err := c.File(ctx, codetools.FileQuery{Path: p})
		if !errors.Is(err, codetools.ErrNotInSnapshot) || !strings.Contains(err.Error(), "not in the snapshot") {
			t.Errorf("%q: %v, want not in the snapshot", p, err)
		}
	}
	for _, q := range []codetools.FileQuery{
		{Path: ""}, {Path: "go.mod\x00"}, {Path: "go.mod", StartLine: 9}, {Path: "go.mod", StartLine: 3, EndLine: 2},
		{Path: "go.mod", StartLine: -1},
	} {
		if _, err := c.File(ctx, q); !errors.Is(err, codetools.ErrInvalidArgument) {
			t.Errorf("%+v: %v, want an invalid argument", q, err)
		}
	}
}

func TestDefinitionListsOfTheShop(t *testing.T) {
	c := shop.Catalog("shopd")
	ctx := context.Background()
	d, err := c.Definition(ctx, codetools.DefinitionQuery{Name: shop.Pricing + ".Promotion"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Methods) != 1 || d.Methods[0].ID != shop.Pricing+".Promotion.Apply" || d.Methods[0].Line != 12 ||
		!strings.HasPrefix(d.Methods[0].Text, "func (p Promotion) Apply") || !slices.Equal(d.Implements, []string{shop.Checkout + ".Discount"}) {
		t.Errorf("Promotion: methods %+v implements %v", d.Methods, d.Implements)
	}
	p, err := c.Definition(ctx, codetools.DefinitionQuery{Name: shop.Checkout})
	if err != nil {
		t.Fatal(err)
	}
	var decls []string
	for _, it := range p.Declarations {
		decls = append(decls, it.Kind+" "+it.ID[len(shop.Checkout)+1:])
	}
	if !slices.Equal(p.Files, []string{shop.Checkout + "/checkout.go"}) ||
		!slices.Equal(decls, []string{"var ErrEmpty", "func Price", "func Receipt", "func WithCode", "type Discount", "type Order"}) || p.ListTotal != 6 {
		t.Errorf("package: files %v declarations %v (total %d)", p.Files, decls, p.ListTotal)
	}
	m, err := c.Definition(ctx, codetools.DefinitionQuery{Name: "checkout.Discount.Apply"})
	if err != nil || m.Name != shop.Checkout+".Discount" || m.Focus == nil || m.Focus.Line != 14 ||
		!strings.Contains(m.Focus.Text, "Apply(total int64) int64") {
		t.Errorf("interface method: %+v %v", m, err)
	}
	ext, err := c.Definition(ctx, codetools.DefinitionQuery{Name: "fmt.Stringer"})
	if err != nil || ext.Source != codetools.SourceReferences || ext.SourceAvailable || ext.Kind != "interface" {
		t.Errorf("a function outside the snapshot: %+v %v", ext, err)
	}
	if _, err := c.Definition(ctx, codetools.DefinitionQuery{Name: shop.Checkout, ListOffset: 7}); !errors.Is(err, codetools.ErrInvalidArgument) {
		t.Errorf("listOffset past the end: %v", err)
	}
}

func TestRoutesOfTheShop(t *testing.T) {
	c := shop.Catalog("shopd")
	for _, tc := range []struct{ query, scope, want string }{
		{"POST /checkout/SPRING10", "", shop.Checkout + ".WithCode"},
		{"/checkout", "", shop.Checkout + ".Price"},
		{"PUT /basket/ann/lines", "", shop.Basket + ".(*Basket).Add"},
		{"basket", "routes", shop.Basket + ".(*Basket).Add"},
	} {
		res, err := c.Search(context.Background(), codetools.SearchQuery{Query: tc.query, Scope: tc.scope})
		if err != nil {
			t.Fatal(err)
		}
		if res.Match != codetools.MatchRoute || len(res.Results) == 0 || res.Results[0].Name != tc.want {
			t.Errorf("%q: %+v", tc.query, res.Results)
		}
	}
	// A method that matches no route's method finds nothing in routes,
	// and a path query without a route falls back to the ordinary search.
	res, err := c.Search(context.Background(), codetools.SearchQuery{Query: "DELETE /checkout", Scope: "routes"})
	if err != nil || res.Total != 0 {
		t.Errorf("DELETE /checkout: %+v %v", res, err)
	}
	res, err = c.Search(context.Background(), codetools.SearchQuery{Query: "/nowhere"})
	if err != nil || res.Match == codetools.MatchRoute {
		t.Errorf("/nowhere: %+v %v", res, err)
	}
}

// TestNavigationConcurrent: cold calls of every navigation tool at once
// load the references once and agree (run it with -race).
func TestNavigationConcurrent(t *testing.T) {
	c := shop.Catalog("shopd")
	ctx := context.Background()
	errs := make(chan error, 40)
	for i := range 40 {
		go func() {
			var err error
			switch i % 4 {
			case 0:
				var r *codetools.References
				r, err = c.References(ctx, codetools.ReferencesQuery{Name: "basket.Line.Quantity", Relation: "references"})
				if err == nil && r.Total != 4 {
					err = errors.New("wrong total")
				}
			case 1:
				_, err = c.File(ctx, codetools.FileQuery{Path: "basket/basket.go:40"})
			case 2:
				_, err = c.Definition(ctx, codetools.DefinitionQuery{Name: shop.Pricing + ".Promotion"})
			case 3:
				err = c.AddRoutes(codetools.Route{Pattern: "GET /r/" + strconv.Itoa(i), Code: shop.Checkout + ".Price"})
				if err == nil {
					_, err = c.Search(ctx, codetools.SearchQuery{Query: "/r/3"})
				}
			}
			errs <- err
		}()
	}
	for range 40 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
