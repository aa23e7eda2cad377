package mcp

import (
	"context"

	"github.com/embedmcp/mcp/internal/boundedjson"
	"github.com/embedmcp/mcp/internal/schemacheck"

	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Texter is implemented by tool results that render themselves as the text
// a model reads: one line per item, ids with file:line, no JSON. NewTool
// sends Text as the text content of an Out that implements it.
type Texter interface {
	Text() string
}

// NewTool makes a Tool from a typed Go function. The arguments are decoded
// into In; the Out value becomes structuredContent, with a text copy in
// content for clients that only read text: Out's Text when it implements
// Texter, else its JSON. The function may add content
// blocks and _meta of its own to the result (Request.AddResultContent,
// Request.SetResultMeta).
//
// Schemas are inferred from In and Out with jsonschema-go (see SchemaFor)
// unless info sets them, and are resolved once, here. Out's schema must
// describe an object; any other Out (a slice, a string, a number) is wrapped
// as {"result": value} and its schema likewise. An Out of interface type has
// no output schema. Each result is validated against the output schema: a
// tool that breaks its own schema fails the call with ErrInvalidOutput (an
// internal error), which is a bug in the tool, not in the caller.
//
// NewTool returns an error, never panics, for types that have no JSON
// Schema or schemas that do not compile.
func NewTool[In, Out any](info ToolInfo, fn func(ctx context.Context, req *Request, in In) (Out, error)) (Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("mcp: NewTool %q: nil function", info.Name)
	}
	t := &typedTool[In, Out]{fn: fn}
	if info.InputSchema == nil {
		s, err := schemaForType(reflect.TypeFor[In]())
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", info.Name, err)
		}
		info.InputSchema = s
	}
	// The arguments of a plain In are decoded from the validated generic
	// value, without parsing them again, and by the schema's rules (1.0 is
	// an integer).
	t.generic = reflect.TypeFor[In]().Kind() == reflect.Struct && boundedjson.PlainDecodable(reflect.TypeFor[In]())
	outType := reflect.TypeFor[Out]()
	if info.OutputSchema == nil && outType.Kind() != reflect.Interface {
		// Every value of a plain type encodes to JSON that matches the
		// schema inferred from that type, so its output needs no check.
		t.conforms = boundedjson.PlainEncodable(outType)
		t.fillNils = schemacheck.HasNilable(outType)
		s, err := schemaForType(outType)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", info.Name, err)
		}
		if s.Type != "object" {
			t.wrap = true
			s = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"result": s},
				Required: []string{"result"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
		}
		info.OutputSchema = s
	}
	checked := info.OutputSchema
	if g := info.Guide; g != nil && g.OutputSchema != nil {
		// The guide's schema checks every result and is shown by
		// tool_detail; tools/list does not carry it.
		checked, info.OutputSchema, t.conforms = g.OutputSchema, nil, false
	}
	if _, err := compileSchema(info.Name, "input", info.InputSchema); err != nil {
		return nil, err
	}
	out, err := compileSchema(info.Name, "output", checked)
	if err != nil {
		return nil, err
	}
	if !t.conforms {
		// A conforming output is never checked: its compiled schema
		// (checked above) is not kept, for the heap's sake.
		t.out = out
	}
	t.info = info
	t.plainOut = boundedjson.PlainEncodable(outType)
	t.texter = outType.Implements(reflect.TypeFor[Texter]())
	return t, nil
}

// AddTool is NewTool followed by ts.Register. It returns the Tool, for
// tests (mcptest.CheckTool) and for removing or replacing it later.
func AddTool[In, Out any](ts *ToolSet, info ToolInfo, fn func(ctx context.Context, req *Request, in In) (Out, error)) (Tool, error) {
	t, err := NewTool(info, fn)
	if err != nil {
		return nil, err
	}
	if err := ts.Register(t); err != nil {
		return nil, err
	}
	return t, nil
}

type typedTool[In, Out any] struct {
	info ToolInfo
	fn   func(context.Context, *Request, In) (Out, error)
	out  *compiledSchema
	wrap bool
	// conforms: the output schema was inferred from a plain Out type, so
	// every result matches it by construction and is not validated again.
	conforms bool
	// fillNils: the output schema was inferred and Out can hold nil slices
	// or maps, which are sent as [] or {} (schemacheck.EmptyNils).
	fillNils bool
	// generic: In is decoded from the generic arguments (decode.go).
	generic bool
	// plainOut: encoding/json encodes Out and *Out alike (no custom
	// marshalers anywhere in it), so the result is encoded through a
	// pointer into typedResult rather than a boxed copy.
	plainOut bool
	// texter: Out implements Texter (its value, not only its pointer).
	texter bool
}

