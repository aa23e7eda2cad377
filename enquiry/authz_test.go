package enquiry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/embedmcp/mcp"
)

// enquiries are the calls whose answers must not depend on tools the caller
// may not use.
func enquiries() [][2]string {
	var out [][2]string
	add := func(tool, args string) { out = append(out, [2]string{tool, args}) }
	for _, f := range ek9Fixtures {
		add(DefaultDetailName, `{"tool":"`+f.name+`"}`)
		add(DefaultDetailName, `{"tool":`+asJSON(strings.ReplaceAll(strings.TrimPrefix(f.name, "ek9_"), "_", " "))+`,"verbosity":"summary"}`)
		if f.guide != nil {
			for _, c := range f.guide.ErrorCodes {
				add(DefaultDetailName, `{"errorCode":"`+c+`"}`)
			}
		}
	}
	for _, p := range []string{seedPhrase, "find a class by name", "rename a method", "add a field to a record",
		"change the return type", "edit a file", "fix a diagnostic", "run the tests", "extract method", "status edits"} {
		add(DefaultDetailName, `{"tool":`+asJSON(p)+`,"verbosity":"none"}`)
	}
	add(DefaultCatalogueName, `{}`)
	add(DefaultCatalogueName, `{"limit":3,"offset":2}`)
	add(DefaultCatalogueName, `{"category":"refactoring"}`)
	add(DefaultCatalogueName, `{"category":"Other"}`)
	return out
}

// A caller's answers from the full registry equal the answers from a
// registry that holds only the tools the caller may use: forbidden tools are
// invisible, in matches, candidates, scores, error codes and the catalogue.
func TestForbiddenToolsAreInvisible(t *testing.T) {
	az := mcp.GrantsAuthorizer{}
	for _, grants := range [][]string{nil, {permEdit}, {permRefactor, permDiag}, {"ek9.*"}} {
		caller := mcp.Caller{Principal: "p", Grants: grants}
		may := func(name string) bool {
			for _, f := range ek9Fixtures {
				if f.name == name {
					return az.Allowed(context.Background(), caller, f.perm)
				}
			}
			return false
		}
		full := ek9Set(t, az, nil)
		only := ek9Set(t, az, may)
		for _, q := range enquiries() {
			got := answerOrError(t, full, az, caller, q[0], q[1])
			want := answerOrError(t, only, az, caller, q[0], q[1])
			if !reflect.DeepEqual(got, want) {
				t.Errorf("grants %v, %s %s:\n got %s\nwant %s", grants, q[0], q[1], asJSON(got), asJSON(want))
			}
		}
	}
}

// With no grants, no tool that needs one is ever named.
func TestForbiddenNamesNeverShown(t *testing.T) {
	az := mcp.GrantsAuthorizer{}
	ts := ek9Set(t, az, nil)
	caller := mcp.Caller{Principal: "anonymous"}
	shown := map[string]bool{}
	for _, q := range enquiries() {
		m := answerOrError(t, ts, az, caller, q[0], q[1])
		if tool, ok := m["tool"].(map[string]any); ok {
			shown[tool["name"].(string)] = true
		}
		for _, c := range asSlice(m["candidates"]) {
			shown[c.(map[string]any)["name"].(string)] = true
		}
		for _, c := range asSlice(m["categories"]) {
			for _, tl := range asSlice(c.(map[string]any)["tools"]) {
				shown[tl.(map[string]any)["name"].(string)] = true
			}
		}
	}
	var names []string
	for n := range shown {
		names = append(names, n)
	}
	slices.Sort(names)
	// Only the tools with an empty permission.
	want := []string{"ek9_find_references", "ek9_find_symbol", DefaultCatalogueName, DefaultDetailName}
	if !slices.Equal(names, want) {
		t.Errorf("shown %v, want %v", names, want)
	}

	// The exact name of a forbidden tool answers like an unknown name.
	a := detail(t, ts, az, caller, `{"tool":"ek9_extract_method"}`)
	if a.Match == "exact" || a.Tool != nil && a.Tool.Name == "ek9_extract_method" {
		t.Errorf("forbidden tool found by name: %s", asJSON(a))
	}
	a = detail(t, ts, az, caller, `{"errorCode":"E50001"}`)
	if a.Match != "none" {
		t.Errorf("forbidden tool found by error code: %s", asJSON(a))
	}
}

