package schemacheck

import (
	"encoding/json"
	"maps"
	"math"
	"math/big"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// locator finds, in a value jsonschema-go refused, the keyword that failed
// and where: it walks the schema against the value in jsonschema-go's
// order of keywords (properties and members in name order, where
// jsonschema-go takes map order), so that explain needs nothing of
// jsonschema-go's error but the error itself. jsonschema-go decides
// whether a value is valid; the locator only says why.
//
// It follows every keyword of draft 2020-12 and draft-07 but
// $dynamicRef, unevaluatedItems and unevaluatedProperties, and $ref to
// the schema's own JSON pointers ("#", "#/$defs/x"); on meeting anything
// else it gives up (known false) and explain says what jsonschema-go said.
//
// Where a failure lies is tracked as the fast path (fast.go) tracks
// it: the instance path, whether the failing value is known (not under an
// array item or an additional member, which a path cannot name) and the
// last value known.
type locator struct {
	root   *jsonschema.Schema
	draft7 bool
	depth  int // nesting of walk, bounded against $ref cycles
}

// maxLocateDepth bounds the nesting of locator.walk.
const maxLocateDepth = 512

// newLocator returns the locator of root.
func newLocator(root *jsonschema.Schema) *locator {
	return &locator{root: root, draft7: strings.HasPrefix(root.Schema, "http://json-schema.org/draft-07/") ||
		strings.HasPrefix(root.Schema, "https://json-schema.org/draft-07/")}
}

// walk returns the first failure of v against s, nil if v is valid; known
// is false if the locator cannot tell. found and at are as in
// fastNode.walk.
func (l *locator) walk(s *jsonschema.Schema, v any, found bool, at any) (f *failure, known bool) {
	if l.depth++; l.depth > maxLocateDepth {
		return nil, false
	}
	defer func() { l.depth-- }()
	for rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface; rv = rv.Elem() {
		if rv.IsNil() {
			v = nil
			break
		}
		v = rv.Elem().Interface()
	}
	if s.DynamicRef != "" || s.UnevaluatedItems != nil || s.UnevaluatedProperties != nil {
		return nil, false
	}
	fail := func(keyword string) (*failure, bool) {
		return &failure{keyword: keyword, node: s, value: at, found: found}, true
	}
	if s.Ref != "" {
		target := l.resolve(s.Ref)
		if target == nil {
			return nil, false
		}
		if f, ok := l.walk(target, v, found, at); !ok || f != nil || l.draft7 {
			return f, ok
		}
	}
	got, ok := jsonTypeOf(v)
	if !ok {
		return nil, false
	}
	if !typeMatches(s, got) {
		f, _ := fail("type")
		f.candidates = []any{v} // the value, known here even under a *
		return f, true
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return sameJSON(reflect.ValueOf(e), v) }) {
		return fail("enum")
	}
	if s.Const != nil && !sameJSON(reflect.ValueOf(*s.Const), v) {
		return fail("const")
	}
	rv := reflect.ValueOf(v)
	if x, ok := numberOf(rv); ok {
		if k := numberFailure(s, x); k != "" {
			return fail(k)
		}
	}
	if rv.Kind() == reflect.String {
		k, known := stringFailure(s, rv.String())
		if !known {
			return nil, false
		}
		if k != "" {
			return fail(k)
		}
	}
	if f, ok := l.logic(s, v, found, at, fail); !ok || f != nil {
		return f, ok
	}
	return l.container(s, v, found, at, fail)
}

// container checks the keywords of an array or an object.
func (l *locator) container(s *jsonschema.Schema, v any, found bool, at any, fail func(string) (*failure, bool)) (*failure, bool) {
	switch x := v.(type) {
	case []any:
		return l.array(s, x, found, at, fail)
	case map[string]any:
		return l.object(s, x, found, at, fail)
	}
	// A value of the caller's own types: its items and members, as any.
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Slice, reflect.Array:
		items := make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
		return l.array(s, items, found, at, fail)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		members := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			members[it.Key().String()] = it.Value().Interface()
		}
		// As explain always did: the members of such a map are not
		// named as known values.
		return l.object(s, members, false, at, fail)
	}
	return nil, true
}

