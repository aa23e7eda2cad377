package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/google/jsonschema-go/jsonschema"
)

// violations returns the rules of the violations in err, sorted, and
// checks that every error in it is a *Violation.
func violations(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var rules []string
	for _, e := range errs {
		var v *Violation
		if !errors.As(e, &v) {
			t.Errorf("%v is not a *Violation", e)
			continue
		}
		rules = append(rules, v.Rule)
	}
	sort.Strings(rules)
	return slices.Compact(rules)
}

func mustSchema(t *testing.T, doc string) *jsonschema.Schema {
	t.Helper()
	s, err := mcp.ParseSchema([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// goodInfo is a valid ToolInfo for a raw tool.
func goodInfo(t *testing.T) mcp.ToolInfo {
	return mcp.ToolInfo{
		Name:        "good",
		Description: "A good tool.",
		Permission:  "test.read",
		InputSchema: mustSchema(t, `{"type":"object","properties":{"n":{"type":"integer","minimum":1},"s":{"type":"string","enum":["a","b"]}},"required":["n"],"additionalProperties":false}`),
		Guide:       &mcp.Guide{Examples: []mcp.Example{{Arguments: json.RawMessage(`{"n":2,"s":"b"}`)}}},
	}
}

func okExec(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult("ok"), nil }

// funcTool is a Tool made of functions, to break contracts on purpose.
type funcTool struct {
	info     func() *mcp.ToolInfo
	validate func(context.Context, *mcp.Request) error
	exec     func(context.Context, *mcp.Request) (*mcp.Result, error)
}

func (f *funcTool) Info() *mcp.ToolInfo { return f.info() }
func (f *funcTool) Validate(ctx context.Context, r *mcp.Request) error {
	if f.validate == nil {
		return nil
	}
	return f.validate(ctx, r)
}
func (f *funcTool) Execute(ctx context.Context, r *mcp.Request) (*mcp.Result, error) {
	return f.exec(ctx, r)
}

func TestCheckToolAcceptsGoodTools(t *testing.T) {
	for tool := range ownTools(t).All() {
		if err := CheckTool(tool, nil); err != nil {
			t.Errorf("%s: %v", tool.Info().Name, err)
		}
	}
	if err := CheckTool(mcp.NewRawTool(goodInfo(t), okExec), nil); err != nil {
		t.Errorf("raw tool: %v", err)
	}
	// A tool that honours cancellation returns the context's error.
	info := goodInfo(t)
	info.Guide = nil
	slow := mcp.NewRawTool(info, func(ctx context.Context, _ *mcp.Request) (*mcp.Result, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Hour):
			return mcp.TextResult("late"), nil
		}
	})
	if err := CheckTool(slow, nil); err != nil {
		t.Errorf("slow tool honouring ctx: %v", err)
	}
}

func TestCheckToolFindsEachViolation(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	fast := &CheckOptions{Timeout: 100 * time.Millisecond}

	typedBadOutput, err := mcp.NewTool(mcp.ToolInfo{
		Name: "badout", Description: "d", Permission: "p",
		OutputSchema: mustSchema(t, `{"type":"object","properties":{"n":{"type":"string"}}}`),
		Guide:        &mcp.Guide{Examples: []mcp.Example{{Arguments: json.RawMessage(`{}`)}}},
	}, func(context.Context, *mcp.Request, struct{}) (struct {
		N int `json:"n"`
	}, error) {
		return struct {
			N int `json:"n"`
		}{1}, nil
	})
	if err != nil {
		t.Fatal(err)
	}

	var infoCalls atomic.Int64
	for _, tc := range []struct {
		name string
		tool mcp.Tool
		opts *CheckOptions
		want []string
	}{
		{"nil tool", nil, nil, []string{"info"}},
		{"nil info", &funcTool{info: func() *mcp.ToolInfo { return nil }}, nil, []string{"info"}},
		{"Info panics", &funcTool{info: func() *mcp.ToolInfo { panic("boom") }}, nil, []string{"info"}},
		{"bad name", rawWith(t, func(i *mcp.ToolInfo) { i.Name = "has space" }, okExec), nil, []string{"name"}},
		{"no description", rawWith(t, func(i *mcp.ToolInfo) { i.Description = " " }, okExec), nil, []string{"description"}},
		{"no permission", rawWith(t, func(i *mcp.ToolInfo) { i.Permission = "" }, okExec), nil, []string{"permission"}},
		{"no permission, allowed", rawWith(t, func(i *mcp.ToolInfo) { i.Permission = "" }, okExec), &CheckOptions{AllowNoPermission: true}, nil},
		{"no input schema", rawWith(t, func(i *mcp.ToolInfo) { i.InputSchema, i.Guide = nil, nil }, okExec), nil, []string{"input-schema"}},
		{"no input schema, allowed", rawWith(t, func(i *mcp.ToolInfo) { i.InputSchema, i.Guide = nil, nil }, okExec), &CheckOptions{AllowAnyArguments: true}, nil},
		{"input schema not an object", rawWith(t, func(i *mcp.ToolInfo) { i.InputSchema = mustSchema(t, `{"type":"string"}`) }, okExec), nil, []string{"input-schema"}},
		{"input schema does not compile", rawWith(t, func(i *mcp.ToolInfo) {
			i.InputSchema = mustSchema(t, `{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}`)
		}, okExec), nil, []string{"input-schema"}},
		{"output schema not an object", rawWith(t, func(i *mcp.ToolInfo) { i.OutputSchema = mustSchema(t, `{"type":"array"}`) }, okExec), nil, []string{"output-schema"}},
		{"example off the schema", rawWith(t, func(i *mcp.ToolInfo) {
			i.Guide.Examples = append(i.Guide.Examples, mcp.Example{Arguments: json.RawMessage(`{"n":0}`)})
		}, okExec), nil, []string{"example"}},
		{"example not JSON", rawWith(t, func(i *mcp.ToolInfo) { i.AdminExample = `{"n":` }, okExec), nil, []string{"example"}},
		{"example rejected by Validate", &funcTool{
			info:     infoOf(goodInfo(t)),
			validate: func(context.Context, *mcp.Request) error { return errors.New("n must be even") },
			exec:     okExec,
		}, nil, []string{"example"}},
		{"Execute panics", rawWith(t, nil, func(context.Context, *mcp.Request) (*mcp.Result, error) { panic("boom") }), nil, []string{"cancel", "deadline", "example"}},
		{"result breaks the output schema", typedBadOutput, nil, []string{"example"}},
		{"result cannot be encoded", rawWith(t, nil, func(context.Context, *mcp.Request) (*mcp.Result, error) {
			return &mcp.Result{Content: []mcp.Content{{Type: "bogus"}}}, nil
		}), nil, []string{"example"}},
		{"hangs, ignoring its context", rawWith(t, nil, func(context.Context, *mcp.Request) (*mcp.Result, error) {
			<-release
			return mcp.TextResult("late"), nil
		}), fast, []string{"cancel", "deadline", "example"}},
		{"hangs, but not executed", rawWith(t, nil, func(context.Context, *mcp.Request) (*mcp.Result, error) {
			<-release
			return mcp.TextResult("late"), nil
		}), &CheckOptions{SkipExecute: true}, nil},
		{"unstable Info whose schema loosens", &funcTool{
			info: func() *mcp.ToolInfo {
				i := goodInfo(t)
				if infoCalls.Add(1) > 1 {
					i.InputSchema = mustSchema(t, `{"type":"object"}`)
				}
				return &i
			},
			exec: okExec,
		}, nil, []string{"info", "rejects-invalid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckTool(tc.tool, tc.opts)
			if got := violations(t, err); !slices.Equal(got, tc.want) {
				t.Errorf("violations %v, want %v:\n%v", got, tc.want, err)
			}
		})
	}
}

func rawWith(t *testing.T, edit func(*mcp.ToolInfo), exec func(context.Context, *mcp.Request) (*mcp.Result, error)) mcp.Tool {
	i := goodInfo(t)
	if edit != nil {
		edit(&i)
	}
	return mcp.NewRawTool(i, exec)
}

func infoOf(i mcp.ToolInfo) func() *mcp.ToolInfo { return func() *mcp.ToolInfo { return &i } }

func TestInvalidArgumentsAreInvalid(t *testing.T) {
	s := goodInfo(t).InputSchema
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := invalidArguments(s, rs)
	var descs []string
	for _, b := range bad {
		descs = append(descs, b.desc)
		var v any
		if err := json.Unmarshal(b.args, &v); err != nil {
			t.Fatal(err)
		}
		if rs.Validate(v) == nil {
			t.Errorf("%s %s is valid", b.desc, b.args)
		}
	}
	want := []string{"a non-object argument list", "a wrong type for n", "a wrong type for s", "no n (required)", "an unexpected property"}
	if !slices.Equal(descs, want) {
		t.Errorf("candidates %q, want %q", descs, want)
	}
	// The base they are made from is valid: only the broken part differs.
	if string(bad[2].args) != `{"n":1,"s":"mcptest: wrong type"}` && string(bad[2].args) != `{"n":1,"s":12345.5}` {
		t.Errorf("wrong type for s = %s", bad[2].args)
	}
}

func TestSynthesizeMeetsBounds(t *testing.T) {
	s := mustSchema(t, `{"type":"object","required":["a","b","c","d","e"],"properties":{
		"a":{"type":"integer","minimum":3.5},"b":{"type":"string","minLength":4},
		"c":{"type":"array","minItems":2,"items":{"type":"boolean"}},"d":{"const":"k"},
		"e":{"type":"object","required":["f"],"properties":{"f":{"type":"number","exclusiveMinimum":7}}}}}`)
	v, ok := synthesize(s, 0)
	if !ok {
		t.Fatal("synthesize failed")
	}
	got, _ := json.Marshal(v)
	if want := `{"a":4,"b":"xxxx","c":[false,false],"d":"k","e":{"f":8}}`; string(got) != want {
		t.Errorf("synthesized %s, want %s", got, want)
	}
}

// brokenRegistry wraps a ToolSet and breaks one contract.
type brokenRegistry struct {
	*mcp.ToolSet
	all    func([]mcp.Tool) []mcp.Tool // rewrites what All yields
	lookup bool                        // Lookup never finds
	passes int
}

func (b *brokenRegistry) All() iter.Seq[mcp.Tool] {
	tools := slices.Collect(b.ToolSet.All())
	b.passes++
	if b.all != nil {
		tools = b.all(tools)
	}
	return slices.Values(tools)
}

func (b *brokenRegistry) Lookup(name string) (mcp.Tool, bool) {
	if b.lookup {
		return nil, false
	}
	return b.ToolSet.Lookup(name)
}

// badTool is a tool a ToolSet refuses: its input schema is not an object.
type badTool struct{ mcp.Tool }

func (badTool) Info() *mcp.ToolInfo {
	return &mcp.ToolInfo{Name: "a_bad", InputSchema: &jsonschema.Schema{Type: "array"}}
}

func TestCheckRegistry(t *testing.T) {
	ts := exampleServerTools(t)
	if err := CheckRegistry(ts); err != nil {
		t.Errorf("ToolSet: %v", err)
	}
	if err := CheckRegistry(struct{ mcp.Registry }{ts}); err != nil {
		t.Errorf("a wrapped ToolSet: %v", err)
	}
	for _, tc := range []struct {
		name string
		reg  *brokenRegistry
		want []string
	}{
		{"unsorted", &brokenRegistry{all: func(l []mcp.Tool) []mcp.Tool { slices.Reverse(l); return l }}, []string{"list"}},
		{"duplicate", &brokenRegistry{all: func(l []mcp.Tool) []mcp.Tool { return append(l[:1], l...) }}, []string{"list"}},
		{"unstable", &brokenRegistry{}, []string{"list"}},
		{"blind lookup", &brokenRegistry{lookup: true}, []string{"lookup"}},
		{"unservable", &brokenRegistry{all: func(l []mcp.Tool) []mcp.Tool { return append([]mcp.Tool{badTool{}}, l...) }}, []string{"lookup", "register"}},
	} {
		tc.reg.ToolSet = ts
		if tc.name == "unstable" {
			tc.reg.all = func(l []mcp.Tool) []mcp.Tool {
				if tc.reg.passes > 1 {
					return l[1:]
				}
				return l
			}
		}
		err := CheckRegistry(tc.reg)
		if got := violations(t, err); !slices.Equal(slices.Compact(got), tc.want) {
			t.Errorf("%s: violations %v, want %v:\n%v", tc.name, got, tc.want, err)
		}
	}
}

func exampleServerTools(t *testing.T) *mcp.ToolSet {
	ts := ownTools(t)
	if _, err := mcp.AddTool(ts, mcp.ToolInfo{Name: "secret", Description: "d", Permission: "admin.secret"},
		func(context.Context, *mcp.Request, struct{}) (map[string]int, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestCheckAuthorizer(t *testing.T) {
	cases := []AuthCase{
		{Caller("a", "x.*"), "x.read", true},
		{Caller("a", "x.*"), "x", false},
		{Caller("b"), "", true},
		{Caller("b"), "x.read", false},
	}
	if err := CheckAuthorizer(mcp.GrantsAuthorizer{}, cases); err != nil {
		t.Errorf("GrantsAuthorizer: %v", err)
	}
	if got := violations(t, CheckAuthorizer(mcp.DenyAll(), cases)); !slices.Equal(got, []string{"decision"}) {
		t.Errorf("DenyAll: %v", got)
	}
	panicky := mcp.AuthorizerFunc(func(ctx context.Context, c mcp.Caller, p string) bool {
		_ = c.Grants[0] // panics for callers without grants
		return mcp.GrantsAuthorizer{}.Allowed(ctx, c, p)
	})
	if got := violations(t, CheckAuthorizer(panicky, cases)); !slices.Equal(got, []string{"panic"}) {
		t.Errorf("panicky: %v", got)
	}
	var asked atomic.Int64
	onlyOnce := mcp.AuthorizerFunc(func(context.Context, mcp.Caller, string) bool { return asked.Add(1) == 1 })
	got := violations(t, CheckAuthorizer(onlyOnce, []AuthCase{{Caller("a"), "p", true}}))
	if !slices.Equal(got, []string{"concurrent"}) {
		t.Errorf("fickle: %v", got)
	}
	if got := violations(t, CheckAuthorizer(mcp.AllowAll(), nil)); len(got) != 1 {
		t.Errorf("no cases: %v", got)
	}
	v := &Violation{Tool: "x", Rule: "r", Detail: "d"}
	if !strings.Contains(v.Error(), `tool "x": r: d`) {
		t.Errorf("Error = %q", v.Error())
	}
}
