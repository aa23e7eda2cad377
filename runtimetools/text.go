package runtimetools

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The bounds of the text answers; the structured content holds the rest.
const (
	maxTextBytes  = 7 << 10
	maxTextFrames = 4 // frames shown per goroutine group
	maxAttrText   = 240
)

// Text renders the runtime_goroutines answer: a header line, then per group its count, state and frames, one per line.
func (r goroutinesResult) Text() string {
	t := textBuilder{max: maxTextBytes}
	more := ""
	if r.Truncated {
		more = fmt.Sprintf(", %d shown", len(r.Groups))
	}
	t.line("%d goroutines; %d in %d matching groups%s", r.Total, r.Matched, r.GroupsMatched, more)
	if r.SinceTime != "" {
		t.line("growth over %d samples since %s", r.Samples, r.SinceTime)
	}
	for _, g := range r.Groups {
		if g.Leak {
			t.line("PROBABLE LEAK: %s", leakLine(g))
		}
	}
	for i, g := range r.Groups {
		head := fmt.Sprintf("%d. %d× %s", i+1, g.Count, g.State)
		if g.LongestWaitMinutes > 0 {
			head += fmt.Sprintf(" ≥%d min", g.LongestWaitMinutes)
		}
		if g.Growth != nil {
			head += fmt.Sprintf(" growth %+d %v", *g.Growth, g.Series)
			if g.Leak {
				head += " LEAK?"
			}
		}
		if len(g.Labels) > 0 {
			head += " labels " + oneLine(fmt.Sprint(g.Labels), 120)
		}
		t.line("%s", head)
		for j, f := range g.Frames {
			if j == maxTextFrames {
				t.line("   … %d more frames", len(g.Frames)-j+g.FramesOmitted)
				break
			}
			t.line("   %s", frameText(f))
		}
		if g.CreatedBy != nil {
			t.line("   created by %s", frameText(*g.CreatedBy))
		}
	}
	if r.StatesUnknown > 0 {
		t.line("states unknown for %d goroutines", r.StatesUnknown)
	}
	if r.Note != "" {
		t.line("note: %s", r.Note)
	}
	if r.Token != "" {
		t.line("since: %s (pass as since for growth from this answer)", r.Token)
	}
	return t.String()
}

// leakLine names a leaking group: its first frame and its creator.
func leakLine(g goroutineGroup) string {
	s := fmt.Sprintf("%d goroutines, %v", g.Count, g.Series)
	if len(g.Frames) > 0 {
		f := g.Frames[0]
		for _, h := range g.Frames {
			if !stdPackage(funcPackage(h.ID)) {
				f = h // the host's own code where they wait
				break
			}
		}
		s += " in " + frameText(f)
	}
	if g.CreatedBy != nil {
		s += " created by " + frameText(*g.CreatedBy)
	}
	return s
}

// Text renders the runtime_metrics answer: one line per metric with its value, unit and change.
func (r metricsResult) Text() string {
	t := textBuilder{max: maxTextBytes}
	if r.SinceTime != "" {
		t.line("change since %s (%.0f s)", r.SinceTime, r.Seconds)
	}
	for _, m := range r.Metrics {
		var v string
		switch {
		case m.Value != nil:
			v = fmtMetric(*m.Value, m.Unit)
		case m.Histogram != nil:
			h := m.Histogram
			v = fmt.Sprintf("n=%d p50=%s p90=%s p99=%s max=%s", h.Count, fmtMetric(h.P50, m.Unit), fmtMetric(h.P90, m.Unit),
				fmtMetric(h.P99, m.Unit), fmtMetric(h.Max, m.Unit))
		default:
			v = "n/a"
		}
		if m.Change != nil {
			v += " Δ" + signed(fmtMetric(*m.Change, m.Unit))
			if m.Rate != nil {
				v += fmt.Sprintf(" (%s/s)", fmtMetric(*m.Rate, m.Unit))
			}
		}
		t.line("%s %s %s", m.Name, m.Kind, v)
	}
	if r.Token != "" {
		t.line("since: %s (pass as since for the change from this answer)", r.Token)
	}
	return t.String()
}

// signed puts a plus before a non-negative figure.
func signed(s string) string {
	if strings.HasPrefix(s, "-") {
		return s
	}
	return "+" + s
}

