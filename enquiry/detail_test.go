package enquiry

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

const seedPhrase = "extract a statement range into a new pure function with explicit parameters and return, then replace the block with a call"

func TestDetailSeedPhraseIsAmbiguous(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	raw, _ := callRaw(t, ts, mcp.AllowAll(), mcp.Caller{}, DefaultDetailName, `{"tool":"`+seedPhrase+`"}`)
	a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"`+seedPhrase+`"}`)
	if a.Status != "ok" || a.Match != "ambiguous" || a.Tool != nil {
		t.Fatalf("want ok/ambiguous without tool, got %s", asJSON(a))
	}
	if len(a.Candidates) < 2 || len(a.Candidates) > 5 {
		t.Fatalf("want 2..5 candidates, got %d", len(a.Candidates))
	}
	if a.Candidates[0].Name != "ek9_extract_method" {
		t.Errorf("top candidate = %s, want ek9_extract_method", a.Candidates[0].Name)
	}
	// The recorded EK9 answer ranks these five.
	var names []string
	for i, c := range a.Candidates {
		names = append(names, c.Name)
		if c.Description == "" {
			t.Errorf("candidate %s has no description", c.Name)
		}
		if c.Score <= 0 || c.Score != math.Round(c.Score*1000)/1000 {
			t.Errorf("candidate %s: score %v not positive and rounded to 3 decimals", c.Name, c.Score)
		}
		if i > 0 && c.Score > a.Candidates[i-1].Score {
			t.Errorf("candidates not ranked: %v after %v", c.Score, a.Candidates[i-1].Score)
		}
	}
	want := []string{"ek9_change_signature", "ek9_extract_method", "ek9_insert_statements", "ek9_introduce_parameter", "ek9_surround_with"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("candidates %v, want %v", names, want)
	}
	if a.Candidates[0].Score >= 1.5*a.Candidates[1].Score {
		t.Errorf("ambiguous although the top scores %v ≥ 1.5 × %v", a.Candidates[0].Score, a.Candidates[1].Score)
	}
	for _, c := range raw["candidates"].([]any) {
		for k := range c.(map[string]any) {
			if k != "name" && k != "description" && k != "score" {
				t.Errorf("candidate carries %q", k)
			}
		}
	}
	if !strings.Contains(a.NextStep, DefaultDetailName) {
		t.Errorf("nextStep %q does not say how to go on", a.NextStep)
	}
}

func TestDetailNormalisedName(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	for _, q := range []string{"edit file", "Edit File", "  ek9 edit   file ", "EK9_EDIT_FILE", "edit_file", "ek9-edit_file"} {
		a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":`+asJSON(q)+`,"verbosity":"summary"}`)
		if a.Status != "ok" || a.Match != "exact" || a.Tool == nil || a.Tool.Name != "ek9_edit_file" {
			t.Errorf("%q: want exact ek9_edit_file, got %s", q, asJSON(a))
			continue
		}
		if want := `Resolved "` + strings.TrimSpace(q) + `" -> "ek9_edit_file"`; a.Note != want {
			t.Errorf("%q: note %q, want %q", q, a.Note, want)
		}
	}
	a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"ek9_edit_file"}`)
	if a.Match != "exact" || a.Note != "" {
		t.Errorf("registered name: match %s note %q, want exact without note", a.Match, a.Note)
	}
}

func TestDetailSummaryParameters(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	raw, _ := callRaw(t, ts, mcp.AllowAll(), mcp.Caller{}, DefaultDetailName, `{"tool":"edit file","verbosity":"summary"}`)
	a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"edit file","verbosity":"summary"}`)
	if _, ok := raw["tool"].(map[string]any)["inputSchema"]; ok {
		t.Error("summary carries inputSchema")
	}
	type p struct {
		name, typ string
		required  bool
		enum      []any
	}
	var got []p
	for _, x := range a.Tool.Parameters {
		got = append(got, p{x.Name, x.Type, x.Required, x.Enum})
	}
	want := []p{
		{"dirtyOverlay", "array", false, nil},
		{"dryRun", "boolean", false, nil},
		{"edits", "array", false, nil},
		{"expectedHash", "string", false, nil},
		{"mode", "string", false, []any{"apply", "verify"}},
		{"path", "string", true, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parameters\n got %+v\nwant %+v", got, want)
	}
	if a.Tool.Category != "Editing" || a.Tool.Title != "Edit file" || len(a.Tool.Examples) != 2 || len(a.Tool.WhenNotToUse) != 2 {
		t.Errorf("summary lost guidance: %s", asJSON(a.Tool))
	}

	// A tool without properties has an empty, present parameters list.
	ts2 := mcp.NewToolSet()
	if err := ts2.Register(mcp.NewRawTool(mcp.ToolInfo{Name: "ping", Description: "Answers pong."}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := Register(ts2, &Options{}); err != nil {
		t.Fatal(err)
	}
	raw, _ = callRaw(t, ts2, mcp.AllowAll(), mcp.Caller{}, DefaultDetailName, `{"tool":"ping","verbosity":"summary"}`)
	if ps, ok := raw["tool"].(map[string]any)["parameters"].([]any); !ok || len(ps) != 0 {
		t.Errorf("parameters of a tool without schema: %v", raw["tool"])
	}
}

func TestDetailExactFull(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	raw, _ := callRaw(t, ts, mcp.AllowAll(), mcp.Caller{}, DefaultDetailName, `{"tool":"ek9_add_field"}`)
	a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"ek9_add_field"}`)
	if a.Status != "ok" || a.Match != "exact" || a.Note != "" || a.Tool == nil || a.Tool.Name != "ek9_add_field" {
		t.Fatalf("got %s", asJSON(a))
	}
	var fx fixture
	for _, f := range ek9Fixtures {
		if f.name == "ek9_add_field" {
			fx = f
		}
	}
	var got, want any
	if err := json.Unmarshal(a.Tool.InputSchema, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(fx.schema), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("inputSchema\n got %s\nwant %s", a.Tool.InputSchema, fx.schema)
	}
	if a.Tool.Parameters != nil {
		t.Error("full verbosity carries parameters")
	}
	if a.Tool.Details != fx.guide.Details || a.Tool.WhenToUse != fx.guide.WhenToUse || a.Tool.Description != fx.desc {
		t.Errorf("guidance differs: %s", asJSON(a.Tool))
	}
	var ex struct {
		Arguments map[string]any `json:"arguments"`
		Outcome   string         `json:"outcome"`
	}
	if len(a.Tool.Examples) != 2 || json.Unmarshal(a.Tool.Examples[0], &ex) != nil ||
		ex.Arguments["symbol"] != "CustomerOrder" || ex.Outcome != "status:ready, one INSERT." {
		t.Errorf("examples %s", asJSON(a.Tool.Examples))
	}
	for _, k := range []string{"workflows", "errorCodes", "title", "parameters"} {
		if _, ok := raw["tool"].(map[string]any)[k]; ok {
			t.Errorf("empty %s is not omitted", k)
		}
	}
}

func TestDetailVerbosityNone(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	raw, _ := callRaw(t, ts, mcp.AllowAll(), mcp.Caller{}, DefaultDetailName, `{"tool":"ek9_edit_file","verbosity":"none"}`)
	var keys []string
	for k := range raw["tool"].(map[string]any) {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"description", "name", "whenToUse"}; !slices.Equal(keys, want) {
		t.Errorf("verbosity none shows %v, want %v", keys, want)
	}
}

func TestDetailPhraseSingle(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	for _, c := range []struct{ phrase, want, why string }{
		{"find a class by name", "ek9_find_symbol", "score"},
		{"wrap some lines in a try catch", "ek9_surround_with", "score"},
		{"change the return type of a function", "ek9_change_signature", "score"},
		{"add a field to a record", "ek9_add_field", "named"},
		{"please edit this file", "ek9_edit_file", "named"},
		{"explain a compiler error", "ek9_explain_error", "named"},
	} {
		a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":`+asJSON(c.phrase)+`,"verbosity":"none"}`)
		if a.Status != "ok" || a.Match != "single" || a.Tool == nil || a.Tool.Name != c.want {
			t.Errorf("%q: want single %s, got %s", c.phrase, c.want, asJSON(a))
			continue
		}
		if !strings.Contains(a.Note, c.why) || !strings.Contains(a.Note, c.want) {
			t.Errorf("%q: note %q does not say %q", c.phrase, a.Note, c.why)
		}
	}
}

