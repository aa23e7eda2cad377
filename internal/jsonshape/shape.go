// Package jsonshape makes and measures JSON documents for tests of a
// parser's bounds: documents at and past a bound, and an independent
// reading of them with encoding/json's tokenizer.
package jsonshape

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// Shape is what Measure found in a document: the deepest nesting, the
// longest string (values and member names, in bytes after unescaping), the
// largest container, the longest number, and whether an object repeats a
// member name.
type Shape struct {
	Depth, Str, Members, Number int
	Dup                         bool
}

// Measure measures a document with encoding/json's tokenizer; ok is false
// when the tokenizer refuses it.
func Measure(data []byte) (sh Shape, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		obj  bool
		n    int
		keys map[string]bool
		key  bool // the next token of an object is a member name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return sh, true
		}
		if err != nil {
			return sh, false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.obj && top.key {
			k := tok.(string)
			if top.keys[k] {
				sh.Dup = true
			}
			top.keys[k] = true
			top.n++
			top.key = false
			sh.Str = max(sh.Str, len(k))
			sh.Members = max(sh.Members, top.n)
			continue
		}
		if top != nil {
			if top.obj {
				top.key = true
			} else {
				top.n++
				sh.Members = max(sh.Members, top.n)
			}
		}
		switch x := tok.(type) {
		case json.Delim:
			stack = append(stack, &frame{obj: x == '{', keys: map[string]bool{}, key: x == '{'})
			sh.Depth = max(sh.Depth, len(stack))
		case string:
			sh.Str = max(sh.Str, len(x))
		case json.Number:
			sh.Number = max(sh.Number, len(x))
		}
	}
}

// Within reports whether the shape respects the bounds.
func (sh Shape) Within(depth, str, members, number int) bool {
	return sh.Depth <= depth && sh.Str <= str && sh.Members <= members && sh.Number <= number
}

// Nest returns a value nested depth containers deep, alternating arrays and
// objects around a 1.
func Nest(depth int) string {
	var open, close strings.Builder
	for i := 0; i < depth; i++ {
		if i%2 == 0 {
			open.WriteString(`[`)
			close.WriteString(`]`)
		} else {
			open.WriteString(`{"k":`)
			close.WriteString(`}`)
		}
	}
	c := []byte(close.String())
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	return open.String() + "1" + string(c)
}

// Members returns an object or array with n members.
func Members(n int, object bool) string {
	var b strings.Builder
	if object {
		b.WriteByte('{')
	} else {
		b.WriteByte('[')
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if object {
			b.WriteString(`"m` + strings.Repeat("x", i%7) + strconv.Itoa(i) + `":`)
		}
		b.WriteString(strconv.Itoa(i))
	}
	if object {
		b.WriteByte('}')
	} else {
		b.WriteByte(']')
	}
	return b.String()
}

// String returns a JSON string literal made of n copies of unit.
func String(unit string, n int) string { return `"` + strings.Repeat(unit, n) + `"` }
