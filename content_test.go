package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// jsonEqual reports whether two JSON documents hold the same value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestContentMarshal(t *testing.T) {
	size := int64(1234)
	prio := 0.5
	link := ResourceLinkContent("file:///src/main.go", "main.go")
	link.Title, link.Description, link.MIMEType, link.Size = "Main", "entry point", "text/x-go", &size
	annotated := TextContent("hi")
	annotated.Annotations = &ContentAnnotations{Audience: []string{"user", "assistant"}, Priority: &prio, LastModified: "2025-01-12T15:00:58Z"}
	annotated.Meta = map[string]any{"k": "v"}

	tests := []struct {
		name string
		c    Content
		want string // per the MCP schema
	}{
		{"text", TextContent("héllo \"w\"\n"), `{"type":"text","text":"héllo \"w\"\n"}`},
		{"empty text", TextContent(""), `{"type":"text","text":""}`},
		{"image", ImageContent([]byte{0x89, 'P', 'N', 'G', 0, 0xff}, "image/png"), `{"type":"image","data":"iVBORwD/","mimeType":"image/png"}`},
		{"audio", AudioContent([]byte("RIFF"), "audio/wav"), `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`},
		{"empty image", ImageContent(nil, "image/png"), `{"type":"image","data":"","mimeType":"image/png"}`},
		{"resource link", link, `{"type":"resource_link","uri":"file:///src/main.go","name":"main.go","title":"Main","description":"entry point","mimeType":"text/x-go","size":1234}`},
		{"bare resource link", ResourceLinkContent("https://x.test/a", "a"), `{"type":"resource_link","uri":"https://x.test/a","name":"a"}`},
		{"embedded text", EmbeddedResourceContent(ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "abc"}), `{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":"abc"}}`},
		{"embedded empty text", EmbeddedResourceContent(ResourceContents{URI: "file:///a.txt"}), `{"type":"resource","resource":{"uri":"file:///a.txt","text":""}}`},
		{"embedded blob", EmbeddedResourceContent(ResourceContents{URI: "file:///a.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}), `{"type":"resource","resource":{"uri":"file:///a.bin","mimeType":"application/octet-stream","blob":"AQID"}}`},
		{"annotations and meta", annotated, `{"type":"text","text":"hi","annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"},"_meta":{"k":"v"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, []byte(tt.want)) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var back Content
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("UnmarshalJSON: %v", err)
			}
			again, err := json.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(got) {
				t.Errorf("round trip changed the block:\n%s\n%s", got, again)
			}
			// The fast path of appendResult encodes the same block.
			b, err := appendResult(nil, &Result{Content: []Content{tt.c}})
			if err != nil {
				t.Fatal(err)
			}
			var res struct{ Content []json.RawMessage }
			if err := json.Unmarshal(append(b, '}'), &res); err != nil || len(res.Content) != 1 || !jsonEqual(t, res.Content[0], []byte(tt.want)) {
				t.Errorf("in a result: %s", b)
			}
		})
	}
}

func TestContentRoundTripValues(t *testing.T) {
	blob := EmbeddedResourceContent(ResourceContents{URI: "u:1", Blob: []byte{0, 1, 2, 250}})
	var back Content
	b, _ := json.Marshal(blob)
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Resource == nil || string(back.Resource.Blob) != string([]byte{0, 1, 2, 250}) || back.Resource.URI != "u:1" {
		t.Errorf("blob round trip: %+v", back.Resource)
	}
	img := ImageContent([]byte{9, 8, 7}, "image/gif")
	b, _ = json.Marshal(img)
	back = Content{}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, img) {
		t.Errorf("image round trip: %+v, want %+v", back, img)
	}
}

func TestContentInvalid(t *testing.T) {
	bad := []struct {
		name string
		c    Content
	}{
		{"no type", Content{Text: "x"}},
		{"unknown type", Content{Type: "video"}},
		{"image without MIME type", ImageContent([]byte{1}, "")},
		{"audio without MIME type", AudioContent([]byte{1}, "")},
		{"link without URI", ResourceLinkContent("", "n")},
		{"link without name", ResourceLinkContent("u:1", "")},
		{"resource without resource", Content{Type: ContentResource}},
		{"resource without URI", EmbeddedResourceContent(ResourceContents{Text: "x"})},
	}
	for _, tt := range bad {
		if b, err := json.Marshal(tt.c); err == nil {
			t.Errorf("%s: marshalled as %s", tt.name, b)
		}
		if _, err := appendResult(nil, &Result{Content: []Content{tt.c}}); err == nil {
			t.Errorf("%s: appendResult accepted it", tt.name)
		}
	}
	docs := []string{
		`{"type":"video"}`,
		`{"text":"no type"}`,
		`{"type":"text"}`,
		`{"type":"text","text":5}`,
		`{"type":"image","data":"not base64!","mimeType":"image/png"}`,
		`{"type":"image","mimeType":"image/png"}`,
		`{"type":"image","data":"AQID"}`,
		`{"type":"audio","data":"AQID"}`,
		`{"type":"resource_link","name":"n"}`,
		`{"type":"resource_link","uri":"u:1"}`,
		`{"type":"resource"}`,
		`{"type":"resource","resource":{"text":"x"}}`,
		`{"type":"resource","resource":{"uri":"u:1"}}`,
		`{"type":"resource","resource":{"uri":"u:1","blob":"%%%"}}`,
		`[]`,
		`"text"`,
	}
	for _, d := range docs {
		var c Content
		if err := json.Unmarshal([]byte(d), &c); err == nil {
			t.Errorf("UnmarshalJSON accepted %s as %+v", d, c)
		}
	}
}

func TestResultHelpers(t *testing.T) {
	b, err := appendResult(nil, ErrorResult("bad \u2028 thing"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(append(b, '}'))
	if !jsonEqual(t, []byte(got), []byte(`{"content":[{"type":"text","text":"bad \u2028 thing"}],"isError":true}`)) {
		t.Errorf("ErrorResult: %s", got)
	}
	if strings.Contains(got, "\u2028") {
		t.Errorf("U+2028 must be escaped: %q", got)
	}
	b, _ = appendResult(nil, &Result{Content: []Content{TextContent("a")}, StructuredContent: map[string]int{"n": 1}, Meta: map[string]any{"m": true}})
	if !jsonEqual(t, append(b, '}'), []byte(`{"content":[{"type":"text","text":"a"}],"structuredContent":{"n":1},"_meta":{"m":true}}`)) {
		t.Errorf("result with structured content and meta: %s}", b)
	}
	b, _ = appendResult(nil, &Result{})
	if string(b)+"}" != `{"content":[]}` {
		t.Errorf("empty result: %s}", b)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x00\x01\x1f\t\n\r", "é€😀", "\u2028\u2029", "<script>&"} {
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("appendString(%q) = %s, decodes to %q (%v)", s, b, back, err)
		}
	}
	// Invalid UTF-8 becomes U+FFFD, so the output is always valid JSON.
	b := appendString(nil, "a\xffb")
	var back string
	if err := json.Unmarshal(b, &back); err != nil || back != "a\uFFFDb" {
		t.Errorf("invalid UTF-8: %s → %q", b, back)
	}
	if _, err := parseJSON(b, DefaultLimits()); err != nil {
		t.Errorf("the strict parser rejects appendString's output %s: %v", b, err)
	}
}