// jsonTypeOf is jsonschema-go's JSON type of a Go value (integers and
// integral floats are "integer"); ok is false for a struct, which
// jsonschema-go does not validate, or a value of no JSON type.
func jsonTypeOf(v any) (string, bool) {
	if t, ok := fastType(v); ok {
		return t, true
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		rv = rv.Elem()
	}
	switch {
	case !rv.IsValid():
		return "null", true
	case rv.CanInt() || rv.CanUint():
		return "integer", true
	case rv.CanFloat():
		if _, f := math.Modf(rv.Float()); f == 0 {
			return "integer", true
		}
		return "number", true
	}
	switch rv.Kind() {
	case reflect.Bool:
		return "boolean", true
	case reflect.String:
		return "string", true
	case reflect.Slice, reflect.Array:
		return "array", true
	case reflect.Map:
		return "object", true
	}
	return "", false
}

// numberOf returns the number v holds, if it is one.
func numberOf(v reflect.Value) (float64, bool) {
	switch {
	case v.CanInt():
		return float64(v.Int()), true
	case v.CanUint():
		return float64(v.Uint()), true
	case v.CanFloat():
		return v.Float(), true
	}
	return 0, false
}

// valid reports whether v is valid against s; known is false if the
// locator cannot tell.
func (l *locator) valid(s *jsonschema.Schema, v any) (valid, known bool) {
	f, known := l.walk(s, v, true, v)
	return f == nil, known
}

// numberFailure returns the numeric keyword of s that x fails, or "".
func numberFailure(s *jsonschema.Schema, x float64) string {
	if s.MultipleOf != nil {
		if _, frac := math.Modf(x / *s.MultipleOf); frac != 0 {
			return "multipleOf"
		}
	}
	switch {
	case s.Minimum != nil && x < *s.Minimum:
		return "minimum"
	case s.Maximum != nil && x > *s.Maximum:
		return "maximum"
	case s.ExclusiveMinimum != nil && x <= *s.ExclusiveMinimum:
		return "exclusiveMinimum"
	case s.ExclusiveMaximum != nil && x >= *s.ExclusiveMaximum:
		return "exclusiveMaximum"
	}
	return ""
}

// typeMatches reports whether a value of JSON type got satisfies the type
// keyword of s (an integer is a number); true when s has none.
func typeMatches(s *jsonschema.Schema, got string) bool {
	switch {
	case s.Type != "":
		return got == s.Type || got == "integer" && s.Type == "number"
	case s.Types != nil:
		return slices.Contains(s.Types, got) || got == "integer" && slices.Contains(s.Types, "number")
	}
	return true
}

// lengthFailure returns the length keyword of s (minLength, maxLength)
// that x fails, or "".
func lengthFailure(s *jsonschema.Schema, x string) string {
	if s.MinLength == nil && s.MaxLength == nil {
		return ""
	}
	c := utf8.RuneCountInString(x)
	switch {
	case s.MinLength != nil && c < *s.MinLength:
		return "minLength"
	case s.MaxLength != nil && c > *s.MaxLength:
		return "maxLength"
	}
	return ""
}

// itemsFailure returns the keyword of s (minItems, maxItems) that an
// array of n items fails, or "".
func itemsFailure(s *jsonschema.Schema, n int) string {
	switch {
	case s.MinItems != nil && n < *s.MinItems:
		return "minItems"
	case s.MaxItems != nil && n > *s.MaxItems:
		return "maxItems"
	}
	return ""
}

// membersFailure returns the keyword of s (minProperties, maxProperties,
// required) that the members of the object x fail, or "".
func membersFailure(s *jsonschema.Schema, x map[string]any) string {
	switch {
	case s.MinProperties != nil && len(x) < *s.MinProperties:
		return "minProperties"
	case s.MaxProperties != nil && len(x) > *s.MaxProperties:
		return "maxProperties"
	}
	for _, r := range s.Required {
		if _, present := x[r]; !present {
			return "required"
		}
	}
	return ""
}

// stringFailure returns the string keyword of s that x fails, or "".
func stringFailure(s *jsonschema.Schema, x string) (keyword string, known bool) {
	if k := lengthFailure(s, x); k != "" {
		return k, true
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return "", false
		}
		if !re.MatchString(x) {
			return "pattern", true
		}
	}
	return "", true
}

