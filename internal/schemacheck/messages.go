package schemacheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/embedmcp/mcp/internal/boundedjson"
	"github.com/google/jsonschema-go/jsonschema"
)

// jsonschema-go decides whether a value is valid; its error is text (it
// has no structured error type, up to v0.4.3, the latest). explain reads
// nothing of that text: the locator (locate.go) walks the schema
// against the value to find the failing keyword and where it lies, and
// everything a message says (what was expected, what was sent, which items
// are equal) comes from the schema and the instance themselves, one entry
// of schemaMessages per keyword, so that a model learns what was expected,
// what it sent and where, and nothing of the input is echoed unbounded.
// Only where the locator cannot follow the schema does the message repeat
// jsonschema-go's own, shortened. (The fast path, fast.go, builds
// the same failures for the schemas it compiles.)

// failure is one failed keyword.
type failure struct {
	keyword string             // the keyword that failed, e.g. "minimum"
	node    *jsonschema.Schema // the schema holding it; nil if not found
	path    string             // JSON pointer to the instance value; * for an array index
	value   any                // the instance value
	found   bool               // whether value was found (not under a *)
	// candidates are the values at path when it passes a * (every item,
	// every member), in order: the failing value is one of them.
	candidates []any
	leaf       string // jsonschema-go's own message, the last resort
}

// schemaMessages says, per keyword, what was wrong.
var schemaMessages = map[string]func(f *failure) string{
	"type": func(f *failure) string {
		want := f.node.Type
		if want == "" {
			want = strings.Join(f.node.Types, " or ")
		}
		if f.found {
			return "expected " + want + ", got " + boundedjson.Describe(f.value)
		}
		// Under a *: the first candidate of a type the schema refuses.
		for _, v := range f.candidates {
			if got := boundedjson.TypeName(v); !typeAllowed(f.node, got) {
				return "expected " + want + ", got " + got
			}
		}
		return "expected " + want
	},
	"enum": func(f *failure) string {
		return "must be one of " + jsonList(f.node.Enum) + gotValue(f)
	},
	"const": func(f *failure) string {
		if f.node.Const == nil {
			return "must be the constant of the schema" + gotValue(f)
		}
		return "must be " + jsonList([]any{*f.node.Const}) + gotValue(f)
	},
	"minimum":          bound("must be at least", func(s *jsonschema.Schema) *float64 { return s.Minimum }),
	"maximum":          bound("must be at most", func(s *jsonschema.Schema) *float64 { return s.Maximum }),
	"exclusiveMinimum": bound("must be greater than", func(s *jsonschema.Schema) *float64 { return s.ExclusiveMinimum }),
	"exclusiveMaximum": bound("must be less than", func(s *jsonschema.Schema) *float64 { return s.ExclusiveMaximum }),
	"multipleOf":       bound("must be a multiple of", func(s *jsonschema.Schema) *float64 { return s.MultipleOf }),
	"minLength":        size("must be at least %d characters long", func(s *jsonschema.Schema) *int { return s.MinLength }),
	"maxLength":        size("must be at most %d characters long", func(s *jsonschema.Schema) *int { return s.MaxLength }),
	"pattern": func(f *failure) string {
		return "must match the pattern " + boundedjson.Quote(f.node.Pattern, 100) + gotValue(f)
	},
	"required": func(f *failure) string {
		obj, _ := f.value.(map[string]any)
		var missing []string
		for _, p := range f.node.Required {
			if _, ok := obj[p]; !ok || !f.found {
				missing = append(missing, p)
			}
		}
		return "missing required property " + names(missing)
	},
	"additionalProperties": func(f *failure) string {
		obj, _ := f.value.(map[string]any)
		var extra []string
		for k := range obj {
			if _, ok := f.node.Properties[k]; !ok {
				extra = append(extra, k)
			}
		}
		slices.Sort(extra)
		allowed := slices.Sorted(func(yield func(string) bool) {
			for k := range f.node.Properties {
				if !yield(k) {
					return
				}
			}
		})
		return "unexpected property " + names(extra) + " (the schema allows " + names(allowed) + ")"
	},
	"minItems":      size("must have at least %d items", func(s *jsonschema.Schema) *int { return s.MinItems }),
	"maxItems":      size("must have at most %d items", func(s *jsonschema.Schema) *int { return s.MaxItems }),
	"minProperties": size("must have at least %d properties", func(s *jsonschema.Schema) *int { return s.MinProperties }),
	"maxProperties": size("must have at most %d properties", func(s *jsonschema.Schema) *int { return s.MaxProperties }),
	"uniqueItems": func(f *failure) string {
		if items, ok := f.value.([]any); ok && f.found {
			// The first item equal to an earlier one, as jsonschema-go
			// finds it.
			for j := 1; j < len(items); j++ {
				for i := range j {
					if equalJSONValues(items[i], items[j]) {
						return fmt.Sprintf("items must be unique; items %d and %d are equal", i, j)
					}
				}
			}
		}
		return "items must be unique"
	},
	"anyOf":             fixed("must match at least one of the schemas under anyOf"),
	"oneOf":             fixed("must match exactly one of the schemas under oneOf"),
	"not":               fixed("must not match the schema under not"),
	"contains":          fixed("must contain an item matching the schema under contains"),
	"minContains":       fixed("has too few items matching the schema under contains"),
	"maxContains":       fixed("has too many items matching the schema under contains"),
	"dependentRequired": fixed("lacks a property that another present property requires (dependentRequired)"),
}

