package boundedjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/internal/jsonshape"
)

func TestParseBounds(t *testing.T) {
	const max = 65536
	tests := []struct {
		name string
		doc  string
		ok   bool
	}{
		{"depth 1", `[]`, true},
		{"depth 32", jsonshape.Nest(32), true},
		{"depth 33", jsonshape.Nest(33), false},
		{"depth 33 of empty arrays", strings.Repeat("[", 33) + strings.Repeat("]", 33), false},
		{"depth 32 of empty objects", strings.Repeat(`{"a":`, 31) + "{}" + strings.Repeat("}", 31), true},
		{"depth 1000", strings.Repeat("[", 1000), false},

		{"ascii string at limit", jsonshape.String("a", max), true},
		{"ascii string one past", jsonshape.String("a", max+1), false},
		{"\\u00e9 escapes at limit (2 bytes each)", jsonshape.String(`\u00e9`, max/2), true},
		{"\\u00e9 escapes one past", jsonshape.String(`\u00e9`, max/2)[:len(jsonshape.String(`\u00e9`, max/2))-1] + `a"`, false},
		{"raw é at limit", jsonshape.String("é", max/2), true},
		{"raw é one past", jsonshape.String("é", max/2)[:1+max] + `a"`, false},
		{"emoji pairs at limit (4 bytes each)", jsonshape.String(`\ud83d\ude00`, max/4), true},
		{"emoji pairs one past", `"a` + strings.Repeat(`\ud83d\ude00`, max/4) + `"`, false},
		{"\\n escapes at limit", jsonshape.String(`\n`, max), true},
		{"\\n escapes one past", jsonshape.String(`\n`, max+1), false},
		{"mixed at limit", `"` + strings.Repeat("a", max-7) + `\u00e9é€` + `"`, true},
		{"mixed one past", `"` + strings.Repeat("a", max-6) + `\u00e9é€` + `"`, false},
		{"member name at limit", `{` + jsonshape.String("k", max) + `:1}`, true},
		{"member name one past", `{` + jsonshape.String("k", max+1) + `:1}`, false},
		{"long string deep inside", `{"a":[` + jsonshape.String("a", max+1) + `]}`, false},

		{"object 256 members", jsonshape.Members(256, true), true},
		{"object 257 members", jsonshape.Members(257, true), false},
		{"array 256 elements", jsonshape.Members(256, false), true},
		{"array 257 elements", jsonshape.Members(257, false), false},
		{"nested array 257 elements", `{"a":{"b":` + jsonshape.Members(257, false) + `}}`, false},
		{"nested object 257 members", `[` + jsonshape.Members(257, true) + `]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse([]byte(tt.doc), DefaultLimits())
			if tt.ok && err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !tt.ok && err == nil {
				t.Fatalf("accepted")
			}
			if tt.ok {
				var want any
				if err := json.Unmarshal([]byte(tt.doc), &want); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(v, want) {
					t.Errorf("parsed value differs from encoding/json's")
				}
			} else {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Errorf("error %v is not a *SyntaxError", err)
				}
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	docs := map[string]string{
		"leading zero":        `01`,
		"leading zero nested": `[01]`,
		"no fraction digits":  `1.`,
		"no integer part":     `.5`,
		"minus alone":         `-`,
		"minus then space":    `- 1`,
		"no exponent digits":  `1e`,
		"exponent sign only":  `1e+`,
		"NaN":                 `NaN`,
		"Infinity":            `Infinity`,
		"-Infinity":           `-Infinity`,
		"hex":                 `0x10`,
		"plus sign":           `+1`,
		"overflow":            `1e999`,
		"negative overflow":   `-1e400`,
		"overflow in object":  `{"a":1.8e308}`,

		"invalid utf-8":          "\"\xff\"",
		"overlong utf-8":         "\"\xc0\xaf\"",
		"utf-8 surrogate":        "\"\xed\xa0\x80\"",
		"truncated utf-8":        "\"\xe2\x82\"",
		"invalid utf-8 in name":  "{\"\xfe\":1}",
		"lone high surrogate":    `"\ud800"`,
		"lone low surrogate":     `"\udc00"`,
		"high then letter":       `"\ud800\u0041"`,
		"high then text":         `"\ud800abc"`,
		"high at end":            `"\ud83d`,
		"two highs":              `"\ud83d\ud83d"`,
		"short \\u":              `"\u12"`,
		"bad \\u digit":          `"\u12g4"`,
		"bad escape":             `"\x41"`,
		"control char":           "\"a\x01b\"",
		"raw newline in string":  "\"a\nb\"",
		"unterminated string":    `"abc`,
		"trailing data":          `{} {}`,
		"trailing garbage":       `1 x`,
		"trailing comma array":   `[1,]`,
		"trailing comma object":  `{"a":1,}`,
		"missing colon":          `{"a" 1}`,
		"missing value":          `{"a":}`,
		"unquoted name":          `{a:1}`,
		"bad literal":            `tru`,
		"literal prefix":         `nulll`,
		"capitalised literal":    `True`,
		"empty":                  ``,
		"only space":             `   `,
		"unclosed array":         `[1,2`,
		"unclosed object":        `{"a":1`,
		"comment":                `{"a":1 /* c */}`,
		"byte order mark":        "\xef\xbb\xbf{}",
		"nul byte after value":   "{}\x00",
		"duplicate member":       `{"a":1,"a":2}`,
		"duplicate after escape": `{"a":1,"\u0061":2}`,
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			if v, err := Parse([]byte(doc), DefaultLimits()); err == nil {
				t.Fatalf("accepted %q as %#v", doc, v)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	docs := []string{
		`0`, `-0`, `1.5e3`, `1E+2`, `-1e-2`, `1e-400`, `12345678901234567890`, `0.000001`, `1.7976931348623157e308`,
		`""`, `"\"\\\/\b\f\n\r\t"`, `"\u0000"`, `"\uFFFD"`, "\"\xef\xbf\xbd\"", `"\ud83d\ude00"`, `"😀 é €"`,
		`true`, `false`, `null`, ` {"a" : [ 1 , 2 ] , "b" : { } } `, "\t\r\n[]\n",
		`{"a":{"a":{"a":1}}}`, // the same name at different depths is no duplicate
	}
	for _, doc := range docs {
		got, err := Parse([]byte(doc), DefaultLimits())
		if err != nil {
			t.Errorf("%q rejected: %v", doc, err)
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q parsed as %#v, encoding/json says %#v", doc, got, want)
		}
	}
}

func TestParseConfigurableLimits(t *testing.T) {
	lim := Limits{MaxDepth: 3, MaxString: 5, MaxMembers: 2}
	tests := []struct {
		doc string
		ok  bool
	}{
		{`[[[1]]]`, true},
		{`[[[[1]]]]`, false},
		{`"abcde"`, true},
		{`"abcdef"`, false},
		{`"\u00e9\u00e9a"`, true},
		{`"\u00e9\u00e9\u00e9"`, false},
		{`{"a":1,"b":2}`, true},
		{`{"a":1,"b":2,"c":3}`, false},
		{`[1,2]`, true},
		{`[1,2,3]`, false},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.doc), lim)
		if (err == nil) != tt.ok {
			t.Errorf("%s under %+v: err = %v, want ok=%v", tt.doc, lim, err, tt.ok)
		}
	}
	// Zero fields take the defaults.
	if _, err := Parse([]byte(jsonshape.Nest(32)), Limits{MaxString: 5}); err != nil {
		t.Errorf("zero MaxDepth should default to 32: %v", err)
	}
	if _, err := Parse([]byte(jsonshape.Nest(33)), Limits{MaxString: 5}); err == nil {
		t.Errorf("zero MaxDepth should default to 32: depth 33 accepted")
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	_, err := Parse([]byte(`{"a":1,"a":2}`), DefaultLimits())
	if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("duplicate member error = %v", err)
	}
	_, err = Parse([]byte(`[1, x]`), DefaultLimits())
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 4 {
		t.Errorf("error %v should point at offset 4", err)
	}
}

// FuzzParseJSON checks the bounded parser against encoding/json: whatever it
// accepts, encoding/json accepts with the same value, and whatever
// encoding/json rejects, it rejects.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u00e9"}`, `[]`, `1.5e3`, `"\ud83d\ude00"`, `{"a":1,"a":2}`, `-0.0e-0`, `[[[[]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Parse(data, DefaultLimits())
		var want any
		stdErr := json.Unmarshal(data, &want)
		if err == nil {
			if stdErr != nil {
				t.Fatalf("accepted %q, which encoding/json rejects: %v", data, stdErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: parsed %#v, encoding/json %#v", data, got, want)
			}
		}
	})
}
