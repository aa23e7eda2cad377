package mcp

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// headerParam is a tool parameter mirrored into an Mcp-Param-{Name} header
// (the x-mcp-header schema extension).
type headerParam struct {
	header string   // the name part of Mcp-Param-{Name}
	path   []string // the chain of properties from the schema root
	typ    string   // string, integer or boolean
}

// headerParams finds the x-mcp-header annotations of an input schema and
// checks them: non-empty HTTP tokens, unique regardless of case, on
// primitive non-number properties reachable through properties alone.
func headerParams(s *jsonschema.Schema) ([]headerParam, error) {
	var out []headerParam
	seen := map[string]bool{}
	var walk func(s *jsonschema.Schema, path []string) error
	walk = func(s *jsonschema.Schema, path []string) error {
		if s == nil {
			return nil
		}
		if raw, ok := s.Extra["x-mcp-header"]; ok {
			name, isString := raw.(string)
			where := "/" + strings.Join(path, "/")
			switch {
			case !isString || !isToken(name):
				return fmt.Errorf("x-mcp-header at %s must be a non-empty HTTP token", where)
			case len(path) == 0:
				return fmt.Errorf("x-mcp-header on the schema root")
			case seen[strings.ToLower(name)]:
				return fmt.Errorf("x-mcp-header %q appears twice", name)
			case s.Type != "string" && s.Type != "integer" && s.Type != "boolean":
				return fmt.Errorf("x-mcp-header %q at %s: type must be string, integer or boolean", name, where)
			}
			seen[strings.ToLower(name)] = true
			out = append(out, headerParam{header: name, path: append([]string(nil), path...), typ: s.Type})
		}
		for k, p := range s.Properties {
			if err := walk(p, append(path, k)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(s, nil); err != nil {
		return nil, err
	}
	return out, nil
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
