package mcp

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
)

// Typed tools whose input type is plain (see plainType) and whose input
// schema was inferred from it are decoded from the generic value the
// envelope parser already built and the schema already validated, instead
// of parsing the argument bytes a second time with encoding/json. The
// inferred schema admits exactly the members encoding/json would fill, so
// the two decoders agree on every valid input (TestGenericDecodeAgrees).

// errImprecise: an integer beyond ±2^53 was parsed into a float64 and may
// have lost digits; such arguments are decoded from their bytes instead.
var errImprecise = errors.New("integer beyond float64 precision")

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

// decodeGeneric stores the generic JSON value v (map[string]any, []any,
// string, float64, bool, nil) into dst, which has a plain type.
func decodeGeneric(v any, dst reflect.Value, path string) error {
	if v == nil {
		dst.SetZero()
		return nil
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return decodeGeneric(v, dst.Elem(), path)
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
				return fmt.Errorf("%s: %v overflows %s", path, f, dst.Type())
			}
			dst.SetFloat(f)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f, ok := v.(float64); ok {
			if math.Abs(f) >= maxExactFloat {
				return errImprecise
			}
			if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 || dst.OverflowInt(int64(f)) {
				return fmt.Errorf("%s: %v is not a %s", path, f, dst.Type())
			}
			dst.SetInt(int64(f))
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if f, ok := v.(float64); ok {
			if f >= maxExactFloat {
				return errImprecise
			}
			if f != math.Trunc(f) || f < 0 || f >= math.MaxUint64 || dst.OverflowUint(uint64(f)) {
				return fmt.Errorf("%s: %v is not a %s", path, f, dst.Type())
			}
			dst.SetUint(uint64(f))
			return nil
		}
	case reflect.Slice:
		if a, ok := v.([]any); ok {
			s := reflect.MakeSlice(dst.Type(), len(a), len(a))
			for i, e := range a {
				if err := decodeGeneric(e, s.Index(i), fmt.Sprintf("%s/%d", path, i)); err != nil {
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
				if err := decodeGeneric(e, dst.Index(i), fmt.Sprintf("%s/%d", path, i)); err != nil {
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
				if err := decodeGeneric(e, ev, path+"/"+k); err != nil {
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
					if err := decodeGeneric(e, dst.Field(i), path+"/"+k); err != nil {
						return err
					}
				}
			}
			return nil
		}
	}
	return fmt.Errorf("%s: expected %s, got %s", path, dst.Type(), jsonTypeName(v))
}
