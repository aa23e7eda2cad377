// Package viewdata holds what the MCP Apps views of runtimetools and
// codetools share with each other and with the operator console: the
// _meta key their data rides under and the charts of the process, so that
// a chart the console draws and the one a view draws are defined once.
// The shapes of the data are described in docs/views.md.
package viewdata

// MetaKey is the key, in a tool result's _meta, of the data only a view
// reads (hosts hand _meta to the view, not to the model). Its value is an
// object whose "view" member names the shape: "flame", "source",
// "metrics".
const MetaKey = "embedmcp/view"

// Chart is one chart of the process: a title, the unit of its y axis and
// its series, each a runtime/metrics name.
type Chart struct {
	Title  string   `json:"title"`
	Unit   string   `json:"unit"` // bytes, seconds, count
	Series []Series `json:"series"`
}

// Series is one line of a chart: its label and the metric it plots. Stat
// picks a histogram's summary (max, p99, p50); "" for a counter or gauge.
type Series struct {
	Label  string `json:"label"`
	Metric string `json:"metric"`
	Stat   string `json:"stat,omitempty"`
}

// The runtime/metrics the process charts plot.
const (
	MetricGoroutines = "/sched/goroutines:goroutines"
	MetricHeap       = "/memory/classes/heap/objects:bytes"
	MetricTotal      = "/memory/classes/total:bytes"
	MetricPauses     = "/sched/pauses/total/gc:seconds"
)

// The process charts, in the order ProcessCharts returns them.
const (
	ChartGoroutines = iota
	ChartHeap
	ChartPause
)

// ProcessCharts returns the charts of the process that the console's
// Process page draws and the runtime_metrics view draws too: goroutines,
// heap (live objects and all the runtime maps) and the longest GC pause,
// as runtime/metrics names them.
func ProcessCharts() []Chart {
	return []Chart{
		ChartGoroutines: {Title: "Goroutines", Unit: "count", Series: []Series{{Label: "goroutines", Metric: MetricGoroutines}}},
		ChartHeap: {Title: "Heap", Unit: "bytes", Series: []Series{
			{Label: "heap objects", Metric: MetricHeap},
			{Label: "runtime total", Metric: MetricTotal}}},
		ChartPause: {Title: "Longest GC pause", Unit: "seconds", Series: []Series{{Label: "pause", Metric: MetricPauses, Stat: "max"}}},
	}
}
