package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/embedmcp/mcp/internal/schemacheck"
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
	s, err := schemacheck.Infer(t, o.NullableSlices)
	if err != nil {
		return nil, fmt.Errorf("%w: inferring the schema of %s: %v", ErrInvalidSchema, t, err)
	}
	return s, nil
}

// SchemaOptions change how SchemaWith infers a schema from a Go type.
type SchemaOptions struct {
	// NullableSlices infers a slice field that is not behind a pointer as
	// ["null","array"], as jsonschema-go does and as this package did
	// before; by default it is "array", and a nil slice in a typed tool's
	// output is sent as [] to match.
	NullableSlices bool
}

// SchemaWith is SchemaFor with options; opts may be nil. A schema from it
// with NullableSlices set, put in ToolInfo.InputSchema and OutputSchema,
// keeps a tool's schemas (and its nil slices sent as null) as they were.
func SchemaWith[T any](opts *SchemaOptions) (*jsonschema.Schema, error) {
	var o SchemaOptions
	if opts != nil {
		o = *opts
	}
	return inferSchema(reflect.TypeFor[T](), o)
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

// compiledSchema is a tool's schema compiled at registration (package
// schemacheck is the engine).
type compiledSchema struct{ *schemacheck.Schema }

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
	c, err := schemacheck.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: %s schema: %v", ErrInvalidSchema, tool, which, err)
	}
	return &compiledSchema{c}, nil
}

// validate checks arguments against the schema and turns a failure into an
// *ArgumentError a model can act on.
func (c *compiledSchema) validate(tool string, v any) error {
	if path, msg, ok := c.Check(v); !ok {
		return &ArgumentError{Tool: tool, Path: path, Msg: msg}
	}
	return nil
}

// checkOutput checks a tool's own output against the schema: a failure is
// ErrInvalidOutput, a bug in the tool.
func (c *compiledSchema) checkOutput(tool string, v any) error {
	if path, msg, ok := c.Check(v); !ok {
		return fmt.Errorf("%w: tool %q: %s: %s", ErrInvalidOutput, tool, path, msg)
	}
	return nil
}
