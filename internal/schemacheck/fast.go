package schemacheck

import (
	"math"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The fast path: most tool schemas are plain objects of typed properties
// (SchemaFor of a struct, or a hand-written {"type":"object",...}). For
// those, compileFast builds at registration a tree of fastNodes that
// validates the generic decoded JSON (map[string]any, []any, string,
// float64, bool, nil) directly, without reflection and without allocating
// when the value is valid. It reports a failure as the same *failure
// explain's locator (locate.go) finds, so that the message comes
// from the same schemaMessages entry: the path and the message are
// identical. A schema using any keyword outside the set below, or a value
// of any other Go type, goes to jsonschema-go.
//
// jsonschema-go visits the properties of an object in map order, so of
// two failing properties its error may name either; the fast path and
// explain's locator name the first in name order, always.

// fastNode is a (sub)schema compiled for the fast path.
type fastNode struct {
	s        *jsonschema.Schema
	enum     []fastScalar // nil: no enum
	constant *fastScalar
	numeric  bool // has a numeric keyword
	strlen   bool // has minLength, maxLength or pattern
	pattern  *regexp.Regexp
	items    *fastNode
	props    []fastProp // sorted by name
	apFalse  bool       // additionalProperties: false
	ap       *fastNode  // additionalProperties as a schema
}

type fastProp struct {
	name string
	node *fastNode
}

// fastScalar is a value of an enum or const.
type fastScalar struct {
	kind  byte // 'n' null, 'b' bool, 's' string, 'f' number, 'x' a number no float64 equals
	b     bool
	s     string
	f     float64
	valid bool
}

// fastSchemaVersions are the $schema values jsonschema-go validates.
var fastSchemaVersions = []string{"", "http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"}

// compileFast returns the fast path of root, or nil if root needs
// jsonschema-go.
func compileFast(root *jsonschema.Schema) *fastNode {
	if root == nil || !slices.Contains(fastSchemaVersions, root.Schema) {
		return nil
	}
	n, ok := compileFastNode(root, true)
	if !ok {
		return nil
	}
	return n
}

func compileFastNode(s *jsonschema.Schema, root bool) (*fastNode, bool) {
	if s == nil || (!root && s.Schema != "") || !fastKeywordsOnly(s) {
		return nil, false
	}
	n := &fastNode{s: s}
	if s.Enum != nil {
		n.enum = make([]fastScalar, 0, len(s.Enum))
		for _, e := range s.Enum {
			sc := scalarOf(e)
			if !sc.valid {
				return nil, false
			}
			n.enum = append(n.enum, sc)
		}
	}
	if s.Const != nil {
		sc := scalarOf(*s.Const)
		if !sc.valid {
			return nil, false
		}
		n.constant = &sc
	}
	for _, p := range []*float64{s.MultipleOf, s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum} {
		if p != nil {
			if math.IsNaN(*p) || math.IsInf(*p, 0) {
				return nil, false
			}
			n.numeric = true
		}
	}
	n.strlen = s.MinLength != nil || s.MaxLength != nil || s.Pattern != ""
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, false
		}
		n.pattern = re
	}
	var ok bool
	if s.Items != nil {
		if n.items, ok = compileFastNode(s.Items, false); !ok {
			return nil, false
		}
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.Properties {
			if !yield(k) {
				return
			}
		}
	}) {
		// Names with ~ or / are left to jsonschema-go and explain, as
		// they always were.
		if strings.ContainsAny(name, "~/") {
			return nil, false
		}
		c, ok := compileFastNode(s.Properties[name], false)
		if !ok {
			return nil, false
		}
		n.props = append(n.props, fastProp{name, c})
	}
	if ap := s.AdditionalProperties; ap != nil {
		// jsonschema-go's own test for "false" (decoded as {"not":{}}).
		if ap.Not != nil && reflect.ValueOf(*ap.Not).IsZero() {
			n.apFalse = true
		} else if n.ap, ok = compileFastNode(ap, false); !ok {
			return nil, false
		}
	}
	return n, true
}

// fastKeywordsOnly reports whether s uses only the keywords the fast path
// implements, or annotations the validator ignores.
func fastKeywordsOnly(s *jsonschema.Schema) bool {
	c := *s
	c.Schema, c.Comment, c.Title, c.Description, c.Default = "", "", "", "", nil
	c.Deprecated, c.ReadOnly, c.WriteOnly, c.Examples = false, false, false, nil
	c.Type, c.Types, c.Enum, c.Const = "", nil, nil, nil
	c.MultipleOf, c.Minimum, c.Maximum, c.ExclusiveMinimum, c.ExclusiveMaximum = nil, nil, nil, nil, nil
	c.MinLength, c.MaxLength, c.Pattern = nil, nil, ""
	c.Items, c.MinItems, c.MaxItems = nil, nil, nil
	c.MinProperties, c.MaxProperties, c.Required, c.Properties, c.AdditionalProperties = nil, nil, nil, nil, nil
	c.Format, c.ContentEncoding, c.ContentMediaType, c.Extra, c.PropertyOrder = "", "", "", nil, nil
	return reflect.ValueOf(c).IsZero()
}