// logic checks allOf, anyOf, oneOf, not and if/then/else.
func (l *locator) logic(s *jsonschema.Schema, v any, found bool, at any, fail func(string) (*failure, bool)) (*failure, bool) {
	for _, ss := range s.AllOf {
		if f, ok := l.walk(ss, v, found, at); !ok || f != nil {
			return f, ok
		}
	}
	if s.AnyOf != nil {
		matched := false
		for _, ss := range s.AnyOf {
			valid, known := l.valid(ss, v)
			if !known {
				return nil, false
			}
			matched = matched || valid
		}
		if !matched {
			return fail("anyOf")
		}
	}
	if s.OneOf != nil {
		n := 0
		for _, ss := range s.OneOf {
			valid, known := l.valid(ss, v)
			if !known {
				return nil, false
			}
			if valid {
				n++
			}
		}
		if n != 1 {
			return fail("oneOf")
		}
	}
	if s.Not != nil {
		valid, known := l.valid(s.Not, v)
		if !known {
			return nil, false
		}
		if valid {
			return fail("not")
		}
	}
	if s.If != nil {
		valid, known := l.valid(s.If, v)
		if !known {
			return nil, false
		}
		next := s.Else
		if valid {
			next = s.Then
		}
		if next != nil {
			return l.walk(next, v, found, at)
		}
	}
	return nil, true
}

// array checks the keywords of an array, in jsonschema-go's order.
func (l *locator) array(s *jsonschema.Schema, x []any, found bool, at any, fail func(string) (*failure, bool)) (*failure, bool) {
	each := func(ss *jsonschema.Schema, items []any) (*failure, bool) {
		for _, e := range items {
			if f, ok := l.walk(ss, e, false, at); !ok || f != nil {
				return under(f, ok, "/*")
			}
		}
		return nil, true
	}
	prefix, rest := s.PrefixItems, s.Items
	if l.draft7 {
		prefix, rest = s.ItemsArray, s.Items
		if s.ItemsArray != nil {
			rest = s.AdditionalItems
		}
	}
	for i, ss := range prefix {
		if i >= len(x) {
			break
		}
		if f, ok := each(ss, x[i:i+1]); !ok || f != nil {
			return f, ok
		}
	}
	if rest != nil && len(prefix) < len(x) {
		if f, ok := each(rest, x[len(prefix):]); !ok || f != nil {
			return f, ok
		}
	}
	if s.Contains != nil {
		n := 0
		for _, e := range x {
			valid, known := l.valid(s.Contains, e)
			if !known {
				return nil, false
			}
			if valid {
				n++
			}
		}
		switch {
		case n == 0 && (s.MinContains == nil || *s.MinContains > 0):
			return fail("contains")
		case s.MinContains != nil && n < *s.MinContains:
			return fail("minContains")
		case s.MaxContains != nil && n > *s.MaxContains:
			return fail("maxContains")
		}
	}
	if k := itemsFailure(s, len(x)); k != "" {
		return fail(k)
	}
	if s.UniqueItems {
		for j := 1; j < len(x); j++ {
			for i := range j {
				if equalJSONValues(x[i], x[j]) {
					return fail("uniqueItems")
				}
			}
		}
	}
	return nil, true
}

// object checks the keywords of an object, in jsonschema-go's order.
func (l *locator) object(s *jsonschema.Schema, x map[string]any, found bool, at any, fail func(string) (*failure, bool)) (*failure, bool) {
	names := slices.Sorted(maps.Keys(x))
	if f, ok := l.members(s, x, names, found, at, fail); !ok || f != nil {
		return f, ok
	}
	if s.PropertyNames != nil {
		for _, name := range names {
			valid, known := l.valid(s.PropertyNames, name)
			if !known {
				return nil, false
			}
			if !valid {
				return fail("propertyNames")
			}
		}
	}
	if k := membersFailure(s, x); k != "" {
		return fail(k)
	}
	return l.dependencies(s, x, found, at, fail)
}

