package runtimetools

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
)

const logsDescription = "Read recent log records of this process from the host's in-memory ring, newest first: " +
	"identical records grouped with a count, warnings and errors kept apart from info floods, each with its source (id " +
	"for code_definition, file:line). Filter by level, age, text and attributes. Secrets are redacted when stored."

const logsSchema = `{"type":"object","properties":{` +
	`"level":{"type":"string","description":"Least level: debug, info, warn or error (or warn+2); default all."},` +
	`"since":{"type":"string","description":"Only records this recent: a duration (15m) or an RFC 3339 time."},` +
	`"contains":{"type":"string","description":"Text in the message or an attribute value (case-insensitive)."},` +
	`"attrs":{"type":"object","additionalProperties":{"type":["string","number","boolean"]},"description":"Attribute values by key (req.method in groups); at most 16."},` +
	`"group":{"type":"boolean","description":"Group records of one level, message and line; default true."},` +
	`"limit":{"type":"integer","description":"Records (groups), 1..200; default 50."}},` +
	`"additionalProperties":false}`

// Limits of runtime_logs.
const (
	defaultLogLimit   = 50
	maxLogLimit       = 200
	maxContains       = 256
	maxAttrFilters    = 16
	maxAttrFilterKey  = 128
	maxAttrFilterText = 256
	maxLogAnswerBytes = 256 << 10
)

type logsArgs struct {
	Level    string         `json:"level,omitempty"`
	Since    string         `json:"since,omitempty"`
	Contains string         `json:"contains,omitempty"`
	Attrs    map[string]any `json:"attrs,omitempty"`
	Limit    int            `json:"limit,omitempty"`
	Group    *bool          `json:"group,omitempty"`
}

type logRecord struct {
	Time      string         `json:"time,omitempty" jsonschema:"RFC 3339, UTC"`
	Level     string         `json:"level"`
	Message   string         `json:"message"`
	Attrs     map[string]any `json:"attrs,omitempty" jsonschema:"attributes; groups are nested objects"`
	Source    *Frame         `json:"source,omitempty" jsonschema:"the function that logged it"`
	Truncated bool           `json:"truncated,omitempty" jsonschema:"the record was cut to fit the ring's record bound"`
	Count     int            `json:"count,omitempty" jsonschema:"grouped: records of the same level, message and source; this is the newest"`
	First     string         `json:"first,omitempty" jsonschema:"grouped: time of the oldest of them, RFC 3339"`
}

type logsResult struct {
	Records   []logRecord `json:"records" jsonschema:"newest first"`
	Matched   int         `json:"matched" jsonschema:"records held that match the filters"`
	Groups    int         `json:"groups,omitempty" jsonschema:"grouped: groups of the matching records"`
	Truncated bool        `json:"truncated" jsonschema:"more records matched than were answered (limit or the answer's size bound)"`
	Buffer    ringStats   `json:"buffer" jsonschema:"what the ring holds"`
}

// logQuery is a validated runtime_logs call.
type logQuery struct {
	minLevel *slog.Level
	since    time.Time
	contains string // lower case
	attrs    map[string]string
	limit    int
	group    bool
}

