package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/quick"
	"time"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

type weatherIn struct {
	City  string    `json:"city" jsonschema:"the city to look up"`
	Days  int       `json:"days,omitempty" jsonschema:"how many days ahead"`
	Units *string   `json:"units,omitempty"`
	Since time.Time `json:"since,omitzero"`
}

type weatherOut struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
	Note  string  `json:"note,omitempty"`
}

// schemaJSON returns a tool's schemas as tools/list shows them.
func toolDescriptor(t *testing.T, s *Server, name string) map[string]any {
	t.Helper()
	_, body := s.Handle(context.Background(), Caller{}, rpcBody(1, "tools/list", `{}`))
	r := decodeResponse(t, body)
	var res struct{ Tools []map[string]any }
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool["name"] == name {
			return tool
		}
	}
	t.Fatalf("tool %s not listed: %s", name, body)
	return nil
}

func TestTypedSchemas(t *testing.T) {
	ts := NewToolSet()
	_, err := AddTool(ts, ToolInfo{Name: "weather", Description: "Weather"}, func(_ context.Context, _ *Request, in weatherIn) (weatherOut, error) {
		return weatherOut{City: in.City, TempC: 21.5}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	desc := toolDescriptor(t, s, "weather")
	in := desc["inputSchema"].(map[string]any)
	props := in["properties"].(map[string]any)
	if in["type"] != "object" {
		t.Errorf("input schema type %v", in["type"])
	}
	if d := props["city"].(map[string]any)["description"]; d != "the city to look up" {
		t.Errorf("city description = %v", d)
	}
	if d := props["days"].(map[string]any)["description"]; d != "how many days ahead" {
		t.Errorf("days description = %v", d)
	}
	if f := props["since"].(map[string]any); f["type"] != "string" || f["format"] != "date-time" {
		t.Errorf("time.Time schema = %v", f)
	}
	var required []string
	for _, r := range in["required"].([]any) {
		required = append(required, r.(string))
	}
	if !slices.Equal(required, []string{"city"}) {
		t.Errorf("required = %v, want [city] (omitempty/omitzero fields are optional)", required)
	}
	out := desc["outputSchema"].(map[string]any)
	if out["type"] != "object" || out["properties"].(map[string]any)["tempC"] == nil {
		t.Errorf("output schema = %v", out)
	}

	st, err := SchemaFor[weatherIn]()
	if err != nil {
		t.Fatal(err)
	}
	if p := st.Properties["since"]; p == nil || p.Type != "string" || p.Format != "date-time" {
		t.Errorf("SchemaFor: since = %+v", p)
	}
	if _, err := SchemaFor[struct{ C chan int }](); !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("SchemaFor of a channel field = %v, want ErrInvalidSchema", err)
	}
}

func TestTypedCall(t *testing.T) {
	ts := NewToolSet()
	if _, err := AddTool(ts, ToolInfo{Name: "weather"}, func(_ context.Context, _ *Request, in weatherIn) (weatherOut, error) {
		if in.City == "Atlantis" {
			return weatherOut{}, errors.New("no such city")
		}
		return weatherOut{City: in.City, TempC: 21.5, Note: "<&>"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)

	_, r, res := callTool(t, s, context.Background(), `{"name":"weather","arguments":{"city":"Vienna","days":2,"since":"2025-01-02T03:04:05Z"}}`)
	if r.Error != nil || res.IsError {
		t.Fatalf("%+v %+v", r.Error, res)
	}
	var structured, text weatherOut
	if err := json.Unmarshal(res.StructuredContent, &structured); err != nil {
		t.Fatalf("structuredContent: %v", err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("content = %+v", res.Content)
	}
	if err := json.Unmarshal([]byte(res.Content[0].Text), &text); err != nil {
		t.Fatalf("the text copy is not JSON: %q", res.Content[0].Text)
	}
	want := weatherOut{City: "Vienna", TempC: 21.5, Note: "<&>"}
	if structured != want || text != want {
		t.Errorf("structured %+v, text %+v, want %+v", structured, text, want)
	}

	_, r, res = callTool(t, s, context.Background(), `{"name":"weather","arguments":{"city":"Atlantis"}}`)
	if r.Error != nil || !res.IsError || res.Content[0].Text != "no such city" || res.StructuredContent != nil {
		t.Errorf("tool error: %+v %+v", r.Error, res)
	}
	_, r, _ = callTool(t, s, context.Background(), `{"name":"weather","arguments":{"city":"Vienna","since":"yesterday"}}`)
	if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "since") {
		t.Errorf("bad date-time: %+v", r.Error)
	}
}

func TestTypedNonObjectOut(t *testing.T) {
	ts := NewToolSet()
	if _, err := AddTool(ts, ToolInfo{Name: "names"}, func(_ context.Context, _ *Request, _ struct{}) ([]string, error) {
		return []string{"a", "b"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := AddTool(ts, ToolInfo{Name: "num"}, func(_ context.Context, _ *Request, _ struct{}) (int, error) {
		return 42, nil
	}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	for name, want := range map[string]string{"names": `{"result":["a","b"]}`, "num": `{"result":42}`} {
		_, r, res := callTool(t, s, context.Background(), `{"name":"`+name+`"}`)
		if r.Error != nil || string(res.StructuredContent) != want || res.Content[0].Text != want {
			t.Errorf("%s: %+v %+v, want %s", name, r.Error, res, want)
		}
		out := toolDescriptor(t, s, name)["outputSchema"].(map[string]any)
		if out["type"] != "object" || out["properties"].(map[string]any)["result"] == nil {
			t.Errorf("%s: output schema %v does not wrap the result", name, out)
		}
	}
}

func TestTypedOutputValidation(t *testing.T) {
	var log bytes.Buffer
	ts := NewToolSet()
	outSchema := mustSchema(t, `{"type":"object","properties":{"tempC":{"type":"number","maximum":60}},"required":["tempC"]}`)
	if _, err := AddTool(ts, ToolInfo{Name: "hot", OutputSchema: outSchema}, func(_ context.Context, _ *Request, in struct {
		T float64 `json:"t"`
	}) (weatherOut, error) {
		return weatherOut{TempC: in.T}, nil
	}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), &Options{Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	if _, r, res := callTool(t, s, context.Background(), `{"name":"hot","arguments":{"t":20}}`); r.Error != nil || res.IsError {
		t.Fatalf("valid output rejected: %+v", r.Error)
	}
	log.Reset()
	_, r, _ := callTool(t, s, context.Background(), `{"name":"hot","arguments":{"t":99}}`)
	if r.Error == nil || r.Error.Code != -32603 || r.Error.Message != "Internal error" {
		t.Errorf("output breaking the schema: %+v, want -32603", r.Error)
	}
	if !strings.Contains(log.String(), `"level":"ERROR"`) || !strings.Contains(log.String(), "hot") || !strings.Contains(log.String(), "tempC") {
		t.Errorf("the broken output was not logged as an error naming the tool and field:\n%s", log.String())
	}
}

func TestTypedHandWrittenInput(t *testing.T) {
	in := mustSchema(t, `{"type":"object","properties":{
		"q":{"type":"string","minLength":2,"description":"query"},
		"limit":{"type":"integer","minimum":1,"maximum":50,"default":10}},
		"required":["q"],"additionalProperties":false}`)
	type query struct {
		Q     string `json:"q"`
		Limit int    `json:"limit"`
	}
	ts := NewToolSet()
	if _, err := AddTool(ts, ToolInfo{Name: "search", InputSchema: in}, func(_ context.Context, _ *Request, q query) (query, error) {
		return q, nil
	}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	desc := toolDescriptor(t, s, "search")
	if p := desc["inputSchema"].(map[string]any)["properties"].(map[string]any)["q"].(map[string]any); p["minLength"] != 2.0 || p["description"] != "query" {
		t.Errorf("the hand-written schema was not used: %v", p)
	}
	if _, r, res := callTool(t, s, context.Background(), `{"name":"search","arguments":{"q":"go","limit":5}}`); r.Error != nil || string(res.StructuredContent) != `{"q":"go","limit":5}` {
		t.Errorf("valid call: %+v %s", r.Error, res.StructuredContent)
	}
	for args, want := range map[string]string{
		`{"q":"g"}`:             "/q",
		`{"q":"go","limit":51}`: "/limit",
		`{"q":"go","x":1}`:      "x",
	} {
		_, r, res := callTool(t, s, versionCtx(Version20251125), `{"name":"search","arguments":`+args+`}`)
		if r.Error != nil || !res.IsError || !strings.Contains(res.Content[0].Text, want) {
			t.Errorf("%s: %+v %+v, want an isError result naming %s", args, r.Error, res, want)
		}
	}
}

// TestTypedDecodeError covers arguments the schema admits but the Go type
// cannot hold.
func TestTypedDecodeError(t *testing.T) {
	ts := NewToolSet()
	type in struct {
		N uint8 `json:"n"`
	}
	if _, err := AddTool(ts, ToolInfo{Name: "byte", InputSchema: mustSchema(t, `{"type":"object"}`)}, func(_ context.Context, _ *Request, in in) (in, error) {
		return in, nil
	}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	_, r, _ := callTool(t, s, context.Background(), `{"name":"byte","arguments":{"n":300}}`)
	if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "/n") || !strings.Contains(r.Error.Message, "300 is out of range 0..255") {
		t.Errorf("got %+v, want -32602 naming /n and the range", r.Error)
	}
}

func TestNewToolErrors(t *testing.T) {
	if _, err := NewTool[struct{}, struct{}](ToolInfo{Name: "nil"}, nil); err == nil {
		t.Errorf("nil function accepted")
	}
	if _, err := NewTool(ToolInfo{Name: "str"}, func(context.Context, *Request, string) (struct{}, error) { return struct{}{}, nil }); !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("a string input: %v, want ErrInvalidSchema", err)
	}
	if _, err := NewTool(ToolInfo{Name: "ch"}, func(context.Context, *Request, struct{ C chan int }) (struct{}, error) { return struct{}{}, nil }); !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("a channel field: %v, want ErrInvalidSchema", err)
	}
	ts := NewToolSet()
	if _, err := AddTool(ts, ToolInfo{Name: "bad name"}, func(context.Context, *Request, struct{}) (struct{}, error) { return struct{}{}, nil }); !errors.Is(err, ErrInvalidToolName) {
		t.Errorf("AddTool with a bad name: %v", err)
	}
	// An interface Out has no output schema; any value goes.
	if _, err := AddTool(ts, ToolInfo{Name: "any"}, func(context.Context, *Request, struct{}) (any, error) { return map[string]int{"a": 1}, nil }); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	if _, ok := toolDescriptor(t, s, "any")["outputSchema"]; ok {
		t.Errorf("an interface Out has an output schema")
	}
	if _, r, res := callTool(t, s, context.Background(), `{"name":"any"}`); r.Error != nil || string(res.StructuredContent) != `{"a":1}` {
		t.Errorf("any out: %+v %s", r.Error, res.StructuredContent)
	}
}

type plainOut struct {
	S    string            `json:"s"`
	N    int64             `json:"n"`
	U    uint16            `json:"u,omitempty"`
	F    float64           `json:"f"`
	B    bool              `json:"b"`
	P    *string           `json:"p"`
	L    []int             `json:"l"`
	A    [2]string         `json:"a"`
	M    map[string]bool   `json:"m"`
	Sub  plainSub          `json:"sub"`
	Subs []*plainSub       `json:"subs,omitempty"`
	Deep map[string][]uint `json:"deep"`
}

type plainSub struct {
	Name string `json:"name"`
}

type stampOut struct {
	At time.Time `json:"at"`
}

type embedOut struct {
	plainSub
}

type anyOut struct {
	V any `json:"v"`
}

type bytesOut struct {
	B []byte `json:"b"`
}

type stringTagOut struct {
	N int `json:"n,string"`
}

// TestPlainTypeConformsByConstruction checks the claim that lets typed tools
// skip validating their output: for a plain type, every value encodes to
// JSON that jsonschema-go accepts under the schema inferred from the type.
func TestPlainTypeConformsByConstruction(t *testing.T) {
	typ := reflect.TypeFor[plainOut]()
	if !boundedjson.PlainEncodable(typ) {
		t.Fatal("plainOut must be plain")
	}
	schema, err := schemaForType(typ)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 500; i++ {
		v, ok := quick.Value(typ, rnd)
		if !ok {
			t.Fatal("quick.Value failed")
		}
		enc, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		g, err := parseJSON(enc, outputLimits)
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(g); err != nil {
			t.Fatalf("a plainOut value breaks its inferred schema: %v\n%s", err, enc)
		}
	}
	for _, nonPlain := range []reflect.Type{
		reflect.TypeFor[stampOut](), reflect.TypeFor[embedOut](), reflect.TypeFor[anyOut](),
		reflect.TypeFor[bytesOut](), reflect.TypeFor[stringTagOut](), reflect.TypeFor[json.RawMessage](),
	} {
		if boundedjson.PlainEncodable(nonPlain) {
			t.Errorf("%v must not count as plain: its encoding is not decided by its schema alone", nonPlain)
		}
	}
}

// TestOutputValidatedUnlessPlain: a typed tool whose Out is not plain (here
// a time.Time field) still has every result checked.
func TestOutputValidatedUnlessPlain(t *testing.T) {
	tool, err := NewTool(ToolInfo{Name: "stamp"}, func(context.Context, *Request, struct{}) (stampOut, error) {
		return stampOut{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tool.(*typedTool[struct{}, stampOut]).conforms {
		t.Fatal("stampOut has a custom marshaler; its results must be validated")
	}
	plain, err := NewTool(ToolInfo{Name: "plain"}, func(context.Context, *Request, struct{}) (plainOut, error) {
		return plainOut{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !plain.(*typedTool[struct{}, plainOut]).conforms {
		t.Fatal("plainOut's results conform by construction")
	}
	// A hand-written output schema is always enforced.
	schema, _ := ParseSchema([]byte(`{"type":"object","properties":{"s":{"type":"string","minLength":3}}}`))
	strict, err := NewTool(ToolInfo{Name: "strict", OutputSchema: schema}, func(context.Context, *Request, struct{}) (plainSub, error) {
		return plainSub{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strict.(*typedTool[struct{}, plainSub]).conforms {
		t.Fatal("a hand-written output schema must be enforced")
	}
}

type decodeIn struct {
	S   string            `json:"s"`
	N   int64             `json:"n"`
	I8  int8              `json:"i8"`
	U   uint32            `json:"u"`
	F32 float32           `json:"f32"`
	F   float64           `json:"f"`
	B   bool              `json:"b,omitempty"`
	P   *int              `json:"p"`
	L   []string          `json:"l"`
	A   [3]int16          `json:"a"`
	M   map[string]uint8  `json:"m"`
	Sub plainSub          `json:"sub"`
	PS  []*plainSub       `json:"ps"`
	MM  map[string][]bool `json:"mm,omitempty"`
	Raw string            // no tag: the field name is the member name
}

// TestGenericDecodeAgrees: decoding a plain input type from the generic
// value (no second parse) gives exactly what encoding/json gives from the
// bytes, for random values including integers beyond float64 precision.
func TestGenericDecodeAgrees(t *testing.T) {
	typ := reflect.TypeFor[decodeIn]()
	if !boundedjson.PlainDecodable(typ) {
		t.Fatal("decodeIn must decode generically")
	}
	var got decodeIn
	tool, err := NewTool(ToolInfo{Name: "d"}, func(_ context.Context, _ *Request, in decodeIn) (struct{}, error) {
		got = in
		return struct{}{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !tool.(*typedTool[decodeIn, struct{}]).generic {
		t.Fatal("the tool must use the generic decoder")
	}
	ts := NewToolSet()
	if err := ts.Register(tool); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(ts, AllowAll(), nil)
	rnd := rand.New(rand.NewSource(2))
	for i := 0; i < 300; i++ {
		v, _ := quick.Value(typ, rnd)
		args, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		var want decodeIn
		if err := json.Unmarshal(args, &want); err != nil {
			t.Fatal(err)
		}
		got = decodeIn{}
		res, err := srv.CallTool(context.Background(), NewRequest(Caller{}, "d", args))
		if err != nil || res.IsError {
			t.Fatalf("call failed: %v %+v\n%s", err, res, args)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("generic decoding differs from encoding/json for %s:\n got %+v\nwant %+v", args, got, want)
		}
	}
	// A custom unmarshaler anywhere sends decoding back to encoding/json.
	if boundedjson.PlainDecodable(reflect.TypeFor[struct{ T time.Time }]()) {
		t.Error("time.Time has UnmarshalJSON: not plain for decoding")
	}
}

// TestTypedExtraContentAndMeta: a typed tool adds content blocks and _meta
// to its result; under 2026-07-28 the server's identity joins the _meta.
func TestTypedExtraContentAndMeta(t *testing.T) {
	ts := NewToolSet()
	if _, err := AddTool(ts, ToolInfo{Name: "chart"}, func(_ context.Context, req *Request, _ struct{}) (weatherOut, error) {
		req.AddResultContent(ImageContent([]byte{1, 2}, "image/png"), ResourceLinkContent("file:///chart.csv", "chart.csv"))
		req.SetResultMeta("com.example/cost", 3)
		return weatherOut{TempC: 21}, nil
	}); err != nil {
		t.Fatal(err)
	}
	s := NewServer(ts, AllowAll(), nil)
	res, err := s.CallTool(context.Background(), NewRequest(Caller{}, "chart", nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 3 || res.Content[0].Type != ContentText || res.Content[1].Type != ContentImage ||
		res.Content[2].URI != "file:///chart.csv" || res.Meta["com.example/cost"] != 3 {
		t.Errorf("result %+v", res)
	}
	_, body := s.Handle(context.Background(), Caller{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chart",`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	if !strings.Contains(string(body), `"type":"image","data":"AQI=","mimeType":"image/png"`) ||
		!strings.Contains(string(body), `"_meta":{"com.example/cost":3,"io.modelcontextprotocol/serverInfo":{`) {
		t.Errorf("modern answer: %s", body)
	}
}
