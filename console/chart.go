package console

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// chart is a small line chart drawn as inline SVG: no script, no image
// request, so it shows under the strictest Content-Security-Policy.
type chart struct {
	Title string
	Value string // the latest value, formatted
	Max   string // the top of the y axis, formatted
	From  string // the left end of the x axis ("-60 min")
	Lines []line
	Empty bool // no data yet
}

// line is one series of a chart: its points in the chart's viewBox.
type line struct {
	Class  string // the CSS class that colours it: "s0", "s1"
	Label  string
	Points string
}

// The viewBox of charts and sparklines.
const (
	chartW, chartH = 300, 80
	sparkW, sparkH = 60, 16
)

// series is one line's data: y values at x positions in [0, 1].
type series struct {
	label string
	x, y  []float64
}

// newChart scales the series to a common y axis from 0 and draws them.
func newChart(title, from string, format func(float64) string, ss ...series) chart {
	c := chart{Title: title, From: from}
	top := 0.0
	points := 0
	for _, s := range ss {
		for _, v := range s.y {
			top = math.Max(top, v)
		}
		points += len(s.y)
	}
	if points == 0 {
		c.Empty = true
		return c
	}
	if top == 0 {
		top = 1
	}
	c.Max = format(top)
	if s := ss[0]; len(s.y) > 0 {
		c.Value = format(s.y[len(s.y)-1])
	}
	for i, s := range ss {
		c.Lines = append(c.Lines, line{Class: "s" + strconv.Itoa(i), Label: s.label, Points: polyline(s.x, s.y, top, chartW, chartH)})
	}
	return c
}

// polyline returns the points attribute of a line through (x, y), x in
// [0, 1] and y in [0, top], drawn in a w×h box with a margin of 2. A lone
// sample is drawn as a short level stroke ending at it, which a browser
// shows (a line of one point has no size).
func polyline(x, y []float64, top float64, w, h float64) string {
	if len(y) == 1 {
		d := 6 / (w - 2)
		if x[0] >= d {
			x = []float64{x[0] - d, x[0]}
		} else {
			x = []float64{x[0], x[0] + d}
		}
		y = []float64{y[0], y[0]}
	}
	b := make([]byte, 0, len(y)*12)
	for i := range y {
		px := 1 + x[i]*(w-2)
		py := h - 1 - y[i]/top*(h-2)
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendFloat(b, math.Round(px*10)/10, 'f', -1, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, math.Round(py*10)/10, 'f', -1, 64)
	}
	return string(b)
}

// sparklines draws series of values (equally spaced, oldest first) on
// one scale from 0 in a sparkline's box.
func sparklines[T uint32 | time.Duration](series ...[]T) []string {
	top := 1.0
	for _, s := range series {
		for _, v := range s {
			top = math.Max(top, float64(v))
		}
	}
	out := make([]string, len(series))
	for k, s := range series {
		x := make([]float64, len(s))
		y := make([]float64, len(s))
		for i, v := range s {
			x[i] = float64(i) / float64(max(len(s)-1, 1))
			y[i] = float64(v)
		}
		out[k] = polyline(x, y, top, sparkW, sparkH)
	}
	return out
}

// formatCount formats a count or a rate.
func formatCount(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// formatBytes formats a byte count in binary units.
func formatBytes(v float64) string {
	const unit = 1024
	if v < unit {
		return strconv.FormatFloat(v, 'f', 0, 64) + " B"
	}
	div, exp := float64(unit), 0
	for n := v / unit; n >= unit && exp < 4; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", v/div, "KMGTP"[exp])
}

// formatSeconds formats a duration given in seconds.
func formatSeconds(v float64) string { return formatDuration(time.Duration(v * float64(time.Second))) }

// formatDuration formats d with three significant digits at most.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + " ns"
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/1e3, 'f', 1, 64) + " µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
	}
	return d.Round(time.Second).String()
}

// formatPercent formats a share from 0 to 1.
func formatPercent(v float64) string {
	return strconv.FormatFloat(v*100, 'f', 1, 64) + "%"
}

// formatAge formats how long ago t was, coarsely.
func formatAge(d time.Duration) string {
	switch {
	case d < time.Second:
		return "now"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + " s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " min"
	case d < 48*time.Hour:
		return strconv.FormatFloat(d.Hours(), 'f', 1, 64) + " h"
	}
	return strconv.Itoa(int(d.Hours()/24)) + " d"
}

// ago formats how long ago something happened: "now", "5 s ago".
func ago(d time.Duration) string {
	if a := formatAge(d); a != "now" {
		return a + " ago"
	}
	return "now"
}
