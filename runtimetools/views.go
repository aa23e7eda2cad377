package runtimetools

import (
	"cmp"
	_ "embed"
	"slices"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/internal/viewdata"
	"github.com/embedmcp/mcp/internal/viewkit"
	"github.com/google/pprof/profile"
)

// The MCP Apps views of the runtime tools: clients that render them show
// runtime_profile as a flame graph, runtime_goroutines as stack groups and
// runtime_metrics as charts. Register adds them to the ToolSet with the
// tools; Views returns them for other registries.
const (
	ProfileViewURI    = "ui://embedmcp/runtime/profile"
	GoroutinesViewURI = "ui://embedmcp/runtime/goroutines"
	MetricsViewURI    = "ui://embedmcp/runtime/metrics"
)

// The views' page files: each names the parts every view shares (theme,
// host bridge, source renderer) by a marker, which viewkit.Page replaces.
var (
	//go:embed views/profile.html
	profilePage string
	//go:embed views/goroutines.html
	goroutinesPage string
	//go:embed views/metrics.html
	metricsPage string
)

// Views returns the views the runtime tools name (ToolInfo.View), for
// registries other than a ToolSet: set them in mcp.Options.Views. Each
// View's HTML is one self-contained document.
func Views() []mcp.View {
	border := true
	return []mcp.View{
		{URI: ProfileViewURI, Name: "runtime_profile_view", Title: "Flame graph",
			Description: "The profile as a flame graph (icicle): search it, click a frame to read its source.",
			HTML:        viewkit.Page(profilePage), PrefersBorder: &border},
		{URI: GoroutinesViewURI, Name: "runtime_goroutines_view", Title: "Goroutines",
			Description: "Goroutines grouped by stack, with their states and counts: click a frame to read its source.",
			HTML:        viewkit.Page(goroutinesPage), PrefersBorder: &border},
		{URI: MetricsViewURI, Name: "runtime_metrics_view", Title: "Process charts",
			Description: "Charts of goroutines, heap and GC pauses, sampled while the view is open.",
			HTML:        viewkit.Page(metricsPage), PrefersBorder: &border},
	}
}

// registerViews adds Views to ts, unless they are there already (a second
// set of runtime tools in another process's registry shares them).
func registerViews(ts *mcp.ToolSet) error {
	var missing []mcp.View
	for _, v := range Views() {
		if _, ok := ts.LookupView(v.URI); !ok {
			missing = append(missing, v)
		}
	}
	return ts.RegisterViews(missing...)
}

// Bounds of the flame graph in a runtime_profile result's _meta.
// maxFlameBytes bounds its encoding, about, so that the view's data
// cannot push a result past a server's MaxResultBytes: nodes past it are
// left out like those past maxFlameNodes.
const (
	maxFlameNodes = 3000
	maxFlameDepth = 96
	maxFlameBytes = 256 << 10
)