func (s *state) logsTool() (mcp.Tool, error) {
	return newTool(logsSchema, mcp.ToolInfo{
		Name:         LogsToolName,
		Title:        "Recent logs of this process",
		Description:  logsDescription,
		Permission:   PermissionLogs,
		Annotations:  readOnly(),
		AdminSummary: "Lets an agent read the recent log records this process kept in memory, with secret attributes redacted.",
		AdminExample: `{"level":"error","since":"15m"}`,
		Guide: &mcp.Guide{
			Category:  "Diagnostics",
			WhenToUse: "See what the service logged recently: the last errors and warnings, the records of one request (attrs), or everything mentioning a word.",
			WhenNotToUse: []string{
				"Logs older than the ring holds (buffer.evicted tells how many are gone) - use the host's log storage.",
				"Whether dependencies are up right now - use runtime_health.",
			},
			Details: "The ring keeps the newest records within its count and byte bounds; buffer says how many it holds and how many were dropped. " +
				"Attribute values whose keys look secret (password, token, secret, authorization, cookie, key...) show as [REDACTED]. " +
				"Pass a record's source.id to code_definition to read the code that logged it.",
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{"level":"error","limit":10}`), Outcome: "the ten newest error records with their attributes and source."},
				{Arguments: json.RawMessage(`{"since":"5m","contains":"timeout"}`), Outcome: "records of the last five minutes mentioning timeout."},
			},
		},
	}, func(ctx context.Context, req *mcp.Request, in logsArgs) (logsResult, error) {
		q, err := parseLogQuery(req, in)
		if err != nil {
			return logsResult{}, err
		}
		return s.opts.Logs.query(ctx, q)
	})
}

func parseLogQuery(req *mcp.Request, in logsArgs) (*logQuery, error) {
	q := &logQuery{limit: in.Limit, group: in.Group == nil || *in.Group}
	if in.Level != "" {
		var l slog.Level
		text := in.Level
		if strings.EqualFold(text, "warning") {
			text = "warn"
		}
		if len(text) > 16 || l.UnmarshalText([]byte(text)) != nil {
			return nil, argError(req, "/level", "must be debug, info, warn or error, optionally with an offset such as warn+2; got %s", echo(in.Level))
		}
		q.minLevel = &l
	}
	if in.Since != "" {
		if len(in.Since) > 64 {
			return nil, argError(req, "/since", "must be a duration such as 15m or an RFC 3339 time; got %s", echo(in.Since))
		}
		if d, err := time.ParseDuration(in.Since); err == nil {
			if d <= 0 {
				return nil, argError(req, "/since", "a duration must be positive, such as 15m; got %s", echo(in.Since))
			}
			q.since = time.Now().Add(-d)
		} else if t, err := time.Parse(time.RFC3339Nano, in.Since); err == nil {
			q.since = t
		} else {
			return nil, argError(req, "/since", "must be a duration (30s, 15m, 2h) or an RFC 3339 time (2026-01-02T15:04:05Z); got %s", echo(in.Since))
		}
	}
	if err := checkText(req, "/contains", in.Contains, maxContains); err != nil {
		return nil, err
	}
	q.contains = lower(in.Contains)
	if len(in.Attrs) > maxAttrFilters {
		return nil, argError(req, "/attrs", "at most %d attributes, got %d", maxAttrFilters, len(in.Attrs))
	}
	if len(in.Attrs) > 0 {
		q.attrs = map[string]string{}
		for _, k := range sortedKeys(in.Attrs) {
			if err := checkText(req, "/attrs", k, maxAttrFilterKey); err != nil {
				return nil, err
			}
			var text string
			switch v := in.Attrs[k].(type) {
			case string:
				text = v
			case float64:
				text = strconv.FormatFloat(v, 'g', -1, 64)
			case json.Number:
				text = v.String()
			case bool:
				text = strconv.FormatBool(v)
			default:
				return nil, argError(req, "/attrs/"+k, "must be a string, number or boolean")
			}
			if err := checkText(req, "/attrs/"+clip(k, maxEcho), text, maxAttrFilterText); err != nil {
				return nil, err
			}
			q.attrs[k] = text
		}
	}
	if q.limit == 0 {
		q.limit = defaultLogLimit
	}
	if err := checkRange(req, "/limit", q.limit, 1, maxLogLimit); err != nil {
		return nil, err
	}
	return q, nil
}

// query answers runtime_logs: the matching records, newest first, from
// both rings; grouped, one record per level, message and source, with the
// group's count and first time.
func (h *LogRing) query(ctx context.Context, q *logQuery) (logsResult, error) {
	recs, stats := h.snapshot()
	res := logsResult{Records: []logRecord{}, Buffer: stats}
	sources := map[uintptr]*Frame{}
	type groupKey struct {
		level slog.Level
		pc    uintptr
		msg   string
	}
	groups := map[groupKey]int{} // index in res.Records, or -1 when past the limit
	size := 0
	for i, b := range recs {
		if i%64 == 0 && ctx.Err() != nil {
			return logsResult{}, ctxErr(ctx)
		}
		t, level, ok := decodeHeader(b)
		if !ok || (q.minLevel != nil && level < *q.minLevel) || (!q.since.IsZero() && (t.IsZero() || t.Before(q.since))) {
			continue
		}
		r, ok := decodeRecord(b)
		if !ok || !q.matches(r) {
			continue
		}
		res.Matched++
		var k groupKey
		if q.group {
			k = groupKey{r.level, r.pc, r.msg}
			if at, ok := groups[k]; ok {
				if at >= 0 {
					g := &res.Records[at]
					g.Count++
					if !r.time.IsZero() {
						g.First = r.time.Format(time.RFC3339Nano)
					}
				}
				continue
			}
			res.Groups++
		}
		if len(res.Records) == q.limit || size+len(b) > maxLogAnswerBytes {
			res.Truncated = true
			if q.group {
				groups[k] = -1
			}
			continue
		}
		size += len(b)
		out := r.answer(sources)
		if q.group {
			groups[k] = len(res.Records)
			out.Count, out.First = 1, out.Time
		}
		res.Records = append(res.Records, out)
	}
	return res, nil
}

// snapshot copies the records of both rings out, newest first.
func (h *LogRing) snapshot() ([][]byte, ringStats) {
	recs, stats := h.ring.snapshot()
	severe, sstats := h.severe.snapshot()
	recs = mergeNewest(recs, severe)
	stats.Records += sstats.Records
	stats.Bytes += sstats.Bytes
	stats.MaxRecords += sstats.MaxRecords
	stats.MaxBytes += sstats.MaxBytes
	stats.Stored += sstats.Stored
	stats.Evicted += sstats.Evicted
	stats.Severe, stats.SevereEvicted = sstats.Records, sstats.Evicted
	return recs, stats
}

// mergeNewest merges two lists of encoded records, each newest first,
// into one, newest first.
func mergeNewest(a, b [][]byte) [][]byte {
	if len(b) == 0 {
		return a
	}
	out := make([][]byte, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		ta, _, _ := decodeHeader(a[0])
		tb, _, _ := decodeHeader(b[0])
		if tb.After(ta) {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

func (q *logQuery) matches(r *storedRecord) bool {
	if q.contains != "" {
		found := containsFold(r.msg, q.contains)
		for _, a := range r.flat {
			if found {
				break
			}
			found = containsFold(a.text, q.contains)
		}
		if !found {
			return false
		}
	}
	for k, want := range q.attrs {
		found := false
		for _, a := range r.flat {
			if a.path == k && a.text == want {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// answer returns the record as runtime_logs shows it.
func (r *storedRecord) answer(sources map[uintptr]*Frame) logRecord {
	out := logRecord{Level: r.level.String(), Message: r.msg, Truncated: r.truncated}
	if !r.time.IsZero() {
		out.Time = r.time.Format(time.RFC3339Nano)
	}
	if len(r.attrs) > 0 {
		out.Attrs = r.attrs
	}
	if r.pc != 0 {
		src, ok := sources[r.pc]
		if !ok {
			f, _ := runtime.CallersFrames([]uintptr{r.pc}).Next()
			if f.Function != "" {
				src = &Frame{ID: elideTypeArgs(f.Function), File: shortFile(f.Function, f.File), Line: f.Line}
			}
			sources[r.pc] = src
		}
		out.Source = src
	}
	return out
}