// One term of a phrase of several, or one word found only in weak fields,
// is no evidence for a single answer, even in the only tool that holds it:
// the answer is ambiguous, that tool first.
func TestDetailOneTermOfSeveral(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	for _, c := range []struct{ phrase, first string }{
		{"explain E11066", "ek9_explain_error"},
		{"ek9_extract_methd", "ek9_extract_method"}, // a misspelt name still finds its tool
		// A name found in one example argument is one weak word, not two.
		{"pricing::total", "ek9_change_signature"},
	} {
		a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":`+asJSON(c.phrase)+`,"verbosity":"none"}`)
		if a.Match != "ambiguous" || len(a.Candidates) == 0 || a.Candidates[0].Name != c.first {
			t.Errorf("%q: want ambiguous with %s first, got %s", c.phrase, c.first, asJSON(a))
		}
	}
}

func TestDetailNotFound(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	for _, q := range []string{"zzyzx quux", "the of a to", "ek9", "ek9_zzyzx"} {
		raw, _ := callRaw(t, ts, mcp.AllowAll(), mcp.Caller{}, DefaultDetailName, `{"tool":`+asJSON(q)+`}`)
		a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":`+asJSON(q)+`}`)
		if a.Status != "not-found" || a.Match != "none" || !strings.Contains(a.NextStep, DefaultCatalogueName) {
			t.Errorf("%q: got %s", q, asJSON(a))
		}
		if raw["tool"] != nil || raw["candidates"] != nil {
			t.Errorf("%q: not-found carries a tool or candidates", q)
		}
	}
}