// flameFrame is a function of the flame graph.
type flameFrame struct {
	ID   string `json:"id"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// flameGraph is the view data of runtime_profile (docs/views.md): a call
// tree, every node's value the sum of the samples whose stacks pass
// through it.
type flameGraph struct {
	View   string       `json:"view"` // "flame"
	Kind   string       `json:"kind"`
	Sample string       `json:"sample"`
	Unit   string       `json:"unit"`
	Total  int64        `json:"total"`
	Frames []flameFrame `json:"frames"`
	// Nodes are [parent, frame, value] in preorder, children by value,
	// largest first; node 0 is the root (parent and frame -1).
	Nodes [][3]int64 `json:"nodes"`
	// MinValue is the smallest value kept: nodes below it were left out
	// (their value stays counted in their parent's).
	MinValue int64 `json:"minValue"`
	Omitted  int   `json:"omitted,omitempty"` // nodes left out
	At       int64 `json:"at"`                // Unix milliseconds of the answer
}

// flameNode is a node of the call tree being built.
type flameNode struct {
	frame    int
	value    int64
	children map[int]*flameNode
}

// newFlameGraph builds the call tree of sample type idx of p, every frame
// kept (not only the host's), bounded to maxFlameNodes nodes and
// maxFlameDepth levels.
func newFlameGraph(kind, sample, unit string, p *profile.Profile, idx int) *flameGraph {
	g := &flameGraph{View: "flame", Kind: kind, Sample: sample, Unit: unit, Frames: []flameFrame{}, At: time.Now().UnixMilli()}
	frameOf := map[string]int{}
	frame := func(fn *profile.Function, line int64) int {
		if i, ok := frameOf[fn.Name]; ok {
			return i
		}
		l := int(fn.StartLine)
		if l == 0 {
			l = int(line)
		}
		g.Frames = append(g.Frames, flameFrame{ID: elideTypeArgs(fn.Name), File: shortFile(fn.Name, fn.Filename), Line: l})
		frameOf[fn.Name] = len(g.Frames) - 1
		return len(g.Frames) - 1
	}
	root := &flameNode{frame: -1}
	count := 1
	path := make([]int, 0, 64)
	for _, s := range p.Sample {
		v := s.Value[idx]
		if v <= 0 {
			continue
		}
		root.value += v
		// The stack, outermost first.
		path = path[:0]
		for i := len(s.Location) - 1; i >= 0; i-- {
			lines := s.Location[i].Line
			for j := len(lines) - 1; j >= 0; j-- { // inlined calls: the caller last in the list
				if fn := lines[j].Function; fn != nil {
					path = append(path, frame(fn, lines[j].Line))
				}
			}
		}
		n := root
		for depth, f := range path {
			if depth == maxFlameDepth {
				break
			}
			c := n.children[f]
			if c == nil {
				if n.children == nil {
					n.children = map[int]*flameNode{}
				}
				c = &flameNode{frame: f}
				n.children[f] = c
				count++
			}
			c.value += v
			n = c
		}
	}
	g.Total = root.value
	// Keep the largest nodes: the smallest value that keeps at most
	// maxFlameNodes of them (a parent's value is at least its child's, so
	// the nodes kept are a tree).
	if count > maxFlameNodes {
		values := make([]int64, 0, count)
		var walk func(n *flameNode)
		walk = func(n *flameNode) {
			values = append(values, n.value)
			for _, c := range n.children {
				walk(c)
			}
		}
		walk(root)
		slices.SortFunc(values, func(a, b int64) int { return cmp.Compare(b, a) })
		g.MinValue = values[maxFlameNodes-1] + 1
		if g.MinValue > values[0] {
			g.MinValue = values[0]
		}
	}
	// size estimates the encoding: a node's three numbers, and a frame's
	// id, file and line the first time a node uses it.
	size, sized := 0, make([]bool, len(g.Frames))
	var emit func(n *flameNode, parent int)
	emit = func(n *flameNode, parent int) {
		grow := 40
		if n.frame >= 0 && !sized[n.frame] {
			f := &g.Frames[n.frame]
			grow += len(f.ID) + len(f.File) + 40
		}
		if len(g.Nodes) >= maxFlameNodes || size+grow > maxFlameBytes {
			g.Omitted++
			return
		}
		size += grow
		if n.frame >= 0 {
			sized[n.frame] = true
		}
		me := len(g.Nodes)
		g.Nodes = append(g.Nodes, [3]int64{int64(parent), int64(n.frame), n.value})
		kids := make([]*flameNode, 0, len(n.children))
		for _, c := range n.children {
			if c.value >= g.MinValue {
				kids = append(kids, c)
			} else {
				g.Omitted++
			}
		}
		slices.SortFunc(kids, func(a, b *flameNode) int {
			if c := cmp.Compare(b.value, a.value); c != 0 {
				return c
			}
			return cmp.Compare(g.Frames[a.frame].ID, g.Frames[b.frame].ID)
		})
		for _, c := range kids {
			emit(c, me)
		}
	}
	emit(root, -1)
	// Frames no kept node uses are dropped, and the nodes renumbered.
	used := make([]int, len(g.Frames))
	for i := range used {
		used[i] = -1
	}
	var frames []flameFrame
	for i := range g.Nodes {
		f := g.Nodes[i][1]
		if f < 0 {
			continue
		}
		if used[f] < 0 {
			used[f] = len(frames)
			frames = append(frames, g.Frames[f])
		}
		g.Nodes[i][1] = int64(used[f])
	}
	g.Frames = frames
	if g.Frames == nil {
		g.Frames = []flameFrame{}
	}
	return g
}

// metricsView is the view data of runtime_metrics (docs/views.md): the
// charts to draw from the metrics of this and later answers.
type metricsView struct {
	View   string           `json:"view"` // "metrics"
	At     int64            `json:"at"`   // Unix milliseconds of the answer
	Charts []viewdata.Chart `json:"charts"`
}

func newMetricsView() *metricsView {
	return &metricsView{View: "metrics", At: time.Now().UnixMilli(), Charts: viewdata.ProcessCharts()}
}
