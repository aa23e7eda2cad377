package runtimetools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/internal/viewdata"
	"github.com/embedmcp/mcp/internal/viewkit"
	"github.com/embedmcp/mcp/mcptest"
	"github.com/google/pprof/profile"
)

// stackProfile returns a profile of one sample type whose samples are the
// given stacks (outermost first) with their values.
func stackProfile(stacks [][]string, values []int64) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}
	fns := map[string]*profile.Function{}
	for i, st := range stacks {
		s := &profile.Sample{Value: []int64{values[i]}}
		for j := len(st) - 1; j >= 0; j-- {
			fn := fns[st[j]]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(fns) + 1), Name: st[j], Filename: "/home/build/src/example.com/app/app.go", StartLine: int64(10 * (len(fns) + 1))}
				fns[st[j]] = fn
				p.Function = append(p.Function, fn)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: fn.StartLine + 1}}}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// tree renders a flame graph's nodes as "depth:name=value" in preorder.
func tree(g *flameGraph) string {
	depth := make([]int, len(g.Nodes))
	var out []string
	for i, n := range g.Nodes {
		if i == 0 {
			out = append(out, fmt.Sprintf("root=%d", n[2]))
			continue
		}
		depth[i] = depth[n[0]] + 1
		out = append(out, fmt.Sprintf("%d:%s=%d", depth[i], g.Frames[n[1]].ID, n[2]))
	}
	return strings.Join(out, " ")
}

func TestFlameGraph(t *testing.T) {
	p := stackProfile([][]string{
		{"example.com/app.main", "example.com/app.serve", "example.com/app.hot"},
		{"example.com/app.main", "example.com/app.serve"},
		{"example.com/app.main", "example.com/app.idle"},
		{"example.com/app.main", "example.com/app.serve", "example.com/app.hot"},
	}, []int64{10, 5, 1, 4})
	g := newFlameGraph("cpu", "cpu", "nanoseconds", p, 0)
	want := "root=20 1:example.com/app.main=20 2:example.com/app.serve=19 3:example.com/app.hot=14 2:example.com/app.idle=1"
	if got := tree(g); got != want {
		t.Errorf("tree:\n got %s\nwant %s", got, want)
	}
	if g.Total != 20 || g.Nodes[0] != [3]int64{-1, -1, 20} || g.View != "flame" || g.Unit != "nanoseconds" {
		t.Errorf("graph %+v", g)
	}
	for _, f := range g.Frames {
		if strings.HasPrefix(f.File, "/") || f.File != "example.com/app/app.go" || f.Line == 0 {
			t.Errorf("frame %+v: want a module path and the function's line", f)
		}
	}
}

// A profile of many small stacks keeps the largest nodes, as a tree.
func TestFlameGraphBounded(t *testing.T) {
	var stacks [][]string
	var values []int64
	for i := range 5000 {
		stacks = append(stacks, []string{"example.com/app.main", fmt.Sprintf("example.com/app.f%d", i)})
		values = append(values, 1)
	}
	stacks = append(stacks, []string{"example.com/app.main", "example.com/app.heavy"})
	values = append(values, 1000)
	deep := make([]string, 500)
	for i := range deep {
		deep[i] = fmt.Sprintf("example.com/app.d%d", i)
	}
	stacks, values = append(stacks, deep), append(values, 900)
	g := newFlameGraph("cpu", "cpu", "nanoseconds", stackProfile(stacks, values), 0)
	if len(g.Nodes) > maxFlameNodes || g.Omitted == 0 || g.Total != 6900 {
		t.Errorf("%d nodes, %d omitted, total %d", len(g.Nodes), g.Omitted, g.Total)
	}
	depth := make([]int, len(g.Nodes))
	heavy, maxDepth := false, 0
	for i, n := range g.Nodes[1:] {
		if n[0] < 0 || n[0] > int64(i) {
			t.Fatalf("node %d has parent %d: not preorder", i+1, n[0])
		}
		depth[i+1] = depth[n[0]] + 1
		maxDepth = max(maxDepth, depth[i+1])
		heavy = heavy || g.Frames[n[1]].ID == "example.com/app.heavy"
	}
	if !heavy || maxDepth > maxFlameDepth {
		t.Errorf("heavy kept %v, depth %d", heavy, maxDepth)
	}
	b, _ := json.Marshal(g)
	t.Logf("%d nodes, %d frames: %d bytes", len(g.Nodes), len(g.Frames), len(b))
}

