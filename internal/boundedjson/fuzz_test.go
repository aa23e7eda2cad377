package boundedjson

// Fuzz targets of the parser. Their seeds run in the normal go test; a
// crash is written to testdata/fuzz/<FuzzName>/ and replays in every later
// run: keep it there once fixed.

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/embedmcp/mcp/internal/jsonshape"
)

// fuzzLimits are small bounds, so that fuzzing reaches every one of them.
var fuzzLimits = Limits{MaxDepth: 6, MaxString: 48, MaxMembers: 6}

// fuzzSeeds returns documents of every malformed class, and valid ones to
// mutate from.
func fuzzSeeds() [][]byte {
	doc := `{"a":1,"b":[true,false,null],"c":{"d":"e\u00e9"},"f":-1.5e3}`
	s := []string{
		doc, `[]`, `{}`, `0`, `""`, `"\ud83d\ude00"`, `-0.0e-0`,
		// truncated
		doc[:len(doc)/2], `{"a":`, `{"a`, `"\u12`, `[`, ``,
		// deep
		strings.Repeat("[", 40) + strings.Repeat("]", 40),
		strings.Repeat(`{"a":`, 10) + `1` + strings.Repeat(`}`, 10),
		// long strings and names
		`{"s":"` + strings.Repeat("x", 200) + `"}`,
		`{"` + strings.Repeat("k", 100) + `":1}`,
		`"` + strings.Repeat("\\u00e9", 40) + `"`,
		// wide
		`[1,2,3,4,5,6,7,8,9]`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}`,
		// duplicate names, at the top and at depth
		`{"a":1,"a":2}`, `{"x":{"b":1,"b":2}}`, `{"a":1,"\u0061":2}`,
		// invalid UTF-8, bad escapes, lone surrogates, control characters
		"{\"s\":\"\xff\xfe\"}", "\"\xc3\"", `"\ud800"`, `"\udc00\ud800"`, `"\x"`, "\"a\tb\"",
		// numbers
		`NaN`, `Infinity`, `1e999`, `-0`, `01`, `1.`, `.5`, `+1`, `0x10`, `1` + strings.Repeat("0", 1100),
		// trailing data, whitespace, BOM
		doc + ` {}`, "\xef\xbb\xbf" + doc, " \r\n\t" + doc + "\n",
	}
	out := make([][]byte, len(s))
	for i := range s {
		out[i] = []byte(s[i])
	}
	return out
}

// FuzzParseLimits checks the bounded parser's invariants under small
// limits: what it accepts is valid JSON (encoding/json agrees) within every
// bound; what it refuses is refused with a *SyntaxError, and is either not
// valid JSON to encoding/json or breaks a documented rule that
// encoding/json does not have (a bound, a duplicate member name, invalid
// UTF-8, an unpaired surrogate escape).
//
//	go test -run XXX -fuzz FuzzParseLimits -fuzztime 10m ./internal/boundedjson
func FuzzParseLimits(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lim := range []Limits{fuzzLimits, DefaultLimits()} {
			v, err := Parse(data, lim)
			if err == nil {
				if !json.Valid(data) {
					t.Fatalf("accepted %q, which encoding/json rejects", data)
				}
				checkParsedWithin(t, v, lim, 1)
				continue
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("rejected %q with %T %v, want *SyntaxError", data, err, err)
			}
			if se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("error offset %d outside the %d-byte input", se.Offset, len(data))
			}
			if len(se.Error()) > 600 {
				t.Fatalf("a %d-byte message for a %d-byte input: the input is echoed", len(se.Error()), len(data))
			}
			var std any
			if json.Unmarshal(data, &std) != nil {
				continue // both reject
			}
			sh, ok := jsonshape.Measure(data)
			if !ok {
				t.Fatalf("encoding/json decodes %q but cannot tokenize it", data)
			}
			if errors.Is(err, ErrDuplicate) {
				if !sh.Dup {
					t.Fatalf("rejected %q for a duplicate member it does not have", data)
				}
				continue
			}
			if sh.Within(lim.MaxDepth, lim.MaxString, lim.MaxMembers, MaxNumberLen) && !sh.Dup && utf8.Valid(data) && !hasSurrogateEscape(data) {
				t.Fatalf("rejected valid JSON within %+v: %q: %v", lim, data, err)
			}
		}
	})
}

// hasSurrogateEscape reports whether data has a \uD800-\uDFFF escape, which
// encoding/json turns into U+FFFD when unpaired and the parser refuses.
func hasSurrogateEscape(data []byte) bool {
	low := bytes.ToLower(data)
	for _, p := range []string{`\ud8`, `\ud9`, `\uda`, `\udb`, `\udc`, `\udd`, `\ude`, `\udf`} {
		if bytes.Contains(low, []byte(p)) {
			return true
		}
	}
	return false
}

// checkParsedWithin walks a parsed value and checks it against lim.
func checkParsedWithin(t *testing.T, v any, lim Limits, depth int) {
	switch x := v.(type) {
	case map[string]any:
		if depth > lim.MaxDepth || len(x) > lim.MaxMembers {
			t.Fatalf("accepted an object at depth %d with %d members, over %+v", depth, len(x), lim)
		}
		for k, e := range x {
			if len(k) > lim.MaxString {
				t.Fatalf("accepted a %d-byte member name, over %d", len(k), lim.MaxString)
			}
			checkParsedWithin(t, e, lim, depth+1)
		}
	case []any:
		if depth > lim.MaxDepth || len(x) > lim.MaxMembers {
			t.Fatalf("accepted an array at depth %d with %d elements, over %+v", depth, len(x), lim)
		}
		for _, e := range x {
			checkParsedWithin(t, e, lim, depth+1)
		}
	case string:
		if len(x) > lim.MaxString || !utf8.ValidString(x) {
			t.Fatalf("accepted a %d-byte string (valid UTF-8: %v), over %d", len(x), utf8.ValidString(x), lim.MaxString)
		}
	}
}
