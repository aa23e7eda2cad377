package enquiry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/internal/boundedjson"
	"github.com/google/jsonschema-go/jsonschema"
)

// Values of the answer's match and status.
const (
	matchExact     = "exact"
	matchSingle    = "single"
	matchAmbiguous = "ambiguous"
	matchNone      = "none"

	statusOK       = "ok"
	statusNotFound = "not-found"
)

// Verbosity levels of tool_detail.
const (
	verbosityFull    = "full"
	verbositySummary = "summary"
	verbosityNone    = "none"
)

// maxToolArg bounds the tool argument (a name or a phrase), in characters.
const maxToolArg = 1000

// detailInput is the arguments of tool_detail.
type detailInput struct {
	Tool      string `json:"tool,omitempty" jsonschema:"A registered tool name (case, spaces and the product prefix do not matter) or an intent phrase such as 'read the source of a function' or 'goroutine count'. Not with errorCode."`
	ErrorCode string `json:"errorCode,omitempty" jsonschema:"An error or diagnostic code: the tools that remediate it. Not with tool."`
	Verbosity string `json:"verbosity,omitempty" jsonschema:"full (default): with the input schema; summary: parameters[] instead; none: name, whenToUse, description."`
}

// detailResult is the answer of tool_detail.
type detailResult struct {
	// Status is "ok", or "not-found" when match is "none".
	Status string `json:"status"`
	// Match is exact, single, ambiguous or none.
	Match string `json:"match"`
	// Note says how the argument was resolved, e.g. a normalised name.
	Note string `json:"note,omitempty"`
	// Tool is the matched tool (exact and single).
	Tool *toolEntry `json:"tool,omitempty"`
	// Candidates are the ranked tools of an ambiguous match, best first.
	Candidates []candidate `json:"candidates,omitempty"`
	// NextStep says what to do when no single tool was found.
	NextStep string `json:"nextStep,omitempty"`
	Meta     meta   `json:"meta"`
}

// toolEntry is one tool as tool_detail shows it; empty fields are omitted.
type toolEntry struct {
	Name         string         `json:"name"`
	Title        string         `json:"title,omitempty"`
	Description  string         `json:"description,omitempty"`
	Category     string         `json:"category,omitempty"`
	WhenToUse    string         `json:"whenToUse,omitempty"`
	WhenNotToUse []string       `json:"whenNotToUse,omitempty"`
	Details      string         `json:"details,omitempty"`
	Examples     []exampleEntry `json:"examples,omitempty"`
	Workflows    []string       `json:"workflows,omitempty"`
	ErrorCodes   []string       `json:"errorCodes,omitempty"`
	// InputSchema is the JSON input schema (verbosity full).
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Parameters summarise the input schema (verbosity summary); present,
	// possibly empty, in a summary.
	Parameters []parameter `json:"parameters,omitzero"`
	// OutputSchema is the schema of the tool's structured content from its
	// guide (verbosity full), for tools that keep it out of tools/list.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// exampleEntry is an example call: its arguments and a one-line outcome.
type exampleEntry struct {
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Outcome   string          `json:"outcome,omitempty"`
}

// parameter is one top-level property of a tool's input schema.
type parameter struct {
	Name     string `json:"name"`
	Type     string `json:"type,omitempty"`
	Required bool   `json:"required"`
	Enum     []any  `json:"enum,omitempty"`
}

// candidate is one ranked tool of an ambiguous answer.
type candidate struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Score       float64 `json:"score"`
}

// meta is the answer's timing.
type meta struct {
	// ServerMs is the time spent answering, in milliseconds, to 3 decimals.
	ServerMs float64 `json:"serverMs"`
}