// Long function names bound the graph by its size before its node count.
func TestFlameGraphBytesBounded(t *testing.T) {
	var stacks [][]string
	var values []int64
	long := strings.Repeat("x", 400)
	for i := range 2000 {
		stacks = append(stacks, []string{"example.com/app.main", fmt.Sprintf("example.com/app.%s%d", long, i)})
		values = append(values, int64(1000+i))
	}
	g := newFlameGraph("cpu", "cpu", "nanoseconds", stackProfile(stacks, values), 0)
	b, _ := json.Marshal(g)
	if len(b) > maxFlameBytes*11/10 || g.Omitted == 0 || len(g.Nodes) < 100 {
		t.Errorf("%d bytes, %d nodes, %d omitted; want about %d bytes at most", len(b), len(g.Nodes), g.Omitted, maxFlameBytes)
	}
}

// outsideURL finds what would make a view load from another origin: a
// src, href or action attribute, a CSS url() or @import, a fetch of an
// absolute URL. (Namespace names such as SVG's are not fetched.)
var outsideURL = regexp.MustCompile(`(?i)((src|href|action)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?\s*(https?:)?//|@import|fetch\(\s*["'` + "`" + `]\s*(https?:)?//|new\s+WebSocket)`)

// Each view's page file names the shared parts by their markers only, and
// each served view carries the theme and the bridge exactly once, and the
// source renderer exactly once where it shows source.
func TestViewsAssembled(t *testing.T) {
	pages := map[string]string{ProfileViewURI: profilePage, GoroutinesViewURI: goroutinesPage, MetricsViewURI: metricsPage}
	showsSource := map[string]bool{ProfileViewURI: true, GoroutinesViewURI: true}
	for _, v := range Views() {
		page, ok := pages[v.URI]
		if !ok {
			t.Errorf("view %s: no page file in the test", v.URI)
			continue
		}
		if err := viewkit.CheckSource(page); err != nil {
			t.Errorf("page file of %s: %v", v.URI, err)
		}
		if err := viewkit.CheckPage(v.HTML); err != nil {
			t.Errorf("view %s: %v", v.URI, err)
		}
		for _, p := range viewkit.Parts() {
			want := p.Required || (p.Name == "source" && showsSource[v.URI])
			if got := strings.Contains(v.HTML, p.Text); got != want {
				t.Errorf("view %s carries the %s: %v, want %v", v.URI, p.Name, got, want)
			}
		}
	}
}

// The tools name their views, Register adds them, and the results carry
// the view data; what the model reads is the text and structured content.
func TestViewsOfTheTools(t *testing.T) {
	ts := mcp.NewToolSet()
	must(t, Register(ts, nil))
	for name, uri := range map[string]string{ProfileToolName: ProfileViewURI, GoroutinesToolName: GoroutinesViewURI, MetricsToolName: MetricsViewURI} {
		tool, _ := ts.Lookup(name)
		if tool.Info().View != uri {
			t.Errorf("%s names %q", name, tool.Info().View)
		}
		v, ok := ts.LookupView(uri)
		if !ok || !strings.HasPrefix(v.HTML, "<!DOCTYPE html>") || len(v.HTML) > mcp.MaxViewBytes || outsideURL.MatchString(v.HTML) {
			t.Errorf("view %s: %v, or it is not a self-contained HTML document: %q", uri, ok, outsideURL.FindString(v.HTML))
		}
	}
	if err := mcptest.CheckViews(ts); err != nil {
		t.Error(err)
	}
	if err := Register(mcp.NewToolSet(), nil); err != nil {
		t.Errorf("a second Register, into another set: %v", err)
	}
	c := mcptest.NewClient(t, mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil), &mcptest.ClientOptions{Caller: mcptest.Caller("oncall", allGrants...)})
	for _, call := range []struct {
		tool, args, view string
	}{
		{ProfileToolName, `{"kind":"goroutine"}`, "flame"},
		{MetricsToolName, `{}`, "metrics"},
		{GoroutinesToolName, `{}`, ""},
	} {
		var args map[string]any
		_ = json.Unmarshal([]byte(call.args), &args)
		res, err := c.CallTool(call.tool, args)
		if err != nil || res.IsError {
			t.Fatal(err, mcptest.ResultText(res))
		}
		data, _ := res.Meta[viewdata.MetaKey].(map[string]any)
		if got, _ := data["view"].(string); got != call.view {
			t.Errorf("%s: view data %v", call.tool, data)
		}
		meta, _ := json.Marshal(res.Meta)
		model := *res
		model.Meta = nil
		b, _ := json.Marshal(model)
		t.Logf("%s %s: the model reads %d bytes, the view data is %d bytes", call.tool, call.args, len(b), len(meta))
	}
}
