package schemacheck

import (
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// nullableTag is the struct tag that lets a slice or map field be null in
// an inferred schema: `mcp:"nullable"`.
func nullableTag(f reflect.StructField) bool {
	for _, opt := range strings.Split(f.Tag.Get("mcp"), ",") {
		if opt == "nullable" {
			return true
		}
	}
	return false
}

// jsonField returns the name encoding/json gives a struct field and its
// options, and whether encoding/json skips it.
func jsonField(f reflect.StructField) (name, opts string, skip bool) {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return "", "", true
	}
	name, opts, _ = strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, opts, false
}

// tightenNulls walks s with the Go type t it was inferred from: a slice
// that is not behind a pointer becomes "array" (unless nullSlices), and a
// field tagged `mcp:"nullable"` may be null as well.
func tightenNulls(t reflect.Type, s *jsonschema.Schema, nullSlices bool, seen map[reflect.Type]bool) {
	if s == nil {
		return
	}
	behind := false
	for t.Kind() == reflect.Pointer {
		t, behind = t.Elem(), true
	}
	switch t.Kind() {
	case reflect.Slice:
		if !behind && !nullSlices && t.Elem().Kind() != reflect.Uint8 &&
			s.Type == "" && len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
			s.Type, s.Types = "array", nil
		}
		tightenNulls(t.Elem(), s.Items, nullSlices, seen)
	case reflect.Array:
		tightenNulls(t.Elem(), s.Items, nullSlices, seen)
	case reflect.Map:
		tightenNulls(t.Elem(), s.AdditionalProperties, nullSlices, seen)
	case reflect.Struct:
		if seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous {
				continue
			}
			name, _, skip := jsonField(f)
			ps := s.Properties[name]
			if skip || ps == nil {
				continue
			}
			tightenNulls(f.Type, ps, nullSlices, seen)
			if nullableTag(f) {
				allowNull(ps)
			}
		}
	}
}

// allowNull adds "null" to the types of s.
func allowNull(s *jsonschema.Schema) {
	switch {
	case s.Type != "":
		s.Types, s.Type = []string{"null", s.Type}, ""
	case len(s.Types) > 0 && s.Types[0] != "null":
		s.Types = append([]string{"null"}, s.Types...)
	}
}

// HasNilable reports whether values of t can hold a slice or map that
// EmptyNils would fill: one not behind a field that may be null.
func HasNilable(t reflect.Type) bool { return hasNilable(t, map[reflect.Type]bool{}) }

func hasNilable(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8
	case reflect.Map:
		return true
	case reflect.Array:
		return hasNilable(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return false
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if _, _, skip := jsonField(f); !skip && hasNilable(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// EmptyNils returns v with every nil slice or map that the inferred
// schema types as "array" or "object" replaced by an empty one, so that
// encoding/json sends [] or {} rather than null. It copies only what it
// changes, never writing into v; changed is false when nothing was nil.
// Fields tagged `mcp:"nullable"` or omitzero, and nil pointers, are left
// as they are.
func EmptyNils(v reflect.Value) (out reflect.Value, changed bool) {
	switch v.Kind() {
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v, false
		}
		if v.IsNil() {
			return reflect.MakeSlice(v.Type(), 0, 0), true
		}
		for i := 0; i < v.Len(); i++ {
			e, ch := EmptyNils(v.Index(i))
			if !ch {
				continue
			}
			if !changed {
				out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				reflect.Copy(out, v)
				changed = true
			}
			out.Index(i).Set(e)
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			e, ch := EmptyNils(v.Index(i))
			if !ch {
				continue
			}
			if !changed {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
				changed = true
			}
			out.Index(i).Set(e)
		}
	case reflect.Map:
		if v.IsNil() {
			return reflect.MakeMap(v.Type()), true
		}
		iter := v.MapRange()
		for iter.Next() {
			e, ch := EmptyNils(iter.Value())
			if !ch {
				continue
			}
			if !changed {
				out = reflect.MakeMapWithSize(v.Type(), v.Len())
				for it := v.MapRange(); it.Next(); {
					out.SetMapIndex(it.Key(), it.Value())
				}
				changed = true
			}
			out.SetMapIndex(iter.Key(), e)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		e, ch := EmptyNils(v.Elem())
		if ch {
			p := reflect.New(v.Type().Elem())
			p.Elem().Set(e)
			return p, true
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			_, opts, skip := jsonField(f)
			if skip || (!f.Anonymous && nullableTag(f)) || strings.Contains(","+opts+",", ",omitzero,") {
				continue
			}
			e, ch := EmptyNils(v.Field(i))
			if !ch {
				continue
			}
			if !changed {
				out = reflect.New(t).Elem()
				out.Set(v)
				changed = true
			}
			out.Field(i).Set(e)
		}
	}
	if !changed {
		return v, false
	}
	return out, true
}
