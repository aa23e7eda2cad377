package mcptest

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// badArgs is an argument object meant to break a schema.
type badArgs struct {
	desc string
	args json.RawMessage
}

// wrongValues are tried in turn as a value of the wrong type.
var wrongValues = []any{"mcptest: wrong type", 12345.5, true, map[string]any{"mcptest": 1.0}, []any{"mcptest"}, nil}

// invalidArguments derives from s argument objects that rs rejects: each
// property with a value of the wrong type, each required property missing,
// an unexpected property, and a non-object. Candidates rs accepts are
// dropped, so every one returned is invalid. rs nil means any object.
func invalidArguments(s *jsonschema.Schema, rs *jsonschema.Resolved) []badArgs {
	out := []badArgs{{"a non-object argument list", json.RawMessage(`["mcptest"]`)}}
	if s == nil || rs == nil {
		return out
	}
	base := map[string]any{}
	if b, ok := synthesize(s, 0); ok {
		if m, ok := b.(map[string]any); ok && rs.Validate(m) == nil {
			base = m
		}
	}
	invalid := func(m map[string]any) (json.RawMessage, bool) {
		if rs.Validate(m) == nil {
			return nil, false
		}
		b, err := json.Marshal(m)
		return b, err == nil
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		if p == nil || (p.Type == "" && len(p.Types) == 0) {
			continue
		}
		for _, w := range wrongValues {
			m := maps.Clone(base)
			m[name] = w
			if b, ok := invalid(m); ok {
				out = append(out, badArgs{"a wrong type for " + name, b})
				break
			}
		}
	}
	for _, name := range s.Required {
		m := maps.Clone(base)
		delete(m, name)
		if b, ok := invalid(m); ok {
			out = append(out, badArgs{"no " + name + " (required)", b})
		}
	}
	m := maps.Clone(base)
	m["mcptest_unexpected"] = true
	if b, ok := invalid(m); ok {
		out = append(out, badArgs{"an unexpected property", b})
	}
	return out
}

// synthesize makes a value s probably accepts: const, first enum value,
// default, or the least value of its type that meets its bounds, with
// every required property of an object. ok is false when it cannot.
func synthesize(s *jsonschema.Schema, depth int) (any, bool) {
	if s == nil {
		return map[string]any{}, true
	}
	if depth > 8 {
		return nil, false
	}
	switch {
	case s.Const != nil:
		return generic(*s.Const)
	case len(s.Enum) > 0:
		return generic(s.Enum[0])
	case len(s.Default) > 0:
		var v any
		if json.Unmarshal(s.Default, &v) == nil {
			return v, true
		}
	}
	t := s.Type
	if t == "" && len(s.Types) > 0 {
		t = s.Types[0]
	}
	switch t {
	case "object":
		m := map[string]any{}
		for _, name := range s.Required {
			v, ok := synthesize(s.Properties[name], depth+1)
			if !ok {
				return nil, false
			}
			m[name] = v
		}
		return m, true
	case "string":
		n := 1
		if s.MinLength != nil {
			n = max(n, *s.MinLength)
		}
		if s.MaxLength != nil {
			n = min(n, *s.MaxLength)
		}
		if s.Format == "date-time" {
			return "2006-01-02T15:04:05Z", true
		}
		return strings.Repeat("x", n), true
	case "integer", "number":
		v := 0.0
		if s.Minimum != nil {
			v = math.Max(v, *s.Minimum)
		}
		if s.ExclusiveMinimum != nil && v <= *s.ExclusiveMinimum {
			v = math.Floor(*s.ExclusiveMinimum) + 1
		}
		if s.Maximum != nil && v > *s.Maximum {
			v = *s.Maximum
		}
		if t == "integer" {
			v = math.Ceil(v)
		}
		return v, true
	case "boolean":
		return false, true
	case "array":
		n := 0
		if s.MinItems != nil {
			n = *s.MinItems
		}
		items := make([]any, 0, n)
		for range n {
			v, ok := synthesize(s.Items, depth+1)
			if !ok {
				return nil, false
			}
			items = append(items, v)
		}
		return items, true
	case "null":
		return nil, true
	case "":
		return "x", true
	}
	return nil, false
}

// generic returns v in the form encoding/json decodes into any.
func generic(v any) (any, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, false
	}
	return g, true
}