// detailTool builds tool_detail.
func (e *enquirer) detailTool() (mcp.Tool, error) {
	in, err := mcp.SchemaFor[detailInput]()
	if err != nil {
		return nil, err
	}
	in.Properties["tool"].MaxLength = ptr(maxToolArg)
	in.Properties["errorCode"].MaxLength = ptr(200)
	in.Properties["verbosity"].Enum = []any{verbosityFull, verbositySummary, verbosityNone}
	in.Properties["verbosity"].Default = json.RawMessage(`"full"`)
	out, err := mcp.SchemaFor[detailResult]()
	if err != nil {
		return nil, err
	}
	out.Properties["status"].Enum = []any{statusOK, statusNotFound}
	out.Properties["match"].Enum = []any{matchExact, matchSingle, matchAmbiguous, matchNone}
	// The tool object is declared shallowly (its members are documented in
	// the tool's Details): the registry validates every answer against this
	// schema, and descending into a tool's guidance and input schema would
	// double the cost of a call.
	out.Properties["tool"] = &jsonschema.Schema{Type: "object", Required: []string{"name"},
		Description: "The tool (exact, single): name, title, description, category, whenToUse, whenNotToUse[], details, " +
			"examples[{arguments, outcome}], workflows[], errorCodes[], then inputSchema and outputSchema (verbosity full) or " +
			"parameters[{name, type, required, enum}] (summary); empty members are omitted."}
	cat, prefix := e.opts.CatalogueName, ""
	if e.prefix != "" {
		prefix = fmt.Sprintf(" (%q and %q prefixes are optional)", e.prefix+"_", e.prefix+" ")
	}
	return mcp.NewTool(mcp.ToolInfo{
		Name:  e.opts.DetailName,
		Title: "Tool detail",
		Description: "Returns one tool's entry - status, match (exact|single|ambiguous|none), then whenToUse, " +
			"whenNotToUse, description, examples and inputSchema - by name, intent phrase or the error code it remediates.",
		InputSchema: in,
		Permission:  e.opts.Permission,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
		Guide: &mcp.Guide{
			OutputSchema: out,
			Category:     e.opts.Category,
			WhenToUse: "'How do I call X / which tool does Y' in one call: tool:'<name>'" + prefix +
				" or an intent phrase; or errorCode:'<code>' for the tool that remediates a diagnostic.",
			WhenNotToUse: []string{"The whole tool inventory - use " + cat + "."},
			Details: "Branch on match: exact (a registered name, before or after normalisation) and single (the one " +
				"tool whose name words, two or more, all appear in the phrase, or a clear ranked winner: 1.5x the runner-up's " +
				"score, backed by more than one weak term and half the phrase) carry the tool object; ambiguous carries up to 5 ranked candidates[] without " +
				"schemas - call again with the chosen name; none is status:not-found with nextStep. verbosity: full " +
				"(default) = inputSchema; summary = parameters[] (name, type, required, enum); none = name, whenToUse, " +
				"description. Only tools you may call are ever shown.",
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{"tool":"` + e.opts.CatalogueName + `","verbosity":"summary"}`),
					Outcome: "match:exact with parameters[] of the catalogue tool."},
				{Arguments: json.RawMessage(`{"tool":"read the source of a function"}`),
					Outcome: "match:single with that tool, or ambiguous with ranked candidates[]."},
			},
		},
	}, e.detail)
}

// detail answers one tool_detail call.
func (e *enquirer) detail(ctx context.Context, req *mcp.Request, in detailInput) (detailResult, error) {
	start := time.Now()
	tool := strings.TrimSpace(in.Tool)
	code := strings.TrimSpace(in.ErrorCode)
	switch {
	case tool == "" && code == "":
		return detailResult{}, &mcp.ArgumentError{Tool: req.Name, Msg: "give tool (a name or an intent phrase) or errorCode"}
	case tool != "" && code != "":
		return detailResult{}, &mcp.ArgumentError{Tool: req.Name, Msg: "give tool or errorCode, not both"}
	}
	verbosity := in.Verbosity
	switch verbosity {
	case "":
		verbosity = verbosityFull
	case verbosityFull, verbositySummary, verbosityNone:
	default:
		return detailResult{}, &mcp.ArgumentError{Tool: req.Name, Path: "/verbosity",
			Msg: fmt.Sprintf("expected full, summary or none, got %q", clip(in.Verbosity))}
	}

	ix := e.index()
	allowed := ix.allowed(func(p string) bool { return e.az.Allowed(ctx, req.Caller, p) })
	var res detailResult
	if code != "" {
		res = e.byCode(ix, allowed, code, verbosity)
	} else {
		res = e.byTool(ix, allowed, tool, verbosity)
	}
	res.Meta.ServerMs = sinceMs(start)
	return res, nil
}

// byCode answers an errorCode enquiry.
func (e *enquirer) byCode(ix *index, allowed []bool, code, verbosity string) detailResult {
	var ids []int32
	for _, id := range ix.codes[strings.ToLower(code)] {
		if allowed[ix.docs[id].group] {
			ids = append(ids, id)
		}
	}
	switch len(ids) {
	case 0:
		return detailResult{Status: statusNotFound, Match: matchNone,
			NextStep: fmt.Sprintf("No tool you may call remediates error code %q. Call %s with tool: an intent phrase "+
				"describing the fix, or %s for the whole inventory.", clip(code), e.opts.DetailName, e.opts.CatalogueName)}
	case 1:
		return detailResult{Status: statusOK, Match: matchExact, Tool: ix.docs[ids[0]].show(verbosity),
			Note: fmt.Sprintf("Error code %q is remediated by %q", clip(code), ix.docs[ids[0]].name)}
	}
	res := detailResult{Status: statusOK, Match: matchAmbiguous,
		NextStep: fmt.Sprintf("Several tools remediate %q: call %s with tool: the chosen name.", clip(code), e.opts.DetailName)}
	if len(ids) > maxCandidates {
		res.Note = fmt.Sprintf("%d tools remediate %q; the first %d by name are shown.", len(ids), clip(code), maxCandidates)
		ids = ids[:maxCandidates]
	}
	for _, id := range ids {
		d := &ix.docs[id]
		res.Candidates = append(res.Candidates, candidate{Name: d.name, Description: d.entry.Description, Score: 1})
	}
	return res
}

// byTool answers a name or phrase enquiry.
func (e *enquirer) byTool(ix *index, allowed []bool, tool, verbosity string) detailResult {
	if id, ok := ix.byName[tool]; ok && allowed[ix.docs[id].group] {
		return detailResult{Status: statusOK, Match: matchExact, Tool: ix.docs[id].show(verbosity)}
	}
	var hit []int32
	for _, id := range ix.byNorm[normalize(tool, e.prefix)] {
		if allowed[ix.docs[id].group] {
			hit = append(hit, id)
		}
	}
	if len(hit) == 1 {
		d := &ix.docs[hit[0]]
		return detailResult{Status: statusOK, Match: matchExact, Tool: d.show(verbosity),
			Note: fmt.Sprintf("Resolved %q -> %q", clip(tool), d.name)}
	}

	q := query(tool, e.prefix)
	ranked, scoring := ix.rank(q, allowed, maxCandidates)
	if scoring == 0 {
		return detailResult{Status: statusNotFound, Match: matchNone,
			NextStep: fmt.Sprintf("No tool you may call matches %q. Rephrase the intent with words from the tool's "+
				"purpose, or call %s for the whole inventory.", clip(tool), e.opts.CatalogueName)}
	}
	win, why := int32(-1), ""
	switch id := ix.named(tool, allowed); {
	case id >= 0:
		win, why = id, "the tool named in the phrase"
	case !confident(ranked, len(q.words)):
	case scoring == 1:
		win, why = ranked[0].doc, "the only tool that matches"
	default:
		win, why = ranked[0].doc, fmt.Sprintf("score %.3f against %.3f for the runner-up", ranked[0].score, ranked[1].score)
	}
	if win >= 0 {
		d := &ix.docs[win]
		return detailResult{Status: statusOK, Match: matchSingle, Tool: d.show(verbosity),
			Note: fmt.Sprintf("Resolved %q -> %q (%s)", clip(tool), d.name, why)}
	}
	res := detailResult{Status: statusOK, Match: matchAmbiguous,
		NextStep: fmt.Sprintf("Several tools match: call %s with tool: the chosen candidate's name.", e.opts.DetailName)}
	for _, s := range ranked {
		d := &ix.docs[s.doc]
		res.Candidates = append(res.Candidates, candidate{Name: d.name, Description: d.entry.Description, Score: s.score})
	}
	return res
}

// show returns the tool entry at a verbosity. The entry shares the index's
// immutable slices; it is only encoded, never changed.
func (d *doc) show(verbosity string) *toolEntry {
	switch verbosity {
	case verbosityNone:
		return &toolEntry{Name: d.name, WhenToUse: d.entry.WhenToUse, Description: d.entry.Description}
	case verbositySummary:
		t := d.entry
		t.Parameters = d.params
		if t.Parameters == nil {
			t.Parameters = []parameter{}
		}
		return &t
	}
	t := d.entry
	t.InputSchema = d.inputSchema()
	t.OutputSchema = d.outputSchema()
	return &t
}

func ptr[T any](v T) *T { return &v }

// maxEcho bounds how much of an argument an answer or an error repeats.
const maxEcho = 200

// clip returns s cut to maxEcho bytes (never inside a UTF-8 sequence),
// marked with "…" when cut, for echoing an argument.
func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	return boundedjson.Truncate(s, maxEcho) + "…"
}

// sinceMs is the time since start in milliseconds, to 3 decimals, for
// meta.serverMs.
func sinceMs(start time.Time) float64 { return round3(float64(time.Since(start).Nanoseconds()) / 1e6) }