// typedResult is what Execute allocates for a result, in one piece: the
// Result returned, its text block, and the Out value encoded.
type typedResult[Out any] struct {
	res  Result
	text [1]Content
	out  Out
}

func (t *typedTool[In, Out]) Info() *ToolInfo { return &t.info }

// checksOutput marks typed tools as validating their own output.
func (t *typedTool[In, Out]) checksOutput() {}

// Validate decodes the arguments into In; the decoded value is kept for
// Execute.
func (t *typedTool[In, Out]) Validate(_ context.Context, req *Request) error {
	in, err := t.decode(req)
	if err != nil {
		return err
	}
	req.c.setDecoded(in)
	return nil
}

func (t *typedTool[In, Out]) decode(req *Request) (*In, error) {
	if in, ok := req.c.decoded.(*In); ok {
		return in, nil
	}
	in := new(In)
	if t.generic && req.c.args != nil {
		err := boundedjson.Decode(req.c.args, in)
		if err == nil {
			return in, nil
		}
		var de *boundedjson.DecodeError
		if errors.As(err, &de) {
			return nil, &ArgumentError{Tool: req.Name, Path: de.Path, Msg: de.Msg}
		}
		*in = *new(In) // an integer beyond 2^53: start again from the bytes
	}
	// encoding/json, for types with custom unmarshalers and for integers
	// a float64 cannot hold. Without the latter, the validated arguments
	// are encoded again first, so that a number the schema counts as an
	// integer (1.0) reaches an int field as one.
	src := []byte(req.Arguments)
	if req.c.args != nil && !boundedjson.HasImprecise(req.c.args) {
		if enc, err := json.Marshal(req.c.args); err == nil {
			src = enc
		}
	}
	if err := json.Unmarshal(src, in); err != nil {
		path, msg := decodeFailure(err)
		if path == "" {
			path = failingMember[In](src)
		}
		return nil, &ArgumentError{Tool: req.Name, Path: path, Msg: msg}
	}
	return in, nil
}

// failingMember finds, for an error encoding/json reports without a field
// (a custom UnmarshalJSON such as time.Time's), the top-level member that
// fails on its own, and returns its JSON pointer; "" if there is none.
func failingMember[In any](args []byte) string {
	var members map[string]json.RawMessage
	if json.Unmarshal(args, &members) != nil {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(members)) {
		one, err := json.Marshal(map[string]json.RawMessage{k: members[k]})
		if err == nil && json.Unmarshal(one, new(In)) != nil {
			return "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
		}
	}
	return ""
}

// Execute runs the function and builds the result.
func (t *typedTool[In, Out]) Execute(ctx context.Context, req *Request) (*Result, error) {
	in, err := t.decode(req)
	if err != nil {
		return nil, err
	}
	out, err := t.fn(ctx, req, *in)
	if err != nil {
		return nil, err
	}
	r := &typedResult[Out]{out: out}
	// A plain Out is encoded through a pointer to it (nothing boxed);
	// any other as a value, by encoding/json's rules for one.
	var v any = &r.out
	var val any // Out's value, when it is boxed
	if !t.plainOut {
		val = r.out
		v = val
	}
	if t.fillNils {
		// The inferred schema types slices and maps as array and object.
		if filled, changed := schemacheck.EmptyNils(reflect.ValueOf(&r.out).Elem()); changed {
			val = filled.Interface()
			v = val
		}
	}
	if t.wrap {
		v = struct {
			Result any `json:"result"`
		}{v}
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: encoding the result: %v", ErrInvalidOutput, req.Name, err)
	}
	if t.out != nil && !t.conforms {
		g, err := parseJSON(enc, outputLimits)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: %v", ErrInvalidOutput, req.Name, err)
		}
		if err := t.out.checkOutput(req.Name, g); err != nil {
			return nil, err
		}
	}
	var tx Texter
	var ok bool
	if val != nil {
		tx, ok = val.(Texter)
	} else if t.texter {
		tx, ok = any(r.out).(Texter)
	}
	var text string
	if ok {
		text = tx.Text()
	} else {
		text = string(enc)
	}
	r.text[0] = TextContent(text)
	r.res = Result{Content: r.text[:1:1], StructuredContent: json.RawMessage(enc), Meta: req.c.meta}
	if len(req.c.extra) > 0 {
		r.res.Content = append(r.res.Content, req.c.extra...)
	}
	return &r.res, nil
}

// decodeFailure says where and why encoding/json refused the arguments,
// from the fields of its error.
func decodeFailure(err error) (path, msg string) {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		if ute.Field != "" {
			path = "/" + strings.ReplaceAll(ute.Field, ".", "/")
		}
		return path, "expected " + boundedjson.Kind(ute.Type) + ", got " + shorten(ute.Value)
	}
	return "", shorten(err.Error())
}
