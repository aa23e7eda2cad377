package runtimetools

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// Bounds of anyText's walk of a value.
const (
	maxValueDepth    = 6
	maxValueElements = 64
)

// anyText formats a logged value of kind Any with its secrets redacted:
// an error, a fmt.Stringer or a []byte as its text, redacted as
// redactText does; a map, struct, slice or array (an http.Header, a
// url.Values, a config struct) as JSON, walked member by member, with
// the members whose names are secret (map keys, struct fields and their
// json names) redacted at any depth and every string redacted as
// redactText does. A panicking Error or String method does not escape.
func (s *secrets) anyText(v any) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprintf("!PANIC formatting %T", v)
		}
	}()
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case error:
		return s.redactText(x.Error())
	case fmt.Stringer:
		return s.redactText(x.String())
	case []byte:
		return s.redactText(string(x))
	case string:
		return s.redactText(x)
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Map, reflect.Struct, reflect.Slice, reflect.Array:
		out, err := json.Marshal(s.walk(rv, 0))
		if err != nil {
			return Redacted
		}
		return string(out)
	}
	return s.redactText(fmt.Sprint(v))
}

// walk converts v to a JSON-encodable value with its secrets redacted.
func (s *secrets) walk(v reflect.Value, depth int) any {
	if !v.IsValid() {
		return nil
	}
	if depth > maxValueDepth {
		return "…"
	}
	if v.CanInterface() {
		switch x := v.Interface().(type) {
		case error:
			if v.Kind() != reflect.Pointer || !v.IsNil() {
				return s.redactText(x.Error())
			}
		case fmt.Stringer:
			if v.Kind() != reflect.Pointer || !v.IsNil() {
				return s.redactText(x.String())
			}
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return s.walk(v.Elem(), depth+1)
	case reflect.String:
		return s.redactText(v.String())
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
		return fmt.Sprint(v.Float())
	case reflect.Map:
		m := make(map[string]any, min(v.Len(), maxValueElements))
		keys := v.MapKeys()
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = keyText(k)
		}
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
		for n, i := range order {
			if n == maxValueElements {
				m["…"] = fmt.Sprintf("%d more", len(keys)-n)
				break
			}
			if s.match(names[i]) {
				m[names[i]] = Redacted
			} else {
				m[names[i]] = s.walk(v.MapIndex(keys[i]), depth+1)
			}
		}
		return m
	case reflect.Struct:
		m := map[string]any{}
		t := v.Type()
		for i := 0; i < t.NumField() && i < maxValueElements; i++ {
			f := t.Field(i)
			name := f.Name
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "-" {
				continue
			}
			if s.match(name) || (tag != "" && s.match(tag)) {
				m[name] = Redacted
				continue
			}
			if tag != "" {
				name = tag
			}
			m[name] = s.walk(v.Field(i), depth+1)
		}
		return m
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, v.Len())
			reflect.Copy(reflect.ValueOf(b), v)
			return s.redactText(string(b))
		}
		n := min(v.Len(), maxValueElements)
		out := make([]any, 0, n+1)
		for i := 0; i < n; i++ {
			out = append(out, s.walk(v.Index(i), depth+1))
		}
		if v.Len() > n {
			out = append(out, fmt.Sprintf("… %d more", v.Len()-n))
		}
		return out
	}
	return v.Type().String()
}

// keyText is a map key as text.
func keyText(k reflect.Value) string {
	switch k.Kind() {
	case reflect.String:
		return k.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprint(k.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return fmt.Sprint(k.Uint())
	}
	if k.CanInterface() {
		return fmt.Sprint(k.Interface())
	}
	return k.Type().String()
}
