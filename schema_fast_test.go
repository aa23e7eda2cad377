package mcp

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The fast path (internal/schemacheck) is proven against jsonschema-go and
// explain (checkSlow): for every schema the tests use and a corpus of
// valid and invalid instances built from each schema, both accept or both
// refuse, with the same path and message.

// diffCheck compares the fast path and jsonschema-go on v: both accept or
// both refuse, and a refusal is explained alike (explain's locator, like
// the fast path, names the first failing property by name, where
// jsonschema-go's own error may name any).
func diffCheck(tb testing.TB, name string, c *compiledSchema, v any) {
	tb.Helper()
	fp, fm, fok, handled := c.CheckFast(v)
	if !handled {
		tb.Errorf("%s: %s: the fast path does not handle a generic value", name, describe(v))
		return
	}
	path, msg, ok := c.CheckSlow(v)
	if ok != fok {
		tb.Errorf("%s: %s:\njsonschema-go ok=%v %q %q\n    fast path ok=%v %q %q", name, describe(v), ok, path, msg, fok, fp, fm)
		return
	}
	if ok {
		return
	}
	if fp != path || fm != msg {
		tb.Errorf("%s: %s:\njsonschema-go %q %q\n    fast path %q %q", name, describe(v), path, msg, fp, fm)
	}
}

func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// namedSchema is a schema of the tests with where it comes from.
type namedSchema struct {
	name string
	s    *jsonschema.Schema
}

// testSchemas returns the object schemas written as JSON in the tests of
// this package and of mcptest, and those inferred from the tests' Go types.
// literals are the JSON objects and arrays of those tests, as instances.
func testSchemas(tb testing.TB) (schemas []namedSchema, literals []any) {
	tb.Helper()
	var files []string
	for _, glob := range []string{"*_test.go", "mcptest/*_test.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range files {
		af, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			tb.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			doc, ok := stringConstant(n)
			if !ok || seen[doc] || !(strings.HasPrefix(doc, "{") || strings.HasPrefix(doc, "[")) {
				return !ok
			}
			seen[doc] = true
			v, err := parseJSON([]byte(doc), DefaultLimits())
			if err != nil {
				return false
			}
			literals = append(literals, v)
			if s, err := ParseSchema([]byte(doc)); err == nil && strings.Contains(doc, `"type"`) {
				if _, err := compileSchema("t", "input", s); err == nil {
					schemas = append(schemas, namedSchema{fset.Position(n.Pos()).String(), s})
				}
			}
			return false
		})
	}
	for name, infer := range map[string]func() (*jsonschema.Schema, error){
		"weatherIn": SchemaFor[weatherIn], "weatherOut": SchemaFor[weatherOut], "plainOut": SchemaFor[plainOut],
		"plainSub": SchemaFor[plainSub], "stampOut": SchemaFor[stampOut], "embedOut": SchemaFor[embedOut],
		"anyOut": SchemaFor[anyOut], "bytesOut": SchemaFor[bytesOut], "stringTagOut": SchemaFor[stringTagOut],
		"decodeIn": SchemaFor[decodeIn],
	} {
		s, err := infer()
		if err != nil {
			tb.Fatal(err)
		}
		schemas = append(schemas, namedSchema{"SchemaFor[" + name + "]", s})
	}
	slices.SortFunc(schemas, func(a, b namedSchema) int { return strings.Compare(a.name, b.name) })
	return schemas, literals
}

// stringConstant is the value of a string literal, or of a sum of them.
func stringConstant(n ast.Node) (string, bool) {
	switch x := n.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		l, ok1 := stringConstant(x.X)
		r, ok2 := stringConstant(x.Y)
		return l + r, ok1 && ok2
	case *ast.ParenExpr:
		return stringConstant(x.X)
	}
	return "", false
}

// generic turns a Go value into its generic JSON form.
func generic(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	g, err := parseJSON(b, DefaultLimits())
	if err != nil {
		return nil
	}
	return g
}

// goodValue is a value meant to satisfy s (best effort: a pattern may
// still refuse it).
func goodValue(s *jsonschema.Schema, depth int) any {
	if s == nil {
		return "x"
	}
	if s.Const != nil {
		return generic(*s.Const)
	}
	if len(s.Enum) > 0 {
		return generic(s.Enum[0])
	}
	typ := s.Type
	if typ == "" && len(s.Types) > 0 {
		typ = s.Types[len(s.Types)-1]
	}
	switch typ {
	case "object":
		obj := map[string]any{}
		if depth > 0 {
			for k, p := range s.Properties {
				obj[k] = goodValue(p, depth-1)
			}
		}
		return obj
	case "array":
		arr := []any{}
		if s.MinItems != nil {
			for range *s.MinItems {
				arr = append(arr, goodValue(s.Items, depth-1))
			}
		}
		return arr
	case "string":
		n := 1
		if s.MinLength != nil {
			n = max(n, *s.MinLength)
		}
		return strings.Repeat("a", n)
	case "integer", "number":
		x := 1.0
		if s.Minimum != nil {
			x = math.Ceil(*s.Minimum)
		}
		if s.ExclusiveMinimum != nil {
			x = math.Floor(*s.ExclusiveMinimum) + 1
		}
		if s.MultipleOf != nil {
			x = math.Ceil(x / *s.MultipleOf) * *s.MultipleOf
		}
		return x
	case "boolean":
		return true
	case "null":
		return nil
	}
	return "x"
}