// scalarOf compiles an enum or const value the way jsonschema-go compares
// it (numbers by exact value, strings and booleans by kind); valid is
// false for anything else (arrays, objects, json.Number, NaN).
func scalarOf(e any) fastScalar {
	v := reflect.ValueOf(e)
	if !v.IsValid() {
		return fastScalar{kind: 'n', valid: true}
	}
	if _, isNum := e.(interface{ Float64() (float64, error) }); isNum {
		return fastScalar{} // json.Number and the like
	}
	r := new(big.Rat)
	switch {
	case v.CanInt():
		r.SetInt64(v.Int())
	case v.CanUint():
		r.SetUint64(v.Uint())
	case v.CanFloat():
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fastScalar{}
		}
		r.SetFloat64(f)
	case v.Kind() == reflect.String:
		return fastScalar{kind: 's', s: v.String(), valid: true}
	case v.Kind() == reflect.Bool:
		return fastScalar{kind: 'b', b: v.Bool(), valid: true}
	default:
		return fastScalar{}
	}
	if f, exact := r.Float64(); exact {
		return fastScalar{kind: 'f', f: f, valid: true}
	}
	return fastScalar{kind: 'x', valid: true}
}

// equals reports whether the generic value v equals sc.
func (sc *fastScalar) equals(v any) bool {
	switch x := v.(type) {
	case nil:
		return sc.kind == 'n'
	case bool:
		return sc.kind == 'b' && sc.b == x
	case string:
		return sc.kind == 's' && sc.s == x
	case float64:
		return sc.kind == 'f' && sc.f == x
	}
	return false
}

// fastType is jsonschema-go's type name of a generic value; ok is false
// for a value the fast path leaves to jsonschema-go.
func fastType(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "null", true
	case bool:
		return "boolean", true
	case string:
		return "string", true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		if _, f := math.Modf(x); f == 0 {
			return "integer", true
		}
		return "number", true
	case []any:
		return "array", true
	case map[string]any:
		return "object", true
	}
	return "", false
}

// check validates v. It returns handled false if v holds a value the fast
// path does not know, nil if v is valid, else the failure explain would
// give.
func (n *fastNode) check(v any) (f *failure, handled bool) {
	return n.walk(v, true, v)
}

// walk validates v against n. found and at are what explain's locator
// holds on reaching v: whether the value is known (not under an array
// item or an additional property, which a path cannot name), and the last
// value known.
func (n *fastNode) walk(v any, found bool, at any) (*failure, bool) {
	got, ok := fastType(v)
	if !ok {
		return nil, false
	}
	s := n.s
	fail := func(keyword string) (*failure, bool) {
		return &failure{keyword: keyword, node: s, value: at, found: found}, true
	}
	if !typeMatches(s, got) {
		f, _ := fail("type")
		f.candidates = []any{v} // the value, known here even under a *
		return f, true
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(sc fastScalar) bool { return sc.equals(v) }) {
		return fail("enum")
	}
	if n.constant != nil && !n.constant.equals(v) {
		return fail("const")
	}
	switch x := v.(type) {
	case float64:
		if !n.numeric {
			break
		}
		if k := numberFailure(s, x); k != "" {
			return fail(k)
		}
	case string:
		if !n.strlen {
			break
		}
		if k := lengthFailure(s, x); k != "" {
			return fail(k)
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			return fail("pattern")
		}
	case []any:
		if n.items != nil {
			for _, e := range x {
				if f, ok := n.items.walk(e, false, at); !ok || f != nil {
					return under(f, ok, "/*")
				}
			}
		}
		if k := itemsFailure(s, len(x)); k != "" {
			return fail(k)
		}
	case map[string]any:
		return n.object(x, found, at, fail)
	}
	return nil, true
}

// object checks the keywords of an object, in jsonschema-go's order.
func (n *fastNode) object(x map[string]any, found bool, at any, fail func(string) (*failure, bool)) (*failure, bool) {
	s := n.s
	for _, p := range n.props {
		e, present := x[p.name]
		if !present {
			continue
		}
		childAt := at
		if found {
			childAt = e
		}
		if f, ok := p.node.walk(e, found, childAt); !ok || f != nil {
			return under(f, ok, "/"+escapePointer(p.name))
		}
	}
	if n.apFalse || n.ap != nil {
		var extra []string
		for k := range x {
			if _, declared := s.Properties[k]; !declared {
				if n.apFalse {
					return fail("additionalProperties")
				}
				extra = append(extra, k)
			}
		}
		slices.Sort(extra)
		for _, k := range extra {
			if f, ok := n.ap.walk(x[k], false, at); !ok || f != nil {
				return under(f, ok, "/*")
			}
		}
	}
	if k := membersFailure(s, x); k != "" {
		return fail(k)
	}
	return nil, true
}

// under prefixes a child's failure path with the step to the child.
func under(f *failure, handled bool, step string) (*failure, bool) {
	if f != nil {
		f.path = step + f.path
	}
	return f, handled
}

// message is the failure's message, as explain words it.
func (f *failure) message() string {
	return schemaMessages[f.keyword](f)
}
