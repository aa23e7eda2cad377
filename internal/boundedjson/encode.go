package boundedjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// U+2028 and U+2029 are escaped so the output is safe in JavaScript too.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Raw returns v encoded: verbatim when it is already raw JSON
// (json.RawMessage, []byte), with encoding/json otherwise; nil for nil.
func Raw(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return x, nil
	case []byte:
		return json.RawMessage(x), nil
	}
	return json.Marshal(v)
}

// ErrInvalidRaw is returned for raw JSON (json.RawMessage, []byte) that is
// not valid JSON.
var ErrInvalidRaw = errors.New("boundedjson: raw JSON value is not valid JSON")

// AppendValue appends v as Raw encodes it ("null" for nil). Raw JSON is
// checked to be valid unless trusted is set, so that a value from outside
// can never break the document it is written into.
func AppendValue(b []byte, v any, trusted bool) ([]byte, error) {
	if !trusted {
		switch x := v.(type) {
		case json.RawMessage:
			if !json.Valid(x) {
				return b, ErrInvalidRaw
			}
		case []byte:
			if !json.Valid(x) {
				return b, ErrInvalidRaw
			}
		}
	}
	raw, err := Raw(v)
	if err != nil {
		return b, err
	}
	if raw == nil {
		return append(b, "null"...), nil
	}
	return append(b, raw...), nil
}

// TypeName names the JSON type of a generic value, for messages: null,
// boolean, integer (a number without a fraction), number, string, array,
// object.
func TypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// Describe names a generic value's type and, for scalars, shows it, cut to
// a length a message can carry: `integer 5`, `string "abc"`, `null`.
func Describe(v any) string {
	switch x := v.(type) {
	case float64:
		return TypeName(v) + " " + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "string " + Quote(x, 64)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	}
	return TypeName(v)
}

// Truncate cuts s to at most n bytes, on a UTF-8 boundary.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// Quote quotes s for a message, cut to n bytes ("…" marks the cut).
func Quote(s string, n int) string {
	if len(s) > n {
		return strconv.Quote(Truncate(s, n)) + "…"
	}
	return strconv.Quote(s)
}

// Group writes n with its thousands separated by spaces: 65 536.
func Group(n int) string {
	s := strconv.Itoa(n)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ' ')
		}
		b = append(b, s[i])
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}