func TestDetailErrorCode(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"errorCode":"E50001","verbosity":"summary"}`)
	if a.Match != "exact" || a.Tool == nil || a.Tool.Name != "ek9_add_reference" || len(a.Tool.Parameters) != 2 {
		t.Errorf("E50001: %s", asJSON(a))
	}
	a = detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"errorCode":" e07175 "}`)
	var names []string
	for _, c := range a.Candidates {
		names = append(names, c.Name)
	}
	if a.Match != "ambiguous" || a.Tool != nil || !slices.Equal(names, []string{"ek9_add_constructor", "ek9_apply_quick_fix"}) {
		t.Errorf("e07175: %s", asJSON(a))
	}
	a = detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"errorCode":"E99999"}`)
	if a.Status != "not-found" || a.Match != "none" || a.NextStep == "" {
		t.Errorf("E99999: %s", asJSON(a))
	}
	// The code is matched exactly, not as a phrase or a prefix.
	a = detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"errorCode":"E5000"}`)
	if a.Match != "none" {
		t.Errorf("E5000: %s", asJSON(a))
	}
}

func TestDetailArgumentErrors(t *testing.T) {
	ts := ek9Set(t, mcp.AllowAll(), nil)
	for _, args := range []string{
		`{}`,
		`{"tool":"  "}`,
		`{"tool":"edit file","errorCode":"E50001"}`,
		`{"tool":"edit file","verbosity":"loud"}`,
		`{"tool":"edit file","extra":1}`,
		`{"tool":5}`,
		`{"tool":"` + strings.Repeat("x", maxToolArg+1) + `"}`,
	} {
		_, err := mcp.NewServer(ts, mcp.AllowAll(), nil).CallTool(context.Background(), mcp.NewRequest(mcp.Caller{}, DefaultDetailName, json.RawMessage(args)))
		if !errors.Is(err, mcp.ErrInvalidArguments) {
			t.Errorf("%.60s: want invalid arguments, got %v", args, err)
		}
	}
}

func TestDetailTieBreakAndDeterminism(t *testing.T) {
	ts := mcp.NewToolSet()
	for _, n := range []string{"zeta_sync", "alpha_sync", "mid_sync"} {
		if err := ts.Register(mcp.NewRawTool(mcp.ToolInfo{Name: n, Description: "Refreshes the widget cache."}, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if err := Register(ts, &Options{}); err != nil {
		t.Fatal(err)
	}
	first, _ := callRaw(t, ts, mcp.AllowAll(), mcp.Caller{}, DefaultDetailName, `{"tool":"refresh widget cache"}`)
	a := detail(t, ts, mcp.AllowAll(), mcp.Caller{}, `{"tool":"refresh widget cache"}`)
	if a.Match != "ambiguous" || len(a.Candidates) != 3 {
		t.Fatalf("got %s", asJSON(a))
	}
	for i, want := range []string{"alpha_sync", "mid_sync", "zeta_sync"} {
		if a.Candidates[i].Name != want || a.Candidates[i].Score != a.Candidates[0].Score {
			t.Errorf("candidate %d = %s %v, want %s with the same score", i, a.Candidates[i].Name, a.Candidates[i].Score, want)
		}
	}
	for range 5 {
		again, _ := callRaw(t, ts, mcp.AllowAll(), mcp.Caller{}, DefaultDetailName, `{"tool":"refresh widget cache"}`)
		if !reflect.DeepEqual(first, again) {
			t.Fatalf("answers differ:\n%s\n%s", asJSON(first), asJSON(again))
		}
	}
}

func TestNamedPicksMostSpecific(t *testing.T) {
	mk := func(names ...string) *index {
		var tools []mcp.Tool
		for _, n := range names {
			tools = append(tools, mcp.NewRawTool(mcp.ToolInfo{Name: n, Description: "x"}, nil))
		}
		return buildIndex(1, tools, "ek9", DefaultWeights().fields())
	}
	all := func(ix *index) []bool {
		a := make([]bool, len(ix.perms))
		for i := range a {
			a[i] = true
		}
		return a
	}
	name := func(ix *index, id int32) string {
		if id < 0 {
			return ""
		}
		return ix.docs[id].name
	}
	for _, c := range []struct {
		tools  []string
		phrase string
		want   string
	}{
		{[]string{"ek9_edit", "ek9_edit_file", "ek9_file_info"}, "edit the file please", "ek9_edit_file"},
		{[]string{"ek9_edit", "ek9_edit_file"}, "edit it", ""}, // a one-word name is no evidence
		{[]string{"ek9_edit", "ek9_edit_file"}, "edit the file", "ek9_edit_file"},
		{[]string{"ek9_edit_file", "ek9_edit-file"}, "edit the file", ""},      // same name words: no winner
		{[]string{"ek9_edit_file", "ek9_file_info"}, "edit the file info", ""}, // neither includes the other
		{[]string{"ek9_edit_file", "ek9_run_tests"}, "run some tests", "ek9_run_tests"},
		{[]string{"ek9_edit_file"}, "ek9 tools", ""},
	} {
		ix := mk(c.tools...)
		if got := name(ix, ix.named(c.phrase, all(ix))); got != c.want {
			t.Errorf("%v / %q: named %q, want %q", c.tools, c.phrase, got, c.want)
		}
	}
}