// someValues are values of every JSON type.
var someValues = []any{nil, true, false, 0.0, 1.0, -1.0, 1.5, -0.5, 1e300, -1e300, 9007199254740993.0,
	"", "a", "é", "has type \"zzz\"", strings.Repeat("é", 300), []any{}, []any{1.0, "a"}, []any{nil},
	map[string]any{}, map[string]any{"a": 1.0}}

// badValues are values for s: the good one, values of every type, and
// values at and beyond each bound.
func badValues(s *jsonschema.Schema, depth int) []any {
	good := goodValue(s, depth)
	vs := append([]any{good}, someValues...)
	if s == nil {
		return vs
	}
	for _, p := range []*float64{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum} {
		if p != nil {
			vs = append(vs, *p, *p-1, *p+1, *p-0.5, *p+0.5)
		}
	}
	if m := s.MultipleOf; m != nil {
		vs = append(vs, *m*3, *m*3+0.5, *m/2)
	}
	for _, p := range []*int{s.MinLength, s.MaxLength} {
		if p != nil {
			for _, n := range []int{*p - 1, *p, *p + 1} {
				if n >= 0 {
					vs = append(vs, strings.Repeat("é", n))
				}
			}
		}
	}
	for _, e := range s.Enum {
		vs = append(vs, generic(e))
	}
	if depth <= 0 {
		return vs
	}
	if s.Items != nil || s.MinItems != nil || s.MaxItems != nil {
		for _, p := range []*int{s.MinItems, s.MaxItems} {
			if p != nil {
				for _, n := range []int{*p - 1, *p + 1} {
					if n >= 0 && n < 100 {
						vs = append(vs, slices.Repeat([]any{goodValue(s.Items, depth-1)}, n))
					}
				}
			}
		}
		for _, item := range badValues(s.Items, depth-1) {
			vs = append(vs, []any{goodValue(s.Items, depth-1), item})
		}
	}
	if len(s.Properties) > 0 || s.AdditionalProperties != nil || s.Required != nil {
		vs = append(vs, objectValues(s, depth)...)
	}
	return vs
}

// objectValues are objects for s: all properties good, only the required
// ones, each one missing or wrong, one too many, two wrong at once.
func objectValues(s *jsonschema.Schema, depth int) []any {
	base, _ := goodValue(s, depth).(map[string]any)
	if base == nil {
		base = map[string]any{}
	}
	vs := []any{base}
	only := map[string]any{}
	for _, r := range s.Required {
		if v, ok := base[r]; ok {
			only[r] = v
		}
	}
	vs = append(vs, only)
	names := slices.Sorted(maps.Keys(s.Properties))
	with := func(kv ...any) map[string]any {
		m := maps.Clone(base)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, k := range names {
		m := maps.Clone(base)
		delete(m, k)
		vs = append(vs, m)
		for _, bad := range badValues(s.Properties[k], depth-1) {
			vs = append(vs, with(k, bad))
		}
	}
	vs = append(vs, with("zz_extra", 1.0), with("zz_extra", "x", "aa_extra", nil))
	if s.AdditionalProperties != nil {
		for _, bad := range badValues(s.AdditionalProperties, depth-1) {
			vs = append(vs, with("zz_extra", bad))
		}
	}
	for i := 0; i+1 < len(names) && i < 4; i++ {
		vs = append(vs, with(names[i], []any{map[string]any{}}, names[i+1], map[string]any{"x": nil}))
	}
	return vs
}

// instancesFor is the corpus for s: values built from it, the tests' own
// JSON literals, and values that are no object at all.
func instancesFor(s *jsonschema.Schema, literals []any) []any {
	return slices.Concat(badValues(s, 3), literals)
}

// TestSchemaFastPathDifferential: for every schema of the tests and its
// corpus, the fast path and jsonschema-go agree.
func TestSchemaFastPathDifferential(t *testing.T) {
	t.Parallel()
	schemas, literals := testSchemas(t)
	fast, checked := 0, 0
	for _, ns := range schemas {
		c, err := compileSchema("t", "input", ns.s)
		if err != nil {
			t.Fatalf("%s: %v", ns.name, err)
		}
		if !c.Fast() {
			t.Logf("jsonschema-go only: %s", ns.name)
			continue
		}
		fast++
		for _, v := range instancesFor(ns.s, literals) {
			diffCheck(t, ns.name, c, v)
			checked++
		}
	}
	t.Logf("%d of %d test schemas on the fast path, %d instances compared", fast, len(schemas), checked)
	if fast < len(schemas)/2 || checked < 1000 {
		t.Errorf("only %d of %d schemas on the fast path, %d instances compared", fast, len(schemas), checked)
	}
}

// TestSchemaFastPathScope: which schemas take the fast path.
func TestSchemaFastPathScope(t *testing.T) {
	tests := []struct {
		schema string
		fast   bool
	}{
		{`{"type":"object"}`, true},
		{`{"type":"object","properties":{"q":{"type":"string","minLength":1,"maxLength":9,"pattern":"^a"},"n":{"type":"integer","minimum":0,"maximum":9}},"required":["q"],"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","enum":["a","b"]},"minItems":1}}}`, true},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":["null","number"]}}}},"additionalProperties":{"type":"boolean"}}`, true},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"t","description":"d","properties":{"d":{"type":"string","format":"date-time","default":"x"}}}`, true},
		{`{"type":"object","properties":{"a_property_name_longer_than_the_forty_eight_bytes_a_path_keeps":{"type":"integer"}},"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"a~b":{}}}`, false},
		{`{"type":"object","properties":{"a/b":{}}}`, false},
		{`{"type":"object","properties":{"x":{"anyOf":[{"type":"string"}]}}}`, false},
		{`{"type":"object","properties":{"x":{"$ref":"#/$defs/n"}},"$defs":{"n":{}}}`, false},
		{`{"type":"object","properties":{"l":{"uniqueItems":true}}}`, false},
		{`{"type":"object","properties":{"x":{"enum":[[1]]}}}`, false},
		{`{"type":"object","patternProperties":{"^a":{}}}`, false},
		{`{"$id":"https://example.com/s","type":"object"}`, false},
		{`{"type":"object","additionalProperties":{"not":{"type":"string"}}}`, false},
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			c, err := compileSchema("t", "input", mustSchema(t, tt.schema))
			if err != nil {
				t.Fatalf("%s: %v", tt.schema, err)
			}
			if got := c.Fast(); got != tt.fast {
				t.Errorf("%s: fast path %v, want %v", tt.schema, got, tt.fast)
			}
		})
	}
}

