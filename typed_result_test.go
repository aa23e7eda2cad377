package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

type textedOut struct {
	Items []string `json:"items"`
}

func (o textedOut) Text() string {
	return fmt.Sprintf("%d items, nil=%t: %s", len(o.Items), o.Items == nil, strings.Join(o.Items, ","))
}

type ptrTextedOut struct {
	N int `json:"n"`
}

func (o *ptrTextedOut) Text() string { return "pointer text" }

type textedLines []string

func (l textedLines) Text() string { return strings.Join(l, "\n") }

type customOut struct {
	V string `json:"v"`
}

func (o customOut) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf(`{"v":"#%s"}`, o.V)), nil }

type textedAny struct{ S string }

func (a textedAny) Text() string { return "any: " + a.S }

// callOne registers the tool mk makes (named "t") and returns its result.
func callOne(t *testing.T, mk func() (Tool, error)) *Result {
	t.Helper()
	tool, err := mk()
	if err != nil {
		t.Fatal(err)
	}
	ts := NewToolSet()
	if err := ts.Register(tool); err != nil {
		t.Fatal(err)
	}
	res, err := NewServer(ts, AllowAll(), nil).CallTool(context.Background(), NewRequest(Caller{}, "t", nil))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTypedResultText checks the text block and structured content a
// typed tool's result carries, for each way Execute builds them: a plain
// Out encoded through a pointer, a Texter (by value, by pointer only,
// wrapped, behind an interface, with nils filled), a custom marshaler, and
// content added by the tool.
func TestTypedResultText(t *testing.T) {
	cases := []struct {
		name       string
		res        func(t *testing.T) *Result
		text, json string
		blocks     int
	}{
		{"plain", func(t *testing.T) *Result {
			return callOne(t, func() (Tool, error) {
				return NewTool(ToolInfo{Name: "t"}, func(context.Context, *Request, struct{}) (weatherOut, error) {
					return weatherOut{City: "Oslo", TempC: -3.5}, nil
				})
			})
		}, `{"city":"Oslo","tempC":-3.5}`, `{"city":"Oslo","tempC":-3.5}`, 1},
		{"texter, nils filled", func(t *testing.T) *Result {
			return callOne(t, func() (Tool, error) {
				return NewTool(ToolInfo{Name: "t"}, func(context.Context, *Request, struct{}) (textedOut, error) {
					return textedOut{}, nil
				})
			})
		}, "0 items, nil=false: ", `{"items":[]}`, 1},
		{"texter", func(t *testing.T) *Result {
			return callOne(t, func() (Tool, error) {
				return NewTool(ToolInfo{Name: "t"}, func(context.Context, *Request, struct{}) (textedOut, error) {
					return textedOut{Items: []string{"a", "b"}}, nil
				})
			})
		}, "2 items, nil=false: a,b", `{"items":["a","b"]}`, 1},
		{"Text on the pointer only", func(t *testing.T) *Result {
			return callOne(t, func() (Tool, error) {
				return NewTool(ToolInfo{Name: "t"}, func(context.Context, *Request, struct{}) (ptrTextedOut, error) {
					return ptrTextedOut{N: 7}, nil
				})
			})
		}, `{"n":7}`, `{"n":7}`, 1},
		{"wrapped texter", func(t *testing.T) *Result {
			return callOne(t, func() (Tool, error) {
				return NewTool(ToolInfo{Name: "t"}, func(context.Context, *Request, struct{}) (textedLines, error) {
					return textedLines{"x 1", "y 2"}, nil
				})
			})
		}, "x 1\ny 2", `{"result":["x 1","y 2"]}`, 1},
		{"texter behind an interface", func(t *testing.T) *Result {
			return callOne(t, func() (Tool, error) {
				return NewTool(ToolInfo{Name: "t"}, func(context.Context, *Request, struct{}) (any, error) {
					return textedAny{S: "s"}, nil
				})
			})
		}, "any: s", `{"S":"s"}`, 1},
		{"custom marshaler", func(t *testing.T) *Result {
			return callOne(t, func() (Tool, error) {
				return NewTool(ToolInfo{Name: "t"}, func(context.Context, *Request, struct{}) (customOut, error) {
					return customOut{V: "3"}, nil
				})
			})
		}, `{"v":"#3"}`, `{"v":"#3"}`, 1},
		{"added content", func(t *testing.T) *Result {
			return callOne(t, func() (Tool, error) {
				return NewTool(ToolInfo{Name: "t"}, func(_ context.Context, req *Request, _ struct{}) (weatherOut, error) {
					req.AddResultContent(TextContent("more"), TextContent("and more"))
					return weatherOut{City: "Rome"}, nil
				})
			})
		}, `{"city":"Rome","tempC":0}`, `{"city":"Rome","tempC":0}`, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := c.res(t)
			if len(res.Content) != c.blocks || res.Content[0].Type != ContentText || res.Content[0].Text != c.text {
				t.Fatalf("content %+v, want %d blocks, the first %q", res.Content, c.blocks, c.text)
			}
			raw, ok := res.StructuredContent.(json.RawMessage)
			if !ok || string(raw) != c.json {
				t.Fatalf("structuredContent %#v, want %s", res.StructuredContent, c.json)
			}
			if c.blocks == 3 && (res.Content[1].Text != "more" || res.Content[2].Text != "and more") {
				t.Fatalf("added content %+v", res.Content[1:])
			}
			// The result is the caller's: appending to its content
			// leaves what another result holds alone.
			res.Content = append(res.Content, TextContent("appended"))
			if again := c.res(t); len(again.Content) != c.blocks {
				t.Fatalf("a second call has %d blocks", len(again.Content))
			}
		})
	}
}

// TestTypedToolKeepsCheckedSchemaOnly: a typed tool keeps the compiled
// output schema it checks results against, and none when its results
// conform by construction (a plain Out with the schema inferred from it).
func TestTypedToolKeepsCheckedSchemaOnly(t *testing.T) {
	plain, err := NewTool(ToolInfo{Name: "t"}, func(context.Context, *Request, struct{}) (weatherOut, error) {
		return weatherOut{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tt := plain.(*typedTool[struct{}, weatherOut]); tt.out != nil || !tt.conforms {
		t.Errorf("plain Out: keeps an output schema it never checks (conforms %v)", tt.conforms)
	}
	declared, err := NewTool(ToolInfo{Name: "t", OutputSchema: mustSchema(t, `{"type":"object","properties":{"city":{"type":"string","minLength":3}}}`)},
		func(context.Context, *Request, struct{}) (weatherOut, error) { return weatherOut{City: "X"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if tt := declared.(*typedTool[struct{}, weatherOut]); tt.out == nil || tt.conforms {
		t.Fatalf("declared output schema: kept %v, conforms %v", tt.out != nil, tt.conforms)
	}
	ts := NewToolSet()
	if err := ts.Register(declared); err != nil {
		t.Fatal(err)
	}
	if _, err := NewServer(ts, AllowAll(), nil).CallTool(context.Background(), NewRequest(Caller{}, "t", nil)); !errors.Is(err, ErrInvalidOutput) {
		t.Fatalf("a result outside the declared schema: %v, want ErrInvalidOutput", err)
	}
}
