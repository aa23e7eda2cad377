package mcp

// FuzzSchemaFastPath compares the fast path with jsonschema-go on fuzzed
// instances, against fuzzed schema documents (seeded with every schema of
// the tests) and against schemas built from fuzzed parameters. To fuzz for
// longer:
//
//	go test -run XXX -fuzz FuzzSchemaFastPath -fuzztime 10m .

import (
	"encoding/json"
	"math"
	"regexp"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func FuzzSchemaFastPath(f *testing.F) {
	schemas, _ := testSchemas(f)
	instances := []string{`{}`, `{"p":1}`, `{"p":"x","q":[1,"a"]}`, `{"p":null,"zz":true}`, `[]`, `"s"`,
		`{"p":{"p":[{}]},"query":"","limit":0}`, `{"p":1.5,"a":"é","b":-1e300}`}
	for i, ns := range schemas {
		doc, err := json.Marshal(ns.s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(doc), instances[i%len(instances)], uint8(i), -1.0, 10.0, int8(1), int8(3), uint8(i*37), "a")
	}
	f.Add(`{"type":"object"}`, `{"p":"abc","a":1}`, uint8(0), 0.0, 2.5, int8(2), int8(2), uint8(0xff), "^a+$")
	f.Add(`{"type":"object"}`, `{"p":[1,2,3]}`, uint8(5), 1.0, 2.0, int8(0), int8(1), uint8(0x4d), "x")
	f.Fuzz(func(t *testing.T, doc, instance string, typ uint8, lo, hi float64, n1, n2 int8, flags uint8, word string) {
		if len(doc) > 4096 || len(instance) > 4096 {
			return
		}
		v, err := parseJSON([]byte(instance), fuzzLimits)
		if err != nil {
			return
		}
		if s, err := ParseSchema([]byte(doc)); err == nil {
			fuzzDiff(t, "document", s, v)
		}
		fuzzDiff(t, "parameters", paramSchema(typ, lo, hi, n1, n2, flags, word), v)
	})
}

// fuzzDiff runs diffCheck if s compiles and takes the fast path.
func fuzzDiff(t *testing.T, name string, s *jsonschema.Schema, v any) {
	c, err := compileSchema("t", "input", s)
	if err != nil || !c.Fast() {
		return
	}
	diffCheck(t, name, c, v)
}

// paramSchema is an object schema with one property "p" whose keywords
// come from the fuzzer.
func paramSchema(typ uint8, lo, hi float64, n1, n2 int8, flags uint8, word string) *jsonschema.Schema {
	types := []string{"string", "integer", "number", "boolean", "null", "array", "object"}
	p := &jsonschema.Schema{Type: types[int(typ)%len(types)]}
	if typ&0x80 != 0 {
		p.Type, p.Types = "", []string{types[int(typ)%len(types)], types[int(typ/8)%len(types)]}
	}
	finite := !math.IsNaN(lo) && !math.IsInf(lo, 0) && !math.IsNaN(hi) && !math.IsInf(hi, 0)
	if flags&1 != 0 && finite {
		p.Minimum, p.Maximum = &lo, &hi
	}
	if flags&2 != 0 && finite {
		p.ExclusiveMinimum, p.ExclusiveMaximum = &lo, &hi
	}
	if flags&4 != 0 && finite && hi > 0 {
		p.MultipleOf = &hi
	}
	if flags&8 != 0 && n1 >= 0 && n2 >= 0 {
		a, b := int(n1), int(n2)
		p.MinLength, p.MaxLength, p.MinItems, p.MaxItems, p.MinProperties, p.MaxProperties = &a, &b, &a, &b, &a, &b
	}
	if flags&16 != 0 {
		p.Enum = []any{word, lo, nil, true}
	}
	if flags&32 != 0 {
		var c any = word
		p.Const = &c
	}
	if typ&0x40 != 0 {
		if _, err := regexp.Compile(word); err == nil {
			p.Pattern = word
		}
	}
	if p.Type == "array" || len(p.Types) > 0 {
		p.Items = &jsonschema.Schema{Type: types[int(flags>>4)%len(types)]}
	}
	if p.Type == "object" || len(p.Types) > 0 {
		p.Properties = map[string]*jsonschema.Schema{"p": {Type: types[int(flags>>5)%len(types)]}, word: {}}
		p.Required = []string{"p"}
	}
	root := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"p": p, "q": {Type: "integer"}}}
	if flags&64 != 0 {
		root.Required = []string{"p", word}
	}
	if flags&128 != 0 {
		root.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	} else if typ&0x20 != 0 {
		root.AdditionalProperties = &jsonschema.Schema{Type: types[int(typ>>2)%len(types)]}
	}
	return root
}
