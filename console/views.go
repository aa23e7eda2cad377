package console

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/embedmcp/mcp/internal/viewdata"
	"github.com/embedmcp/mcp/tasks"
)

// callsData is the Calls page.
type callsData struct {
	Filter  callFilter
	Rows    []callRow
	Matched int
	Held    int
	All     uint64
	Charts  []chart
	Hour    summary
	Tools   []toolStatsRow // the busiest maxToolRows tools
	Called  int            // tools called in the last hour
	Methods []string
}

// maxToolRows bounds the Calls page's table of tools.
const maxToolRows = 100

type callRow struct {
	Time, Age, Principal, Method, Tool, Version, Outcome, Duration string
	Code                                                           int32
	Failed                                                         bool
}

type toolStatsRow struct {
	Name, Count, Failed, P50, P99 string
	Spark, SparkFailed            string // calls and failed calls per slot
	SparkP99                      string // p99 latency per slot
}

var outcomes = []string{"ok", "error", "tool_error", "failed"}

func (c *Console) callsPage(r *http.Request, req *request) (*page, error) {
	q, err := query(r, "tool", "principal", "method", "outcome", "limit")
	if err != nil {
		return nil, err
	}
	d := &callsData{Methods: methods[:]}
	f := &d.Filter
	if f.Tool, err = nameParam(q, "tool"); err != nil {
		return nil, err
	}
	if f.Principal, err = nameParam(q, "principal"); err != nil {
		return nil, err
	}
	f.Method = q.Get("method")
	if f.Method != "" && !slices.Contains(methods[:], f.Method) && f.Method != "(other)" {
		return nil, &badRequest{"method must be one of the MCP methods the Server answers, or (other)"}
	}
	f.Outcome = q.Get("outcome")
	if f.Outcome != "" && !slices.Contains(outcomes, f.Outcome) {
		return nil, &badRequest{"outcome must be ok, error, tool_error or failed"}
	}
	if f.Limit, err = limitParam(q, 100, 1000); err != nil {
		return nil, err
	}
	now := c.now()
	calls, matched, held := c.rec.recent(f)
	d.Matched, d.Held = matched, held
	d.Rows = make([]callRow, len(calls))
	for i := range calls {
		cl := &calls[i]
		at := time.Unix(0, cl.at)
		d.Rows[i] = callRow{Time: at.UTC().Format("15:04:05.000"), Age: formatAge(now.Sub(at)), Principal: cl.principal,
			Method: cl.method, Tool: cl.tool, Version: cl.version, Outcome: cl.outcome.String(),
			Duration: formatDuration(time.Duration(cl.dur)), Code: cl.code, Failed: cl.outcome != outcomeOK}
	}
	hs := c.rec.stats(now)
	d.All, d.Hour = hs.All, hs.Total
	x := make([]float64, hourMinutes)
	var count, failed, p50, p99 []float64
	for i, m := range hs.Minutes {
		x[i] = float64(i) / (hourMinutes - 1)
		count = append(count, float64(m.Count))
		failed = append(failed, float64(m.Errors))
		p50 = append(p50, m.P50.Seconds())
		p99 = append(p99, m.P99.Seconds())
	}
	d.Charts = []chart{
		newChart("Requests per minute", "-60 min", formatCount, series{"all", x, count}, series{"failed", x, failed}),
		newChart("Latency per minute", "-60 min", formatSeconds, series{"p99", x, p99}, series{"p50", x, p50}),
	}
	d.Called = len(hs.Tools)
	busiest := slices.SortedStableFunc(slices.Values(hs.Tools), func(a, b toolSummary) int { return cmp.Compare(b.Count, a.Count) })
	for _, t := range busiest[:min(len(busiest), maxToolRows)] {
		d.Tools = append(d.Tools, toolStatsRow{Name: t.Name, Count: formatCount(float64(t.Count)), Failed: formatPercent(t.ErrorRate()),
			P50: formatDuration(t.P50), P99: formatDuration(t.P99)})
		row := &d.Tools[len(d.Tools)-1]
		calls := sparklines(t.Series[:], t.Failed[:])
		row.Spark, row.SparkFailed, row.SparkP99 = calls[0], calls[1], sparklines(t.P99s[:])[0]
	}
	return &page{Name: "calls", Data: d, Refresh: 1}, nil
}

// tasksData is the Tasks page.
type tasksData struct {
	Enabled   bool
	Status    string
	Limit     int
	Rows      []taskRow
	Error     string
	Cancelled string // the task just cancelled from this page
	Statuses  []tasks.Status
}

type taskRow struct {
	ID, Status, Principal, Tool, Owner, Age, Updated, Message, Expires string
	Terminal                                                           bool
}

var taskStatuses = []tasks.Status{tasks.Working, tasks.InputRequired, tasks.Completed, tasks.Failed, tasks.Cancelled}

