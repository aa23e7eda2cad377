package runtimetools

import (
	"context"
	"encoding/json"
	"math"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/internal/viewdata"
)

const metricsDescription = "Read runtime metrics of this process (heap, GC, goroutines, scheduler latency, CPU classes, " +
	"mutex wait) and process figures from the OS (resident memory, file descriptors, threads, CPU time, uptime), with " +
	"unit and kind; histograms as count, p50, p90, p99 and max. Without names or prefix: a curated overview."

const metricsSchema = `{"type":"object","properties":{` +
	`"names":{"type":"array","items":{"type":"string"},"description":"Metric names, unit optional: \"/gc/heap/live:bytes\", \"/sched/goroutines\"; at most 100."},` +
	`"since":{"type":"string","description":"since token of an earlier answer: each value's change since then, a counter's rate per second."},` +
	`"prefix":{"type":"string","description":"Every metric whose name starts with this: \"/gc/\", \"/sched/\", \"/process/\"..."}},` +
	`"additionalProperties":false}`

// overview are the metrics answered when neither names nor a prefix is
// given: what an on-call engineer looks at first. Names the running Go
// release lacks are skipped.
var overview = []string{
	"/sched/goroutines:goroutines",
	"/sched/goroutines/runnable:goroutines",
	"/sched/goroutines/waiting:goroutines",
	"/sched/goroutines/not-in-go:goroutines",
	"/sched/goroutines-created:goroutines",
	"/sched/gomaxprocs:threads",
	"/sched/threads/total:threads",
	"/sched/latencies:seconds",
	"/sched/pauses/total/gc:seconds",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/gc/heap/live:bytes",
	"/gc/heap/goal:bytes",
	"/gc/heap/allocs:bytes",
	"/gc/heap/objects:objects",
	"/gc/cycles/total:gc-cycles",
	"/gc/gogc:percent",
	"/gc/gomemlimit:bytes",
	"/cpu/classes/total:cpu-seconds",
	"/cpu/classes/user:cpu-seconds",
	"/cpu/classes/gc/total:cpu-seconds",
	"/sync/mutex/wait/total:seconds",
}

const (
	maxMetricNames  = 100
	maxMetricName   = 128
	maxMetricPrefix = 128
)

type metricsArgs struct {
	Names  []string `json:"names,omitempty"`
	Prefix string   `json:"prefix,omitempty"`
	Since  string   `json:"since,omitempty"`
}

type metricSample struct {
	Name        string     `json:"name" jsonschema:"the metric's full name, unit after the colon"`
	Unit        string     `json:"unit" jsonschema:"bytes, seconds, cpu-seconds, goroutines..."`
	Kind        string     `json:"kind" jsonschema:"counter (cumulative), gauge or histogram"`
	Value       *float64   `json:"value,omitempty" jsonschema:"the value of a counter or gauge"`
	Histogram   *histogram `json:"histogram,omitempty" jsonschema:"the summary of a histogram"`
	Description string     `json:"description" jsonschema:"first sentence of the runtime's description"`
	Change      *float64   `json:"change,omitempty" jsonschema:"with since: value now less value then"`
	Rate        *float64   `json:"rate,omitempty" jsonschema:"with since, for a counter: change per second"`
}

type histogram struct {
	Count uint64  `json:"count" jsonschema:"observations"`
	P50   float64 `json:"p50" jsonschema:"upper bound of the bucket holding the median"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max" jsonschema:"upper bound of the highest non-empty bucket"`
}

type metricsResult struct {
	Metrics []metricSample `json:"metrics"`
	growthResult
	Seconds float64 `json:"seconds,omitempty" jsonschema:"with since: seconds between then and now"`
}

