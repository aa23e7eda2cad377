package schemacheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/internal/boundedjson"
	"github.com/google/jsonschema-go/jsonschema"
)

// TestSchemaMessages covers every entry of schemaMessages: jsonschema-go's
// failure of that keyword becomes the instance path and a message saying
// what was expected and what was given.
func TestSchemaMessages(t *testing.T) {
	long := strings.Repeat("é", 5000)
	tests := []struct {
		keyword, schema, instance string
		path, msg                 string
	}{
		{"type", `{"type":"object","properties":{"q":{"type":"string"}}}`, `{"q":5}`, "/q", "expected string, got integer 5"},
		{"type", `{"type":"object","properties":{"q":{"type":"string"}}}`, `{"q":null}`, "/q", "expected string, got null"},
		{"type", `{"type":"object","properties":{"q":{"type":["string","integer"]}}}`, `{"q":1.5}`, "/q", "expected string or integer, got number 1.5"},
		{"type", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer"}}}}`, `{"l":[1,"x"]}`, "/l/*", "expected integer, got string"},
		{"enum", `{"type":"object","properties":{"do":{"enum":["ok","fail"]}}}`, `{"do":"nope"}`, "/do", `must be one of "ok", "fail", got string "nope"`},
		{"const", `{"type":"object","properties":{"v":{"const":2}}}`, `{"v":3}`, "/v", "must be 2, got 3"},
		{"minimum", `{"type":"object","properties":{"limit":{"type":"integer","minimum":1}}}`, `{"limit":0}`, "/limit", "must be at least 1, got 0"},
		{"maximum", `{"type":"object","properties":{"limit":{"type":"integer","maximum":100}}}`, `{"limit":101}`, "/limit", "must be at most 100, got 101"},
		{"exclusiveMinimum", `{"type":"object","properties":{"x":{"exclusiveMinimum":0.5}}}`, `{"x":0.5}`, "/x", "must be greater than 0.5, got 0.5"},
		{"exclusiveMaximum", `{"type":"object","properties":{"x":{"exclusiveMaximum":10}}}`, `{"x":12}`, "/x", "must be less than 10, got 12"},
		{"multipleOf", `{"type":"object","properties":{"x":{"multipleOf":5}}}`, `{"x":12}`, "/x", "must be a multiple of 5, got 12"},
		{"minLength", `{"type":"object","properties":{"q":{"type":"string","minLength":2}}}`, `{"q":"é"}`, "/q", "must be at least 2 characters long, got 1"},
		{"maxLength", `{"type":"object","properties":{"q":{"type":"string","maxLength":3}}}`, `{"q":"` + long + `"}`, "/q", "must be at most 3 characters long, got 5000"},
		{"pattern", `{"type":"object","properties":{"id":{"type":"string","pattern":"^[A-Z]-[0-9]+$"}}}`, `{"id":"` + long + `"}`, "/id",
			`must match the pattern "^[A-Z]-[0-9]+$", got string "` + strings.Repeat("é", 32) + `"…`},
		{"required", `{"type":"object","properties":{"a":{},"b":{}},"required":["a","b"]}`, `{"b":1}`, "", `missing required property "a"`},
		{"additionalProperties", `{"type":"object","properties":{"query":{},"limit":{}},"additionalProperties":false}`, `{"query":"x","lmit":3}`, "",
			`unexpected property "lmit" (the schema allows "limit", "query")`},
		{"minItems", `{"type":"object","properties":{"l":{"type":"array","minItems":2}}}`, `{"l":[1]}`, "/l", "must have at least 2 items, got 1"},
		{"maxItems", `{"type":"object","properties":{"l":{"type":"array","maxItems":1}}}`, `{"l":[1,2]}`, "/l", "must have at most 1 items, got 2"},
		{"minProperties", `{"type":"object","minProperties":1}`, `{}`, "", "must have at least 1 properties, got 0"},
		{"maxProperties", `{"type":"object","maxProperties":1}`, `{"a":1,"b":2}`, "", "must have at most 1 properties, got 2"},
		{"uniqueItems", `{"type":"object","properties":{"l":{"uniqueItems":true}}}`, `{"l":[1,2,1]}`, "/l", "items must be unique; items 0 and 2 are equal"},
		{"anyOf", `{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"boolean"}]}}}`, `{"x":1}`, "/x", "must match at least one of the schemas under anyOf"},
		{"oneOf", `{"type":"object","properties":{"x":{"oneOf":[{"type":"integer"},{"minimum":0}]}}}`, `{"x":1}`, "/x", "must match exactly one of the schemas under oneOf"},
		{"not", `{"type":"object","properties":{"x":{"not":{"type":"integer"}}}}`, `{"x":1}`, "/x", "must not match the schema under not"},
		{"contains", `{"type":"object","properties":{"l":{"contains":{"type":"string"}}}}`, `{"l":[1]}`, "/l", "must contain an item matching the schema under contains"},
		{"minContains", `{"type":"object","properties":{"l":{"contains":{"type":"string"},"minContains":2}}}`, `{"l":["a",1]}`, "/l", "has too few items matching the schema under contains"},
		{"maxContains", `{"type":"object","properties":{"l":{"contains":{"type":"string"},"maxContains":1}}}`, `{"l":["a","b"]}`, "/l", "has too many items matching the schema under contains"},
		{"dependentRequired", `{"type":"object","dependentRequired":{"a":["b"]}}`, `{"a":1}`, "", "lacks a property that another present property requires (dependentRequired)"},
		{"type", `{"type":"object","$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`, `{"a":"x"}`, "/a", `expected integer, got string "x"`},
		{"type", `{"type":"object","properties":{"a":{}},"additionalProperties":{"type":"boolean"}}`, `{"a":1,"b":true,"z":"s"}`, "/*", "expected boolean, got string"},
		{"type", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`, `{"l":[{"n":1},{"n":"x"}]}`, "/l/*/n", "expected integer, got string"},
		{"uniqueItems", `{"type":"object","properties":{"l":{"uniqueItems":true}}}`, `{"l":[{"a":[1,2]},3,{"a":[1,2.0]}]}`, "/l", "items must be unique; items 0 and 2 are equal"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.keyword] = true
		c, err := Compile(mustSchema(t, tt.schema))
		if err != nil {
			t.Fatal(err)
		}
		v, err := boundedjson.Parse([]byte(tt.instance), boundedjson.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		path, msg, ok := c.Check(v)
		if ok {
			t.Errorf("%s: %s accepted", tt.keyword, tt.instance)
			continue
		}
		if path != tt.path || msg != tt.msg {
			t.Errorf("%s: %.60s:\n got %q %q\nwant %q %q", tt.keyword, tt.instance, path, msg, tt.path, tt.msg)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(schemaMessages)) {
		if !covered[k] {
			t.Errorf("schemaMessages[%q] has no test", k)
		}
	}
}

// TestExplainReadsNoErrorText: explain finds the keyword and the path in
// the schema and the instance, not in jsonschema-go's error: an error of
// any text explains the same; only where the locator cannot follow the
// schema (unevaluatedProperties here) is the error's own text the message.
func TestExplainReadsNoErrorText(t *testing.T) {
	tests := []struct {
		schema, instance string
		path, msg        string
	}{
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`,
			`{"l":[{"n":1},{"n":"x"}]}`, "/l/*/n", "expected integer, got string"},
		{`{"type":"object","$defs":{"n":{"type":"integer","minimum":2}},"properties":{"a":{"properties":{"b":{"$ref":"#/$defs/n"}}}}}`,
			`{"a":{"b":1}}`, "/a/b", "must be at least 2, got 1"},
		// A member a pattern takes is named, not the pattern.
		{`{"type":"object","patternProperties":{"^q":{"type":"integer"}}}`, `{"qq":"x"}`, "/qq", `expected integer, got string "x"`},
		// dependentSchemas apply to the object itself.
		{`{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}`, `{"a":1}`, "", `missing required property "b"`},
		// draft-07 items as an array, then additionalItems.
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"q":{"type":"array","items":[{"type":"integer"}],"additionalItems":{"type":"string"}}}}`,
			`{"q":[1,2]}`, "/q/*", "expected string, got integer"},
		{`{"type":"object","$id":"https://example.com/s","properties":{"a":{"type":"string"}}}`, `{"a":true}`, "/a", "expected string, got boolean true"},
		{`{"type":"object","properties":{"a~/b":{"type":"string"}}}`, `{"a~/b":1}`, "/a~0~1b", "expected string, got integer 1"},
		{`{"type":"object","unevaluatedProperties":false}`, `{"a":1}`, "", "opaque"},
		// A keyword without a message of its own: where, and what
		// jsonschema-go said.
		{`{"type":"object","properties":{"o":{"propertyNames":{"maxLength":1}}}}`, `{"o":{"ab":1}}`, "/o", "opaque"},
	}
	for _, tt := range tests {
		c, err := Compile(mustSchema(t, tt.schema))
		if err != nil {
			t.Fatal(err)
		}
		v, err := boundedjson.Parse([]byte(tt.instance), boundedjson.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if c.resolved.Validate(v) == nil {
			t.Errorf("%s: %s accepted", tt.schema, tt.instance)
			continue
		}
		path, msg := explain(fmt.Errorf("validating root: %w", errors.New("opaque")), c.schema, v)
		if path != tt.path || msg != tt.msg {
			t.Errorf("%s: %s:\n got %q %q\nwant %q %q", tt.schema, tt.instance, path, msg, tt.path, tt.msg)
		}
		if tt.msg == "opaque" {
			continue
		}
		if p, m, _ := c.CheckSlow(v); p != path || m != msg {
			t.Errorf("%s: %s: with jsonschema-go's error %q %q, with another %q %q", tt.schema, tt.instance, p, m, path, msg)
		}
	}
}

// mustSchema decodes a schema of the tests.
func mustSchema(t *testing.T, doc string) *jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