func (c *Console) tasksPage(r *http.Request, req *request) (*page, error) {
	q, err := query(r, "status", "limit", "cancelled")
	if err != nil {
		return nil, err
	}
	d := &tasksData{Enabled: c.tasks != nil, Status: q.Get("status"), Statuses: taskStatuses}
	if id := q.Get("cancelled"); id != "" {
		if !validTaskID(id) {
			return nil, &badRequest{"cancelled is not a task ID"}
		}
		d.Cancelled = id
	}
	if d.Status != "" && !slices.Contains(taskStatuses, tasks.Status(d.Status)) {
		return nil, &badRequest{"status must be working, input_required, completed, failed or cancelled"}
	}
	if d.Limit, err = limitParam(q, 100, 500); err != nil {
		return nil, err
	}
	if c.tasks != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		recs, err := c.tasks.load(ctx, tasks.Status(d.Status), d.Limit)
		if err != nil {
			d.Error = "the task store failed; the list may be incomplete"
			c.logger.LogAttrs(r.Context(), slog.LevelWarn, "console: reading tasks", slog.String("error", err.Error()))
		}
		now := c.now()
		for _, rec := range recs {
			d.Rows = append(d.Rows, taskRow{ID: rec.ID, Status: string(rec.Status), Principal: rec.Principal, Tool: rec.Tool,
				Owner: rec.Owner, Age: formatAge(now.Sub(rec.Created)), Updated: ago(now.Sub(rec.Updated)),
				Message: truncate(rec.StatusMessage, 300), Expires: formatAge(rec.Expires.Sub(now)), Terminal: rec.Status.Terminal()})
		}
	}
	return &page{Name: "tasks", Data: d, Refresh: 2}, nil
}

// cancel answers the Tasks page's cancel form: PermissionWrite, a CSRF
// token issued to the caller, a same-origin request and a task ID.
func (c *Console) cancel(w http.ResponseWriter, r *http.Request, req *request) {
	if !req.write {
		http.Error(w, "403 forbidden: "+PermissionWrite+" is required", http.StatusForbidden)
		return
	}
	if !sameOrigin(r) {
		http.Error(w, "403 forbidden: cross-origin request", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "400 bad request: the form is not valid or longer than 4 KiB", http.StatusBadRequest)
		return
	}
	if !c.keys.checkCSRF(r.PostForm.Get("csrf"), req.caller, c.now()) {
		http.Error(w, "403 forbidden: the form's CSRF token is missing, expired or not yours; reload the page", http.StatusForbidden)
		return
	}
	id := r.PostForm.Get("id")
	if !validTaskID(id) {
		http.Error(w, "400 bad request: id is not a task ID", http.StatusBadRequest)
		return
	}
	if c.tasks == nil {
		http.Error(w, "404 not found: this console has no task store", http.StatusNotFound)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	err := cancelTask(ctx, c.tasks.store, id, req.caller.Principal, c.now())
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		http.Error(w, "404 not found: no such task (it may have expired)", http.StatusNotFound)
		return
	case errors.Is(err, errTaskFinished):
		http.Error(w, "409 conflict: the task has finished already", http.StatusConflict)
		return
	case err != nil:
		c.logger.LogAttrs(ctx, slog.LevelWarn, "console: cancelling a task", slog.String("task", id), slog.String("error", err.Error()))
		http.Error(w, "503 service unavailable: the task store failed; try again", http.StatusServiceUnavailable)
		return
	}
	c.logger.LogAttrs(ctx, slog.LevelInfo, "console: task cancelled", slog.String("task", id), slog.String("principal", req.caller.Principal))
	w.Header().Set("Location", "tasks?cancelled="+id)
	w.WriteHeader(http.StatusSeeOther)
}

// processData is the Process page.
type processData struct {
	Charts  []chart
	Facts   [][2]string
	Seconds []int
	Kinds   []string
}

func (c *Console) processPage(r *http.Request, req *request) (*page, error) {
	if _, err := query(r); err != nil {
		return nil, err
	}
	now := c.now()
	ss := c.sampler.samples(now)
	n := len(ss)
	x := make([]float64, n)
	gor, heap, total, pause, rate := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, 0, n)
	var rx []float64
	for i, s := range ss {
		x[i] = 1 - float64(now.Sub(s.at))/float64(time.Hour)
		gor[i], heap[i], total[i], pause[i] = float64(s.goroutines), float64(s.heap), float64(s.total), s.gcPause.Seconds()
		if i > 0 {
			if dt := s.at.Sub(ss[i-1].at).Seconds(); dt > 0 && s.requests >= ss[i-1].requests {
				rate = append(rate, float64(s.requests-ss[i-1].requests)/dt)
				rx = append(rx, x[i])
			}
		}
	}
	// The charts the runtime_metrics view draws too (viewdata.ProcessCharts).
	pc := viewdata.ProcessCharts()
	g, h, p := pc[viewdata.ChartGoroutines], pc[viewdata.ChartHeap], pc[viewdata.ChartPause]
	d := &processData{Charts: []chart{
		newChart(g.Title, "-60 min", formatCount, series{g.Series[0].Label, x, gor}),
		newChart(h.Title, "-60 min", formatBytes, series{h.Series[0].Label, x, heap}, series{h.Series[1].Label, x, total}),
		newChart(p.Title, "-60 min", formatSeconds, series{p.Series[0].Label, x, pause}),
		newChart("Requests per second", "-60 min", formatCount, series{"requests/s", rx, rate}),
	}}
	d.Facts = [][2]string{
		{"Go", runtime.Version()},
		{"GOMAXPROCS", strconv.Itoa(runtime.GOMAXPROCS(0))},
		{"Up", formatAge(now.Sub(c.started))},
		{"Sampled every", c.sampler.interval.String()},
	}
	if n > 0 {
		last := ss[n-1]
		d.Facts = append(d.Facts, [2]string{"GC cycles", strconv.FormatUint(last.gcs, 10)}, [2]string{"Requests", strconv.FormatUint(last.requests, 10)})
	}
	d.Kinds = profileKinds
	d.Seconds = []int{5, 10, 30}
	return &page{Name: "process", Data: d, Refresh: 10}, nil
}
