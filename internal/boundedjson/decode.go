package boundedjson

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Decode stores the generic value v (map[string]any, []any, string,
// float64, bool, nil) into the value dst points to, whose type must be
// plain for decoding (PlainDecodable). It follows encoding/json's rules for
// plain types, but matches member names exactly and accepts a number
// without a fraction (1.0) for an integer, as JSON Schema does. A value of
// the wrong type is a *DecodeError saying where; an integer beyond ±2^53,
// whose digits a float64 may have lost, is ErrImprecise: decode such
// arguments from their bytes instead.
func Decode(v any, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("boundedjson: Decode needs a non-nil pointer, got %T", dst)
	}
	return decode(v, rv.Elem(), "")
}

// DecodeError is a value of the wrong type for where it goes.
type DecodeError struct {
	Path string // JSON pointer to the value, "" for the top level
	Msg  string // what was expected and what was given
}

// Error implements error.
func (e *DecodeError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// ErrImprecise reports an integer beyond ±2^53 parsed into a float64, which may
// have lost digits.
var ErrImprecise = errors.New("boundedjson: integer beyond float64 precision")

const maxExactFloat = 1 << 53

// fieldPlan maps the JSON member names of a struct to its field indexes.
type fieldPlan map[string]int

var fieldPlans sync.Map // reflect.Type → fieldPlan

func planOf(t reflect.Type) fieldPlan {
	if p, ok := fieldPlans.Load(t); ok {
		return p.(fieldPlan)
	}
	p := fieldPlan{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p[name] = i
	}
	fieldPlans.Store(t, p)
	return p
}

// Kind names the JSON type values of t decode from, for messages.
func Kind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return Kind(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.String()
}

func mismatch(path string, dst reflect.Value, v any) error {
	return &DecodeError{Path: path, Msg: "expected " + Kind(dst.Type()) + ", got " + Describe(v)}
}

func outOfRange(path string, f, lo, hi float64) error {
	return &DecodeError{Path: path, Msg: "integer " + strconv.FormatFloat(f, 'f', -1, 64) + " is out of range " +
		strconv.FormatFloat(lo, 'f', -1, 64) + ".." + strconv.FormatFloat(hi, 'f', -1, 64)}
}

func decode(v any, dst reflect.Value, path string) error {
	if v == nil {
		dst.SetZero()
		return nil
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return decode(v, dst.Elem(), path)
	case reflect.String:
		if s, ok := v.(string); ok {
			dst.SetString(s)
			return nil
		}
	case reflect.Bool:
		if b, ok := v.(bool); ok {
			dst.SetBool(b)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		if f, ok := v.(float64); ok {
			if dst.OverflowFloat(f) {
				return &DecodeError{Path: path, Msg: "number " + strconv.FormatFloat(f, 'g', -1, 64) + " is out of range"}
			}
			dst.SetFloat(f)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f, ok := v.(float64); ok {
			if math.Abs(f) >= maxExactFloat {
				return ErrImprecise
			}
			if f != math.Trunc(f) {
				return mismatch(path, dst, v)
			}
			if dst.OverflowInt(int64(f)) {
				bits := dst.Type().Bits()
				return outOfRange(path, f, -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)-1)
			}
			dst.SetInt(int64(f))
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if f, ok := v.(float64); ok {
			if f >= maxExactFloat {
				return ErrImprecise
			}
			if f != math.Trunc(f) {
				return mismatch(path, dst, v)
			}
			if f < 0 || dst.OverflowUint(uint64(f)) {
				return outOfRange(path, f, 0, math.Ldexp(1, dst.Type().Bits())-1)
			}
			dst.SetUint(uint64(f))
			return nil
		}
	case reflect.Slice:
		if a, ok := v.([]any); ok {
			s := reflect.MakeSlice(dst.Type(), len(a), len(a))
			for i, e := range a {
				if err := decode(e, s.Index(i), path+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			dst.Set(s)
			return nil
		}
	case reflect.Array:
		if a, ok := v.([]any); ok {
			for i := 0; i < dst.Len(); i++ {
				var e any
				if i < len(a) {
					e = a[i]
				}
				if err := decode(e, dst.Index(i), path+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			return nil
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			out := reflect.MakeMapWithSize(dst.Type(), len(m))
			for k, e := range m {
				ev := reflect.New(dst.Type().Elem()).Elem()
				if err := decode(e, ev, path+"/"+escape(k)); err != nil {
					return err
				}
				out.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), ev)
			}
			dst.Set(out)
			return nil
		}
	case reflect.Struct:
		if m, ok := v.(map[string]any); ok {
			plan := planOf(dst.Type())
			for k, e := range m {
				if i, ok := plan[k]; ok {
					if err := decode(e, dst.Field(i), path+"/"+escape(k)); err != nil {
						return err
					}
				}
			}
			return nil
		}
	}
	return mismatch(path, dst, v)
}

// escape escapes a member name for a JSON pointer, cut to a length a
// message can carry.
func escape(k string) string {
	if len(k) > 48 {
		k = Truncate(k, 48) + "…"
	}
	if strings.ContainsAny(k, "~/") {
		k = strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
	}
	return k
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	marshalers      = []reflect.Type{jsonMarshaler, textMarshaler}
	unmarshalers    = []reflect.Type{jsonUnmarshaler, textUnmarshaler}
)

// PlainEncodable reports whether encoding/json encodes every value of t by
// the same rules as a JSON Schema inferred from t describes: booleans,
// numbers, strings, and structs, slices, arrays, string-keyed maps and
// pointers of them, without custom marshalers, embedded fields,
// interfaces or []byte.
func PlainEncodable(t reflect.Type) bool {
	return plainFor(t, marshalers, map[reflect.Type]bool{})
}

// PlainDecodable is PlainEncodable for decoding (no custom unmarshalers):
// the types Decode fills.
func PlainDecodable(t reflect.Type) bool {
	return plainFor(t, unmarshalers, map[reflect.Type]bool{})
}

// plainFor is PlainEncodable with the custom-coding interfaces to refuse.
func plainFor(t reflect.Type, custom []reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	for _, c := range custom {
		if t.Implements(c) || reflect.PointerTo(t).Implements(c) {
			return false
		}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	case reflect.Pointer:
		return plainFor(t.Elem(), custom, seen)
	case reflect.Slice, reflect.Array:
		return t.Elem().Kind() != reflect.Uint8 && plainFor(t.Elem(), custom, seen)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && t.Key().PkgPath() == "" && plainFor(t.Elem(), custom, seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous {
				return false
			}
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			if strings.Contains(f.Tag.Get("json"), ",string") || !plainFor(f.Type, custom, seen) {
				return false
			}
		}
		return true
	}
	return false
}

// HasImprecise reports whether the generic value v holds an integer beyond
// ±2^53, whose digits a float64 may have lost.
func HasImprecise(v any) bool {
	switch x := v.(type) {
	case float64:
		return math.Abs(x) >= maxExactFloat
	case []any:
		for _, e := range x {
			if HasImprecise(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if HasImprecise(e) {
				return true
			}
		}
	}
	return false
}
