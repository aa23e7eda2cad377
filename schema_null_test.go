package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/google/jsonschema-go/jsonschema"
)

type nullItem struct {
	Tags []string `json:"tags"`
}

type nullShapes struct {
	List     []nullItem        `json:"list"`
	Counts   map[string]int    `json:"counts"`
	Ptr      *[]string         `json:"ptr"`
	Tagged   []string          `json:"tagged" mcp:"nullable"`
	Optional []string          `json:"optional,omitempty"`
	Zero     []string          `json:"zero,omitzero"`
	Nested   map[string][]int  `json:"nested"`
	Fixed    [2][]string       `json:"fixed"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	ByPtr    *nullItem         `json:"byPtr,omitempty"`
	Deep     []map[string]bool `json:"deep"`
}

func typesOf(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// TestSchemaSlicesNotNull: inferred slices and maps are array and object;
// null only behind a pointer or with `mcp:"nullable"`; SchemaWith's
// NullableSlices brings back ["null","array"] for slices.
func TestSchemaSlicesNotNull(t *testing.T) {
	s, err := mcp.SchemaFor[nullShapes]()
	if err != nil {
		t.Fatal(err)
	}
	p := s.Properties
	for name, want := range map[string][]string{
		"list": {"array"}, "counts": {"object"}, "ptr": {"null", "array"}, "tagged": {"null", "array"},
		"optional": {"array"}, "zero": {"array"}, "nested": {"object"}, "fixed": {"array"}, "deep": {"array"},
		"byPtr": {"null", "object"},
	} {
		if got := typesOf(p[name]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: types %v, want %v", name, got, want)
		}
	}
	for what, got := range map[string]*jsonschema.Schema{
		"list items' tags":    p["list"].Items.Properties["tags"],
		"nested values":       p["nested"].AdditionalProperties,
		"fixed items":         p["fixed"].Items,
		"byPtr's tags":        p["byPtr"].Properties["tags"],
		"deep items' entries": p["deep"].Items,
	} {
		if want := map[bool][]string{true: {"object"}, false: {"array"}}[what == "deep items' entries"]; !reflect.DeepEqual(typesOf(got), want) {
			t.Errorf("%s: types %v, want %v", what, typesOf(got), want)
		}
	}
	if typesOf(p["raw"]) != nil {
		t.Errorf("json.RawMessage: types %v, want none (any value)", typesOf(p["raw"]))
	}
	old, err := mcp.SchemaWith[nullShapes](&mcp.SchemaOptions{NullableSlices: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := typesOf(old.Properties["list"]); !reflect.DeepEqual(got, []string{"null", "array"}) {
		t.Errorf("NullableSlices: list types %v, want [null array]", got)
	}
	if got := typesOf(old.Properties["counts"]); !reflect.DeepEqual(got, []string{"object"}) {
		t.Errorf("NullableSlices: counts types %v, want [object]", got)
	}
}

// TestTypedOutputNilSlices: a typed tool's nil slices and maps are sent as
// [] and {} and match its inferred output schema; a nullable field stays
// null, an omitzero one absent; the tool's own value is not written to.
// Under the inferred input schema a null slice argument is invalid.
func TestTypedOutputNilSlices(t *testing.T) {
	var kept nullShapes
	ts := mcp.NewToolSet()
	_, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "shapes", Description: "Shapes."},
		func(_ context.Context, _ *mcp.Request, in struct{}) (nullShapes, error) {
			kept = nullShapes{List: []nullItem{{}}, ByPtr: &nullItem{}}
			return kept, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	_, err = mcp.AddTool(ts, mcp.ToolInfo{Name: "list", Description: "A list."},
		func(_ context.Context, _ *mcp.Request, in struct {
			Names []string `json:"names"`
		}) ([]string, error) {
			return nil, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(ts, mcp.AllowAll(), nil)
	res, err := srv.CallTool(context.Background(), mcp.NewRequest(mcp.Caller{}, "shapes", nil))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"list": []any{map[string]any{"tags": []any{}}}, "counts": map[string]any{}, "ptr": nil, "tagged": nil,
		"nested": map[string]any{}, "fixed": []any{[]any{}, []any{}}, "byPtr": map[string]any{"tags": []any{}}, "deep": []any{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("structuredContent\n got %v\nwant %v", got, want)
	}
	if kept.List[0].Tags != nil || kept.ByPtr.Tags != nil || kept.Counts != nil {
		t.Errorf("the tool's value was written to: %+v", kept)
	}
	res, err = srv.CallTool(context.Background(), mcp.NewRequest(mcp.Caller{}, "list", json.RawMessage(`{"names":[]}`)))
	if err != nil || string(res.StructuredContent.(json.RawMessage)) != `{"result":[]}` {
		t.Errorf("a nil []string output: %v %v", err, res)
	}
	_, err = srv.CallTool(context.Background(), mcp.NewRequest(mcp.Caller{}, "list", json.RawMessage(`{"names":null}`)))
	if !errors.Is(err, mcp.ErrInvalidArguments) {
		t.Errorf("null for a []string argument: %v, want ErrInvalidArguments", err)
	}
}