func (s *state) metricsTool() (mcp.Tool, error) {
	s.metricLooks = newLooks[map[string]float64]("m")
	return newTool(metricsSchema, mcp.ToolInfo{
		Name:         MetricsToolName,
		Title:        "Runtime metrics of this process",
		Description:  metricsDescription,
		Permission:   PermissionRead,
		Annotations:  readOnly(),
		View:         MetricsViewURI,
		AdminSummary: "Lets an agent read runtime/metrics and the process's memory and file descriptor figures.",
		AdminExample: `{"prefix":"/gc/"}`,
		Guide: &mcp.Guide{
			Category:  "Diagnostics",
			WhenToUse: "Check whether memory, the GC, the scheduler or file descriptors are the problem: heap size and goal, GC cycles and pauses, goroutine count, scheduler latency, resident memory, open files against their limit.",
			WhenNotToUse: []string{
				"Which code allocates or burns CPU - use runtime_profile (heap, allocs, cpu).",
				"Which goroutines are stuck - use runtime_goroutines.",
				"The host's own expvar counters - use runtime_vars.",
			},
			Details: "Counters are cumulative since the process started: call twice and subtract for a rate. Histogram quantiles are bucket upper bounds.",
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{}`), Outcome: "the overview: goroutines, heap, GC, scheduler latency, CPU classes and /process/ figures."},
				{Arguments: json.RawMessage(`{"names":["/gc/heap/live","/process/open-fds:fds"]}`), Outcome: "the live heap in bytes and the open file descriptors."},
			},
		},
	}, func(ctx context.Context, req *mcp.Request, in metricsArgs) (metricsResult, error) {
		want, err := selectMetrics(req, in)
		if err != nil {
			return metricsResult{}, err
		}
		if err := validateGrowth(req, in.Since, 0); err != nil {
			return metricsResult{}, err
		}
		req.SetResultMeta(viewdata.MetaKey, newMetricsView())
		return s.metricsSince(req, in.Since, readMetrics(want))
	})
}

// selectMetrics returns the names to read, in order, or an error naming
// the unknown name or prefix.
func selectMetrics(req *mcp.Request, in metricsArgs) ([]string, error) {
	known := knownMetrics()
	if len(in.Names) > maxMetricNames {
		return nil, argError(req, "/names", "at most %d names, got %d", maxMetricNames, len(in.Names))
	}
	if err := checkText(req, "/prefix", in.Prefix, maxMetricPrefix); err != nil {
		return nil, err
	}
	if len(in.Names) == 0 && in.Prefix == "" {
		var out []string
		for _, n := range overview {
			if _, ok := known[n]; ok {
				out = append(out, n)
			}
		}
		for _, p := range processMetrics() {
			out = append(out, p.name)
		}
		return out, nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for i, n := range in.Names {
		if err := checkText(req, "/names/"+strconv.Itoa(i), n, maxMetricName); err != nil {
			return nil, err
		}
		full, ok := resolveMetric(known, n)
		if !ok {
			return nil, argError(req, "/names/"+strconv.Itoa(i), "unknown metric %s; names start with one of %s (call with prefix to list them)",
				echo(n), strings.Join(metricRoots(known), ", "))
		}
		add(full)
	}
	if in.Prefix != "" {
		n := 0
		for _, name := range sortedKeys(known) {
			if strings.HasPrefix(name, in.Prefix) {
				add(name)
				n++
			}
		}
		if n == 0 {
			return nil, argError(req, "/prefix", "no metric starts with %s; names start with one of %s",
				echo(in.Prefix), strings.Join(metricRoots(known), ", "))
		}
	}
	return out, nil
}

// metricInfo describes one metric the tool can read.
type metricInfo struct {
	desc    string
	kind    metrics.ValueKind
	counter bool
	process bool
}

// knownMetrics returns every readable metric: the runtime's and the
// process figures this platform offers.
func knownMetrics() map[string]metricInfo {
	m := map[string]metricInfo{}
	for _, d := range metrics.All() {
		m[d.Name] = metricInfo{desc: d.Description, kind: d.Kind, counter: d.Cumulative}
	}
	for _, p := range processMetrics() {
		m[p.name] = metricInfo{desc: p.desc, kind: metrics.KindFloat64, counter: p.counter, process: true}
	}
	return m
}

// resolveMetric finds a metric by its full name or its name without the
// unit.
func resolveMetric(known map[string]metricInfo, n string) (string, bool) {
	if _, ok := known[n]; ok {
		return n, true
	}
	if strings.Contains(n, ":") {
		return "", false
	}
	for _, name := range sortedKeys(known) {
		if base, _, _ := strings.Cut(name, ":"); base == n {
			return name, true
		}
	}
	return "", false
}

// metricRoots returns the first path elements of the known names, such as
// "/gc/".
func metricRoots(known map[string]metricInfo) []string {
	seen := map[string]bool{}
	for name := range known {
		if i := strings.IndexByte(name[1:], '/'); i >= 0 {
			seen[name[:i+2]] = true
		}
	}
	return sortedKeys(seen)
}

// readMetrics reads the named metrics, which must be known.
func readMetrics(names []string) metricsResult {
	known := knownMetrics()
	var samples []metrics.Sample
	var procs []string
	for _, n := range names {
		if known[n].process {
			procs = append(procs, n)
		} else {
			samples = append(samples, metrics.Sample{Name: n})
		}
	}
	metrics.Read(samples)
	values := map[string]metricSample{}
	for _, s := range samples {
		values[s.Name] = runtimeSample(s, known[s.Name])
	}
	if len(procs) > 0 {
		figures := readProcess()
		for _, n := range procs {
			ms := newSample(n, known[n])
			if v, ok := figures[n]; ok {
				ms.Value = &v
			}
			values[n] = ms
		}
	}
	res := metricsResult{Metrics: make([]metricSample, 0, len(names))}
	for _, n := range names {
		if v := values[n]; v.Value != nil || v.Histogram != nil {
			res.Metrics = append(res.Metrics, v)
		}
	}
	return res
}

func newSample(name string, info metricInfo) metricSample {
	_, unit, _ := strings.Cut(name, ":")
	kind := "gauge"
	switch {
	case info.kind == metrics.KindFloat64Histogram:
		kind = "histogram"
	case info.counter:
		kind = "counter"
	}
	return metricSample{Name: name, Unit: unit, Kind: kind, Description: firstSentenceOf(info.desc)}
}

func runtimeSample(s metrics.Sample, info metricInfo) metricSample {
	ms := newSample(s.Name, info)
	switch s.Value.Kind() {
	case metrics.KindUint64:
		v := float64(s.Value.Uint64())
		ms.Value = &v
	case metrics.KindFloat64:
		v := s.Value.Float64()
		ms.Value = &v
	case metrics.KindFloat64Histogram:
		ms.Histogram = summarise(s.Value.Float64Histogram())
	}
	return ms
}

// summarise returns a histogram's count and quantiles, each the upper
// bound of the bucket that holds it (the lower bound for the last,
// unbounded bucket).
func summarise(h *metrics.Float64Histogram) *histogram {
	var total uint64
	for _, c := range h.Counts {
		total += c
	}
	out := &histogram{Count: total}
	if total == 0 {
		return out
	}
	bound := func(i int) float64 {
		if v := h.Buckets[i+1]; !math.IsInf(v, 0) {
			return v
		}
		if v := h.Buckets[i]; !math.IsInf(v, 0) {
			return v
		}
		return 0
	}
	quantile := func(q float64) float64 {
		rank := uint64(math.Ceil(q * float64(total)))
		var seen uint64
		for i, c := range h.Counts {
			seen += c
			if seen >= rank && c > 0 {
				return bound(i)
			}
		}
		return 0
	}
	out.P50, out.P90, out.P99 = quantile(0.5), quantile(0.9), quantile(0.99)
	for i := len(h.Counts) - 1; i >= 0; i-- {
		if h.Counts[i] > 0 {
			out.Max = bound(i)
			break
		}
	}
	return out
}

// firstSentenceOf returns the first sentence of a description.
func firstSentenceOf(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