// TestSchemaFastPathDeterministic: where several properties fail, the
// fast path names the first by name, every time (jsonschema-go names any).
func TestSchemaFastPathDeterministic(t *testing.T) {
	c, err := compileSchema("t", "input", mustSchema(t, `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}},"additionalProperties":{"type":"boolean"}}`))
	if err != nil || !c.Fast() {
		t.Fatal(err, c.Fast())
	}
	for _, tt := range []struct{ instance, path, msg string }{
		{`{"c":"x","b":"x","a":"x"}`, "/a", `expected integer, got string "x"`},
		{`{"z":1,"y":"s","x":null}`, "/*", "expected boolean, got null"},
	} {
		v, err := parseJSON([]byte(tt.instance), DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			if path, msg, ok := c.Check(v); ok || path != tt.path || msg != tt.msg {
				t.Fatalf("%s: %v %q %q, want %q %q", tt.instance, ok, path, msg, tt.path, tt.msg)
			}
		}
	}
}

// TestSchemaFastPathForeignValues: a value that is not generic JSON (a
// caller's own map type, an int) goes to jsonschema-go, with its answer.
func TestSchemaFastPathForeignValues(t *testing.T) {
	c, err := compileSchema("t", "input", mustSchema(t, `{"type":"object","properties":{"n":{"type":"integer","maximum":3}}}`))
	if err != nil || !c.Fast() {
		t.Fatal(err, c.Fast())
	}
	for _, v := range []any{map[string]int{"n": 5}, map[string]any{"n": 5}, map[string]any{"n": math.Inf(1)}} {
		if _, _, _, handled := c.CheckFast(v); handled {
			t.Errorf("%#v: handled by the fast path", v)
		}
		path, msg, ok := c.Check(v)
		slowPath, slowMsg, _ := c.CheckSlow(v)
		if ok || path != "/n" || path != slowPath || msg != slowMsg {
			t.Errorf("%#v: %v %q %q, jsonschema-go says %q %q", v, ok, path, msg, slowPath, slowMsg)
		}
	}
}

// BenchmarkValidateFlat validates a flat object (the shape of most tool
// arguments) on the fast path and with jsonschema-go.
func BenchmarkValidateFlat(b *testing.B) {
	c, err := compileSchema("t", "input", schemaOf(b, `{"type":"object","properties":{
		"query":{"type":"string","minLength":1,"maxLength":200},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"kind":{"type":"string","enum":["func","type","var","const"]},
		"exact":{"type":"boolean"},
		"tags":{"type":"array","items":{"type":"string"},"maxItems":8}},
		"required":["query"],"additionalProperties":false}`))
	if err != nil || !c.Fast() {
		b.Fatal(err, c.Fast())
	}
	v, err := parseJSON([]byte(`{"query":"ServeHTTP","limit":20,"kind":"func","exact":false,"tags":["http","server"]}`), DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		check func(any) (string, string, bool)
	}{{"fast", c.Check}, {"jsonschema-go", c.CheckSlow}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, ok := bc.check(v); !ok {
					b.Fatal("refused")
				}
			}
		})
	}
}

func schemaOf(tb testing.TB, doc string) *jsonschema.Schema {
	tb.Helper()
	s, err := ParseSchema([]byte(doc))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
