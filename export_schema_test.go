package mcp

import (
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFastPathDifferential lets the external tests run the fast path's
// differential check (schema_fast_test.go) on the schemas of the tool
// packages, which import this one: values built from each schema and the
// tests' literals that name one of its properties. It returns the names
// of the schemas that took the fast path and how many instances it
// compared.
func SchemaFastPathDifferential(t *testing.T, schemas map[string]*jsonschema.Schema) (fast []string, compared int) {
	t.Helper()
	_, literals := testSchemas(t)
	for name, s := range schemas {
		c, err := compileSchema(name, "input", s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !c.Fast() {
			continue
		}
		fast = append(fast, name)
		// Depth 2: the tools' schemas nest little, and the tests' own
		// schemas are compared at depth 3 (TestSchemaFastPathDifferential).
		for _, v := range slices.Concat(badValues(s, 2), relevant(s, literals)) {
			diffCheck(t, name, c, v)
			compared++
		}
	}
	slices.Sort(fast)
	return fast, compared
}

// relevant keeps the literals that are objects naming a property of s: the
// tests' other literals fail every tool schema at its first keyword alike.
func relevant(s *jsonschema.Schema, literals []any) []any {
	var out []any
	for _, l := range literals {
		obj, ok := l.(map[string]any)
		if !ok {
			continue
		}
		for k := range obj {
			if _, ok := s.Properties[k]; ok {
				out = append(out, l)
				break
			}
		}
	}
	return out
}