// typeAllowed reports whether a value of JSON type got (as
// boundedjson.TypeName names it) matches the type keyword of s; "number"
// takes integers.
func typeAllowed(s *jsonschema.Schema, got string) bool {
	ok := func(want string) bool { return got == want || got == "integer" && want == "number" }
	if s.Type != "" {
		return ok(s.Type)
	}
	return slices.ContainsFunc(s.Types, ok)
}

// equalJSONValues reports whether two generic JSON values are equal, numbers by
// value.
func equalJSONValues(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equalJSONValues)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, has := y[k]
			if !has || !equalJSONValues(xv, yv) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func fixed(msg string) func(*failure) string { return func(*failure) string { return msg } }

func bound(say string, get func(*jsonschema.Schema) *float64) func(*failure) string {
	return func(f *failure) string {
		p := get(f.node)
		if p == nil {
			return shorten(f.leaf)
		}
		return say + " " + strconv.FormatFloat(*p, 'g', -1, 64) + gotValue(f)
	}
}

// size is a message for a bound on a size: the characters of a string,
// the items of an array, the members of an object.
func size(say string, get func(*jsonschema.Schema) *int) func(*failure) string {
	return func(f *failure) string {
		p := get(f.node)
		if p == nil {
			return shorten(f.leaf)
		}
		msg := fmt.Sprintf(say, *p)
		if !f.found {
			return msg
		}
		switch x := f.value.(type) {
		case string:
			msg += ", got " + strconv.Itoa(utf8.RuneCountInString(x))
		case []any:
			msg += ", got " + strconv.Itoa(len(x))
		case map[string]any:
			msg += ", got " + strconv.Itoa(len(x))
		}
		return msg
	}
}

// gotValue is ", got <value>" when the value is known.
func gotValue(f *failure) string {
	if !f.found {
		return ""
	}
	if x, ok := f.value.(float64); ok {
		return ", got " + strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ", got " + boundedjson.Describe(f.value)
}

// jsonList writes values as JSON, comma-separated, at most ten of them.
func jsonList(vs []any) string {
	var parts []string
	for i, v := range vs {
		if i == 10 {
			parts = append(parts, "…")
			break
		}
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		parts = append(parts, boundedjson.Truncate(string(b), 64))
	}
	return strings.Join(parts, ", ")
}

// names lists member names for a message, at most ten, each cut short.
func names(ns []string) string {
	var parts []string
	for i, n := range ns {
		if i == 10 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, boundedjson.Quote(n, 48))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// explain turns a validation error of root about instance into the JSON
// pointer of the failing value and a message a model can act on.
func explain(err error, root *jsonschema.Schema, instance any) (path, msg string) {
	leaf := err
	for inner := errors.Unwrap(leaf); inner != nil; inner = errors.Unwrap(leaf) {
		leaf = inner
	}
	f, known := newLocator(root).walk(root, instance, true, instance)
	if !known || f == nil {
		return "", shorten(leaf.Error())
	}
	f.leaf = leaf.Error()
	say, ok := schemaMessages[f.keyword]
	if !ok {
		return f.path, shorten(f.leaf)
	}
	return f.path, say(f)
}

// schemaAt returns the subschema of root at a JSON pointer, or nil.
func schemaAt(root *jsonschema.Schema, path string) *jsonschema.Schema {
	s := root
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if path == "" {
		return root
	}
	unescape := strings.NewReplacer("~1", "/", "~0", "~")
	for i, seg := range segs {
		segs[i] = unescape.Replace(seg)
	}
	for i := 0; i < len(segs) && s != nil; i++ {
		next := func() (string, bool) {
			if i+1 >= len(segs) {
				return "", false
			}
			i++
			return segs[i], true
		}
		index := func(list []*jsonschema.Schema) *jsonschema.Schema {
			n, ok := next()
			j, err := strconv.Atoi(n)
			if !ok || err != nil || j < 0 || j >= len(list) {
				return nil
			}
			return list[j]
		}
		switch segs[i] {
		case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
			k, _ := next()
			m := map[string]map[string]*jsonschema.Schema{"properties": s.Properties, "$defs": s.Defs,
				"definitions": s.Definitions, "patternProperties": s.PatternProperties, "dependentSchemas": s.DependentSchemas}[segs[i-1]]
			s = m[k]
		case "items":
			s = s.Items
		case "additionalProperties":
			s = s.AdditionalProperties
		case "contains":
			s = s.Contains
		case "not":
			s = s.Not
		case "if":
			s = s.If
		case "then":
			s = s.Then
		case "else":
			s = s.Else
		case "prefixItems":
			s = index(s.PrefixItems)
		case "allOf":
			s = index(s.AllOf)
		case "anyOf":
			s = index(s.AnyOf)
		case "oneOf":
			s = index(s.OneOf)
		default:
			return nil
		}
	}
	return s
}

func escapePointer(k string) string {
	if len(k) > 48 {
		k = boundedjson.Truncate(k, 48) + "…"
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