// answerOrError is callRaw's structured content, or {"error": message}
// for invalid arguments (such as a category the caller cannot see).
func answerOrError(t *testing.T, ts *mcp.ToolSet, az mcp.Authorizer, caller mcp.Caller, tool, args string) map[string]any {
	t.Helper()
	_, err := mcp.NewServer(ts, az, nil).CallTool(context.Background(), mcp.NewRequest(caller, tool, json.RawMessage(args)))
	if errors.Is(err, mcp.ErrInvalidArguments) {
		return map[string]any{"error": err.Error()}
	}
	m, _ := callRaw(t, ts, az, caller, tool, args)
	return m
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// The enquiry tools' own permission is configurable.
func TestEnquiryPermission(t *testing.T) {
	az := mcp.GrantsAuthorizer{}
	ts := mcp.NewToolSet()
	if err := Register(ts, &Options{Permission: "enquiry.read"}); err != nil {
		t.Fatal(err)
	}
	_, err := mcp.NewServer(ts, az, nil).CallTool(context.Background(), mcp.NewRequest(mcp.Caller{}, DefaultDetailName, json.RawMessage(`{"tool":"x"}`)))
	if !errors.Is(err, mcp.ErrUnknownTool) {
		t.Errorf("without the grant: %v, want ErrUnknownTool", err)
	}
	a := detail(t, ts, az, mcp.Caller{Grants: []string{"enquiry.read"}}, `{"tool":"tool catalogue"}`)
	if a.Match != "exact" || a.Tool.Name != DefaultCatalogueName {
		t.Errorf("with the grant: %s", asJSON(a))
	}
}

// The index follows the registry: tools registered or removed after the
// first call are found or gone on the next one.
func TestIndexFollowsRegistry(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	if a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"generate docs"}`); a.Match == "exact" {
		t.Fatalf("found before registration: %s", asJSON(a))
	}
	err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "ek9_generate_docs", Description: "Writes HTML documentation for a module.",
		Guide: &mcp.Guide{Category: "Build"}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"generate docs"}`); a.Match != "exact" || a.Tool.Name != "ek9_generate_docs" {
		t.Errorf("after registration: %s", asJSON(a))
	}
	if a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"html documentation"}`); a.Tool == nil || a.Tool.Name != "ek9_generate_docs" {
		t.Errorf("phrase after registration: %s", asJSON(a))
	}
	ts.Remove("ek9_generate_docs", "ek9_edit_file")
	for _, q := range []string{"generate docs", "edit file"} {
		if a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"`+q+`"}`); a.Match == "exact" {
			t.Errorf("%q after removal: %s", q, asJSON(a))
		}
	}
}

// The index is built once per registry change, not per call.
func TestIndexBuiltOncePerGeneration(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	e := &enquirer{src: ts, az: mcp.AllowAll(), prefix: "ek9", weights: DefaultWeights().fields()}
	defer ts.Watch(func() { e.gen.Add(1) })()
	a, b := e.index(), e.index()
	if a != b {
		t.Error("index rebuilt without a change")
	}
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "new_tool"}, nil)); err != nil {
		t.Fatal(err)
	}
	c := e.index()
	if c == a || c.gen != e.gen.Load() {
		t.Error("index not rebuilt after a change")
	}
	if _, ok := c.byName["new_tool"]; !ok {
		t.Error("new tool not indexed")
	}
}

// Calls race with registry changes (run with -race).
func TestConcurrentCallsAndChanges(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 50 {
			name := fmt.Sprintf("tmp_tool_%d", i)
			if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: name, Description: "Temporary widget tool."}, nil)); err != nil {
				t.Error(err)
				return
			}
			if i%2 == 0 {
				ts.Remove(name)
			}
		}
	}()
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				q := [][2]string{{DefaultDetailName, `{"tool":"temporary widget"}`}, {DefaultCatalogueName, `{"limit":5}`},
					{DefaultDetailName, `{"tool":"edit file"}`}}[g%3]
				res, err := mcp.NewServer(ts, mcp.AllowAll(), nil).CallTool(context.Background(), mcp.NewRequest(mcp.Caller{}, q[0], json.RawMessage(q[1])))
				if err != nil || res.IsError {
					t.Errorf("%s: %v %v", q[1], err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestOptionsErrors(t *testing.T) {
	ts := mcp.NewToolSet()
	neg := DefaultWeights()
	neg.Details = -1
	for name, c := range map[string]struct {
		src  Source
		opts Options
	}{
		"nil source":      {nil, Options{}},
		"bad name":        {ts, Options{DetailName: "tool detail"}},
		"same names":      {ts, Options{DetailName: "x", CatalogueName: "x"}},
		"negative weight": {ts, Options{Weights: &neg}},
	} {
		if _, err := Tools(c.src, &c.opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := Register(nil, &Options{}); err == nil {
		t.Error("nil ToolSet: no error")
	}
	if err := Register(ts, &Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Register(ts, &Options{}); !errors.Is(err, mcp.ErrDuplicateTool) {
		t.Errorf("second Register: %v, want ErrDuplicateTool", err)
	}
}

// Field weights are honoured: with only names searched, a phrase that only
// matches descriptions finds nothing.
func TestWeights(t *testing.T) {
	ts := mcp.NewToolSet()
	if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "ek9_format_file", Description: "Re-indents one source file."}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := Register(ts, &Options{Weights: &Weights{Name: 1}}); err != nil {
		t.Fatal(err)
	}
	if a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"re-indent source"}`); a.Match != "none" {
		t.Errorf("description searched with weight 0: %s", asJSON(a))
	}
	if a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"format"}`); a.Tool == nil || a.Tool.Name != "ek9_format_file" {
		t.Errorf("name not searched: %s", asJSON(a))
	}
}
