package mcptest

import (
	"strings"
	"testing"
)

func TestMaskPaths(t *testing.T) {
	doc := `{"meta":{"serverMs":12,"other":1},"items":[{"observedAt":"a","x":1},{"observedAt":"b"}],"deep":{"n":{"observedAt":"c"}},"list":[5,6]}`
	for _, tc := range []struct {
		mask map[string]string
		want []string // substrings of the masked, compact document
		not  []string
	}{
		{map[string]string{"meta.serverMs": "<timing>"}, []string{`"serverMs":"<timing>"`, `"other":1`}, []string{`12`}},
		{map[string]string{"items.*.observedAt": "<t>"}, []string{`{"observedAt":"<t>","x":1}`, `{"observedAt":"<t>"}`, `{"observedAt":"c"}`}, nil},
		{map[string]string{"**.observedAt": "<t>"}, []string{`"n":{"observedAt":"<t>"}`}, []string{`"a"`, `"b"`, `"c"`}},
		{map[string]string{"list.1": "<x>"}, []string{`"list":[5,"<x>"]`}, nil},
		{map[string]string{"no.such.path": "<x>"}, []string{`"serverMs":12`}, []string{"<x>"}},
	} {
		v, err := decodeJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		got := string(encodeJSON(maskValue(v, tc.mask), false))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("mask %v: %s lacks %s", tc.mask, got, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("mask %v: %s still holds %s", tc.mask, got, n)
			}
		}
	}
}

func TestNormalizeMasksEmbeddedText(t *testing.T) {
	res := `{"content":[{"type":"text","text":"{\"sum\":5,\"meta\":{\"serverMs\":3}}"},{"type":"text","text":"not json"}],"structuredContent":{"sum":5,"meta":{"serverMs":3}}}`
	got, err := normalize([]byte(res), map[string]string{"structuredContent.meta.serverMs": "<timing>"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	if strings.Contains(s, "3") {
		t.Errorf("a timing survived:\n%s", s)
	}
	if !strings.Contains(s, `"text": "{\"meta\":{\"serverMs\":\"<timing>\"},\"sum\":5}"`) || !strings.Contains(s, `"text": "not json"`) {
		t.Errorf("embedded text not masked as expected:\n%s", s)
	}
	// Numbers keep their spelling; the placeholder is not HTML-escaped.
	got, _ = normalize([]byte(`{"n":1.50,"t":"<b>"}`), nil, nil)
	if string(got) != "{\n  \"n\": 1.50,\n  \"t\": \"<b>\"\n}" {
		t.Errorf("normalize = %s", got)
	}
}
