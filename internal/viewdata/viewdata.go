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

// ProcessCharts returns the charts of the process the console's Process
// page draws too: goroutines, heap and GC pauses, as runtime/metrics names
// them.
func ProcessCharts() []Chart {
	return []Chart{
		{Title: "Goroutines", Unit: "count", Series: []Series{{Label: "goroutines", Metric: "/sched/goroutines:goroutines"}}},
		{Title: "Heap", Unit: "bytes", Series: []Series{
			{Label: "heap objects", Metric: "/memory/classes/heap/objects:bytes"},
			{Label: "runtime total", Metric: "/memory/classes/total:bytes"}}},
		{Title: "Longest GC pause", Unit: "seconds", Series: []Series{{Label: "pause", Metric: "/sched/pauses/total/gc:seconds", Stat: "max"}}},
	}
}
