// Package schemacheck is the library's JSON Schema engine: it infers a
// schema from a Go type, compiles a schema once, validates the generic
// decoded JSON of arguments and outputs against it, and says where and
// why a value failed in words a model can act on.
//
// jsonschema-go decides what is valid. For plain object schemas a fast
// path (fast.go) validates without reflection and without allocating; for
// a failure the locator (locate.go) finds the keyword and the path, and
// messages.go words it from the schema and the value alone.
package schemacheck

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/embedmcp/mcp/internal/boundedjson"
	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a schema checked and resolved once, with its encoding.
type Schema struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	encoded  json.RawMessage
	fast     *fastNode // nil: the schema needs jsonschema-go (see fast.go)
}

// Compile resolves s (with its defaults validated) and encodes it. The
// error is jsonschema-go's or encoding/json's.
func Compile(s *jsonschema.Schema) (*Schema, error) {
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, err
	}
	enc, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return &Schema{schema: s, resolved: rs, encoded: enc, fast: compileFast(s)}, nil
}

// Encoded returns the schema's JSON encoding, for tools/list. The caller
// must not modify it.
func (c *Schema) Encoded() json.RawMessage { return c.encoded }

// Fast reports whether the schema takes the fast path.
func (c *Schema) Fast() bool { return c.fast != nil }

// Check validates a generic value and says where and why it failed: on
// the fast path when the schema and the value allow it, else with
// jsonschema-go (CheckSlow); both give the same path and message.
func (c *Schema) Check(v any) (path, msg string, ok bool) {
	if c.fast != nil {
		if f, handled := c.fast.check(v); handled {
			if f == nil {
				return "", "", true
			}
			return f.path, f.message(), false
		}
	}
	return c.CheckSlow(v)
}

// CheckFast is Check on the fast path only: handled is false when the
// schema or the value needs jsonschema-go.
func (c *Schema) CheckFast(v any) (path, msg string, ok, handled bool) {
	if c.fast == nil {
		return "", "", false, false
	}
	f, handled := c.fast.check(v)
	if !handled {
		return "", "", false, false
	}
	if f == nil {
		return "", "", true, true
	}
	return f.path, f.message(), false, true
}

// CheckSlow validates a generic value with jsonschema-go and explains a
// failure (see explain).
func (c *Schema) CheckSlow(v any) (path, msg string, ok bool) {
	if err := c.resolved.Validate(v); err != nil {
		path, msg = explain(err, c.schema, v)
		return path, msg, false
	}
	return "", "", true
}

// Infer infers the JSON Schema of t with jsonschema-go: time.Time is a
// string of format date-time, json.RawMessage any value, and a slice or
// map field is null only when behind a pointer or tagged
// `mcp:"nullable"` (every slice with nullableSlices). The error is
// jsonschema-go's.
func Infer(t reflect.Type, nullableSlices bool) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
			reflect.TypeFor[json.RawMessage](): {},
		},
	})
	if err != nil {
		return nil, err
	}
	tightenNulls(t, s, nullableSlices, map[reflect.Type]bool{})
	return s, nil
}

// shorten bounds a text quoted in a message.
func shorten(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return boundedjson.Truncate(s, max) + "…"
}
