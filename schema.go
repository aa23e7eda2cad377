package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
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
func SchemaFor[T any]() (*jsonschema.Schema, error) {
	return schemaForType(reflect.TypeFor[T]())
}

func schemaForType(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
			reflect.TypeFor[json.RawMessage](): {},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: inferring the schema of %s: %v", ErrInvalidSchema, t, err)
	}
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
	resolved *jsonschema.Resolved
	encoded  json.RawMessage
}

// anyObjectSchema is the input schema of tools that declare none.
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
	return &compiledSchema{resolved: rs, encoded: enc}, nil
}

// check validates a generic value with jsonschema-go, the one validator.
func (c *compiledSchema) check(v any) error {
	return c.resolved.Validate(v)
}

// validate checks a generic value against the schema and turns a failure
// into an *ArgumentError a model can act on.
func (c *compiledSchema) validate(tool string, v any) error {
	if err := c.check(v); err != nil {
		path, msg := explainValidation(err.Error())
		return &ArgumentError{Tool: tool, Path: path, Msg: msg}
	}
	return nil
}

var (
	reValidating = regexp.MustCompile(`validating (/[^:]*|root): `)
	reType       = regexp.MustCompile(`^type: (.*) has type "([a-z]+)", want (?:one of )?(.*)$`)
	reRequired   = regexp.MustCompile(`^required: missing properties: \[(.*)\]$`)
	reAdditional = regexp.MustCompile(`^unexpected additional properties \[(.*)\]$`)
)

// explainValidation rewrites a jsonschema-go error such as
//
//	validating root: validating /properties/text: type: 5 has type "integer", want "string"
//
// into an instance path ("/text") and a message ("expected string, got
// integer 5").
func explainValidation(e string) (path, msg string) {
	schemaPath := ""
	rest := e
	for {
		loc := reValidating.FindStringSubmatchIndex(rest)
		if loc == nil || loc[0] != 0 {
			break
		}
		if p := rest[loc[2]:loc[3]]; p != "root" {
			schemaPath = p
		}
		rest = rest[loc[1]:]
	}
	path = instancePath(schemaPath)
	switch {
	case reType.MatchString(rest):
		m := reType.FindStringSubmatch(rest)
		want := strings.NewReplacer(`"`, "", "[", "", "]", "").Replace(m[3])
		want = strings.ReplaceAll(want, " ", " or ")
		return path, fmt.Sprintf("expected %s, got %s %s", want, m[2], shorten(m[1]))
	case reRequired.MatchString(rest):
		m := reRequired.FindStringSubmatch(rest)
		return path, "missing required property " + strings.Join(strings.Fields(m[1]), ", ")
	case reAdditional.MatchString(rest):
		m := reAdditional.FindStringSubmatch(rest)
		return path, "unexpected property " + strings.Join(strings.Fields(m[1]), ", ") + " (not in the schema)"
	}
	// minimum, maximum, enum, pattern, minLength...: already say what was
	// expected and what was given.
	return path, shorten(rest)
}

// instancePath maps a schema path (/properties/a/items/properties/b) to the
// path of the instance it validated (/a/*/b).
func instancePath(schemaPath string) string {
	if schemaPath == "" {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(schemaPath, "/"), "/")
	var out []string
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties", "patternProperties", "dependentSchemas":
			if i+1 < len(parts) {
				out = append(out, parts[i+1])
				i++
			}
		case "items", "additionalProperties", "prefixItems", "contains":
			out = append(out, "*")
			if parts[i] == "prefixItems" && i+1 < len(parts) {
				i++
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "/" + strings.Join(out, "/")
}