// members checks properties, patternProperties and additionalProperties:
// each member, in name order (names), against the schemas that take it.
func (l *locator) members(s *jsonschema.Schema, x map[string]any, names []string, found bool, at any, fail func(string) (*failure, bool)) (*failure, bool) {
	child := func(ss *jsonschema.Schema, name string) (*failure, bool) {
		e := x[name]
		childAt := at
		if found {
			childAt = e
		}
		f, ok := l.walk(ss, e, found, childAt)
		return under(f, ok, "/"+escapePointer(name))
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if _, present := x[name]; present {
			if f, ok := child(s.Properties[name], name); !ok || f != nil {
				return f, ok
			}
		}
	}
	var patterns []*regexp.Regexp
	for _, p := range slices.Sorted(maps.Keys(s.PatternProperties)) {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, false
		}
		patterns = append(patterns, re)
		for _, name := range names {
			if re.MatchString(name) {
				if f, ok := child(s.PatternProperties[p], name); !ok || f != nil {
					return f, ok
				}
			}
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		falsy := ap.Not != nil && reflect.ValueOf(*ap.Not).IsZero() // jsonschema-go's test for false
		for _, name := range names {
			if _, declared := s.Properties[name]; declared ||
				slices.ContainsFunc(patterns, func(re *regexp.Regexp) bool { return re.MatchString(name) }) {
				continue
			}
			if falsy {
				return fail("additionalProperties")
			}
			if f, ok := l.walk(ap, x[name], false, at); !ok || f != nil {
				return under(f, ok, "/*")
			}
		}
	}
	return nil, true
}

// dependencies checks dependentRequired and dependentSchemas (draft-07:
// dependencies).
func (l *locator) dependencies(s *jsonschema.Schema, x map[string]any, found bool, at any, fail func(string) (*failure, bool)) (*failure, bool) {
	requires, schemas := s.DependentRequired, s.DependentSchemas
	if l.draft7 {
		requires, schemas = s.DependencyStrings, s.DependencySchemas
	}
	for k, names := range requires {
		if _, present := x[k]; present {
			for _, r := range names {
				if _, present := x[r]; !present {
					return fail("dependentRequired")
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(schemas)) {
		if _, present := x[k]; present {
			if f, ok := l.walk(schemas[k], x, found, at); !ok || f != nil {
				return f, ok
			}
		}
	}
	return nil, true
}

// resolve returns the schema a $ref names, or nil if it is not a JSON
// pointer into the root schema.
func (l *locator) resolve(ref string) *jsonschema.Schema {
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path != "" || u.RawQuery != "" {
		return nil
	}
	if u.Fragment == "" {
		return l.root
	}
	if !strings.HasPrefix(u.Fragment, "/") {
		return nil // an anchor
	}
	return schemaAt(l.root, u.Fragment)
}

// sameJSON reports whether a value of a schema (an enum member, a const)
// equals the generic value v as jsonschema-go compares them: numbers by
// exact value, arrays and objects member by member.
func sameJSON(e reflect.Value, v any) bool {
	for e.IsValid() && (e.Kind() == reflect.Interface || e.Kind() == reflect.Pointer) {
		if e.IsNil() {
			return v == nil
		}
		e = e.Elem()
	}
	if !e.IsValid() {
		return v == nil
	}
	if x, ok := v.(float64); ok {
		r := new(big.Rat)
		switch {
		case e.CanInt():
			r.SetInt64(e.Int())
		case e.CanUint():
			r.SetUint64(e.Uint())
		case e.CanFloat():
			if math.IsNaN(e.Float()) || math.IsInf(e.Float(), 0) {
				return false
			}
			r.SetFloat64(e.Float())
		default:
			n, isNumber := e.Interface().(json.Number)
			if !isNumber {
				return false
			}
			if _, ok := r.SetString(n.String()); !ok {
				return false
			}
		}
		return r.Cmp(new(big.Rat).SetFloat64(x)) == 0
	}
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return e.Kind() == reflect.Bool && e.Bool() == x
	case string:
		return e.Kind() == reflect.String && e.String() == x
	case []any:
		if (e.Kind() != reflect.Slice && e.Kind() != reflect.Array) || e.Len() != len(x) {
			return false
		}
		for i := range x {
			if !sameJSON(e.Index(i), x[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		if e.Kind() != reflect.Map || e.Type().Key().Kind() != reflect.String || e.Len() != len(x) {
			return false
		}
		for k, xv := range x {
			ev := e.MapIndex(reflect.ValueOf(k).Convert(e.Type().Key()))
			if !ev.IsValid() || !sameJSON(ev, xv) {
				return false
			}
		}
		return true
	}
	return false
}