// fmtMetric renders a metric value in its unit.
func fmtMetric(v float64, unit string) string {
	switch unit {
	case "bytes":
		return fmtBytes(v)
	case "seconds", "cpu-seconds":
		switch a := max(v, -v); {
		case a == 0:
			return "0s"
		case a < 1e-3:
			return strconv.FormatFloat(v*1e6, 'f', 1, 64) + "µs"
		case a < 1:
			return strconv.FormatFloat(v*1e3, 'f', 1, 64) + "ms"
		}
		return strconv.FormatFloat(v, 'f', 2, 64) + "s"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Text renders the runtime_logs answer: one line per record or group, with its source file:line.
func (r logsResult) Text() string {
	t := textBuilder{max: maxTextBytes}
	b := r.Buffer
	head := fmt.Sprintf("%d records match", r.Matched)
	if r.Groups > 0 {
		head += fmt.Sprintf(" in %d groups (same level, message and source)", r.Groups)
	}
	t.line("%s; ring holds %d, %d evicted; warnings and errors kept apart: %d", head, b.Records, b.Evicted, b.Severe)
	for _, rec := range r.Records {
		src := "?"
		if rec.Source != nil {
			src = frameText(*rec.Source)
		}
		count := ""
		if rec.Count > 1 {
			count = fmt.Sprintf(" ×%d %s..%s", rec.Count, clock(rec.First), clock(rec.Time))
		} else {
			count = " " + clock(rec.Time)
		}
		t.line("%s%s %q %s", strings.ToUpper(rec.Level), count, oneLine(rec.Message, 200), src)
		if len(rec.Attrs) > 0 {
			t.line("   %s", attrText(rec.Attrs, maxAttrText))
		}
	}
	if r.Truncated {
		t.line("more matched: narrow with level, since, contains or attrs, or raise limit")
	}
	return t.String()
}

// clock shortens an RFC 3339 time to its clock time.
func clock(rfc string) string {
	if i := strings.IndexByte(rfc, 'T'); i >= 0 {
		rfc = rfc[i+1:]
	}
	if i := strings.IndexByte(rfc, '.'); i >= 0 {
		rfc = rfc[:i] + "Z"
	}
	return rfc
}

// attrText renders attributes as key=value, sorted, groups flattened
// with dots, within n bytes.
func attrText(attrs map[string]any, n int) string {
	var parts []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			s := fmt.Sprint(v)
			if _, isStr := v.(string); isStr && strings.ContainsAny(s, " \"=") {
				s = strconv.Quote(s)
			}
			parts = append(parts, prefix+k+"="+oneLine(s, 80))
		}
	}
	walk("", attrs)
	sort.Strings(parts)
	return oneLine(strings.Join(parts, " "), n)
}

// Text renders the runtime_build answer: the build, its settings and modules, one per line.
func (r buildResult) Text() string {
	t := textBuilder{max: maxTextBytes}
	t.line("%s %s/%s main %s %s (%s)", r.GoVersion, r.GOOS, r.GOARCH, r.Path, r.Main.Version, r.Main.Path)
	if v := r.VCS; v != nil {
		mod := ""
		if v.Modified != nil && *v.Modified {
			mod = " modified"
		}
		t.line("vcs %s %s %s%s", v.System, v.Revision, v.Time, mod)
	}
	var set []string
	for _, s := range r.Settings {
		set = append(set, s.Key+"="+s.Value)
	}
	if len(set) > 0 {
		t.line("settings %s", oneLine(strings.Join(set, " "), 1000))
	}
	t.line("%d of %d dependencies:", r.DepsMatched, r.DepsTotal)
	for _, d := range r.Deps {
		line := d.Path + " " + d.Version
		if d.Replace != nil {
			line += " => " + d.Replace.Path + " " + d.Replace.Version
		}
		if d.Sum != "" {
			line += " " + d.Sum
		}
		t.line("%s", line)
	}
	if r.Truncated {
		t.line("more dependencies matched: filter with module")
	}
	return t.String()
}

// Text renders the runtime_vars answer: one line per variable.
func (r varsResult) Text() string {
	t := textBuilder{max: maxTextBytes}
	for _, v := range r.Vars {
		switch {
		case v.Error != "":
			t.line("%s error: %s", v.Name, oneLine(v.Error, 200))
		case v.Truncated:
			t.line("%s (%d bytes, left out; keys %s)", v.Name, v.Bytes, strings.Join(v.Keys, " "))
		default:
			t.line("%s %s", v.Name, oneLine(string(v.Value), 600))
		}
	}
	if len(r.Omitted) > 0 {
		t.line("omitted (ask by name): %s", strings.Join(r.Omitted, " "))
	}
	return t.String()
}

// Text renders the runtime_health answer: the status, then one line per check (an mcp.Texter).
func (r HealthReport) Text() string {
	t := textBuilder{max: maxTextBytes}
	t.line("%s", r.Status)
	for _, c := range r.Checks {
		line := fmt.Sprintf("%s %s %.1fms", c.Name, c.Status, c.DurationMs)
		if c.Error != "" {
			line += " " + oneLine(c.Error, 300)
		}
		t.line("%s", line)
	}
	return t.String()
}
