package mcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A mask path names values in a JSON document by a dot-separated path of
// object keys and array indexes, for example "structuredContent.meta.serverMs"
// or "content.0.text". A segment "*" matches any one key or index; a
// segment "**" matches any number of them (zero included), so
// "**.observedAt" names every observedAt member at any depth. Keys that
// contain dots cannot be named.

// maskValue replaces, in v, every value a path of mask names with the
// path's placeholder string, and returns the result (v is changed in place
// where it is a container).
func maskValue(v any, mask map[string]string) any {
	for _, p := range slices.Sorted(mapKeys(mask)) {
		v = maskAt(v, strings.Split(p, "."), mask[p])
	}
	return v
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func maskAt(v any, segs []string, placeholder string) any {
	if len(segs) == 0 {
		return placeholder
	}
	seg, rest := segs[0], segs[1:]
	if seg == "**" {
		v = maskAt(v, rest, placeholder)
		eachChild(v, func(c any) any { return maskAt(c, segs, placeholder) })
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if seg == "*" || seg == k {
				x[k] = maskAt(c, rest, placeholder)
			}
		}
	case []any:
		for i, c := range x {
			if seg == "*" || seg == strconv.Itoa(i) {
				x[i] = maskAt(c, rest, placeholder)
			}
		}
	}
	return v
}

func eachChild(v any, f func(any) any) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			x[k] = f(c)
		}
	case []any:
		for i, c := range x {
			x[i] = f(c)
		}
	}
}

// embeddedMask returns the paths of mask that apply inside a text content
// block holding the JSON of structuredContent: the "structuredContent."
// paths without that prefix, and the "**." paths.
func embeddedMask(mask map[string]string) map[string]string {
	out := map[string]string{}
	for p, ph := range mask {
		switch {
		case strings.HasPrefix(p, "structuredContent."):
			out[strings.TrimPrefix(p, "structuredContent.")] = ph
		case strings.HasPrefix(p, "**."):
			out[p] = ph
		}
	}
	return out
}

// decodeJSON decodes one JSON value keeping numbers as written.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

// encodeJSON encodes v without HTML escaping, indented when indent is set,
// without a final newline.
func encodeJSON(v any, indent bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		// Values decoded by decodeJSON always encode.
		return []byte(fmt.Sprintf("%q", err.Error()))
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// normalize decodes a recorded or actual response, masks it and encodes it
// indented, keys sorted, so that equal answers have equal text. result is
// the path of the tools/call result within the document (nil: the root, or
// no result); the text content blocks of that result that hold JSON are
// masked too, with the structuredContent paths.
func normalize(doc []byte, mask map[string]string, result []string) ([]byte, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, nil
	}
	v, err := decodeJSON(doc)
	if err != nil {
		return nil, err
	}
	v = maskValue(v, mask)
	if res, ok := lookup(v, result).(map[string]any); ok {
		if inner := embeddedMask(mask); len(inner) > 0 {
			maskEmbedded(res, inner)
		}
	}
	return encodeJSON(v, true), nil
}

func lookup(v any, path []string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// maskEmbedded masks the JSON held in the text blocks of res's content,
// re-encoding (compact) only the blocks a mask changed.
func maskEmbedded(res map[string]any, mask map[string]string) {
	content, _ := res["content"].([]any)
	for _, c := range content {
		block, ok := c.(map[string]any)
		if !ok || block["type"] != "text" {
			continue
		}
		text, ok := block["text"].(string)
		if !ok {
			continue
		}
		t := strings.TrimSpace(text)
		if t == "" || (t[0] != '{' && t[0] != '[') {
			continue
		}
		inner, err := decodeJSON([]byte(t))
		if err != nil {
			continue
		}
		before := encodeJSON(inner, false)
		after := encodeJSON(maskValue(inner, mask), false)
		if !bytes.Equal(before, after) {
			block["text"] = string(after)
		}
	}
}
