package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFor infers the JSON Schema of T with jsonschema-go, as NewTool does:
// exported fields become properties named by their json tags, fields without
// omitempty/omitzero are required, a `jsonschema:"..."` tag is the field's
// description, and time.Time is a string of format date-time. Use it to start
// from the inferred schema and adjust it (enums, defaults, relaxing
// additionalProperties) before putting it in ToolInfo.
//
// A slice or map field is "array" or "object": null only when the field is
// a pointer or is tagged `mcp:"nullable"`, and a typed tool sends a nil
// slice or map of its output as [] or {} to match (SchemaWith with
// SchemaOptions.NullableSlices keeps slices ["null","array"]).
func SchemaFor[T any]() (*jsonschema.Schema, error) {
	return schemaForType(reflect.TypeFor[T]())
}

func schemaForType(t reflect.Type) (*jsonschema.Schema, error) {
	return inferSchema(t, SchemaOptions{})
}

func inferSchema(t reflect.Type, o SchemaOptions) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
			reflect.TypeFor[json.RawMessage](): {},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: inferring the schema of %s: %v", ErrInvalidSchema, t, err)
	}
	tightenNulls(t, s, o.NullableSlices, map[reflect.Type]bool{})
	return s, nil
}

// ParseSchema decodes a hand-written JSON Schema (2020-12) document, for
// ToolInfo.InputSchema and OutputSchema.
func ParseSchema(doc []byte) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	return &s, nil
}

// compiledSchema is a schema checked and resolved once, at registration,
// with its encoding for tools/list.
type compiledSchema struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	encoded  json.RawMessage
	fast     *fastNode // nil: the schema needs jsonschema-go (see schemafast.go)
}

// anyObjectJSON is the input schema of tools that declare none.
var anyObjectJSON = json.RawMessage(`{"type":"object"}`)

// compileSchema checks that s is an object schema that compiles. which names
// the schema in errors ("input" or "output").
func compileSchema(tool, which string, s *jsonschema.Schema) (*compiledSchema, error) {
	if s == nil {
		return nil, nil
	}
	if s.Type != "object" && !(len(s.Types) == 1 && s.Types[0] == "object") {
		got := s.Type
		if got == "" && len(s.Types) > 0 {
			got = strings.Join(s.Types, ",")
		}
		if got == "" {
			got = "no type"
		}
		return nil, fmt.Errorf("%w: tool %q: %s schema must have type \"object\", has %s", ErrInvalidSchema, tool, which, got)
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: %s schema: %v", ErrInvalidSchema, tool, which, err)
	}
	enc, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: %s schema: %v", ErrInvalidSchema, tool, which, err)
	}
	return &compiledSchema{schema: s, resolved: rs, encoded: enc, fast: compileFast(s)}, nil
}

// check validates a generic value and says where and why it failed: on
// the fast path when the schema and the value allow it, else with
// jsonschema-go (checkSlow); both give the same path and message.
func (c *compiledSchema) check(v any) (path, msg string, ok bool) {
	if c.fast != nil {
		if f, handled := c.fast.check(v); handled {
			if f == nil {
				return "", "", true
			}
			return f.path, f.message(), false
		}
	}
	return c.checkSlow(v)
}

// checkSlow validates a generic value with jsonschema-go and explains a
// failure (see explain).
func (c *compiledSchema) checkSlow(v any) (path, msg string, ok bool) {
	if err := c.resolved.Validate(v); err != nil {
		path, msg = explain(err, c.schema, v)
		return path, msg, false
	}
	return "", "", true
}

// validate checks arguments against the schema and turns a failure into an
// *ArgumentError a model can act on.
func (c *compiledSchema) validate(tool string, v any) error {
	if path, msg, ok := c.check(v); !ok {
		return &ArgumentError{Tool: tool, Path: path, Msg: msg}
	}
	return nil
}

// checkOutput checks a tool's own output against the schema: a failure is
// ErrInvalidOutput, a bug in the tool.
func (c *compiledSchema) checkOutput(tool string, v any) error {
	if path, msg, ok := c.check(v); !ok {
		return fmt.Errorf("%w: tool %q: %s: %s", ErrInvalidOutput, tool, path, msg)
	}
	return nil
}
