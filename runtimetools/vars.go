package runtimetools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/embedmcp/mcp"
)

const varsDescription = "Read the expvar variables this process publishes (counters, gauges, maps), as bounded JSON, " +
	"the values of secret-looking keys redacted. The command line (cmdline) and runtime.MemStats (memstats) only when " +
	"asked for by name."

const varsSchema = `{"type":"object","properties":{` +
	`"names":{"type":"array","items":{"type":"string"},"description":"Exact variable names; default every variable but cmdline and memstats. At most 100."}},` +
	`"additionalProperties":false}`

// Limits of runtime_vars.
const (
	maxVarNames     = 100
	maxVarName      = 256
	maxVarBytes     = 16 << 10
	maxVarsBytes    = 128 << 10
	maxSummaryKeys  = 50
	maxListedUnseen = 20
)

// onRequest are the variables shown only when named.
var onRequest = []string{"cmdline", "memstats"}

type varsArgs struct {
	Names []string `json:"names,omitempty"`
}

type expVar struct {
	Name      string          `json:"name"`
	Value     json.RawMessage `json:"value,omitempty" jsonschema:"the variable's JSON value"`
	Truncated bool            `json:"truncated,omitempty" jsonschema:"the value is longer than 16 KiB and left out"`
	Bytes     int             `json:"bytes,omitempty" jsonschema:"length of a value left out"`
	Keys      []string        `json:"keys,omitempty" jsonschema:"first keys of an object left out"`
	Error     string          `json:"error,omitempty" jsonschema:"why the value could not be read"`
}

type varsResult struct {
	Vars    []expVar `json:"vars"`
	Omitted []string `json:"omitted,omitempty" jsonschema:"variables left out: shown on request only, or past the answer's size bound"`
}

func (s *state) varsTool() (mcp.Tool, error) {
	return newTool(varsSchema, mcp.ToolInfo{
		Name:         VarsToolName,
		Title:        "expvar variables of this process",
		Description:  varsDescription,
		Permission:   PermissionRead,
		Annotations:  readOnly(),
		AdminSummary: "Lets an agent read the expvar variables of this process (not the command line or memstats unless named).",
		AdminExample: `{"names":["memstats"]}`,
		Guide: &mcp.Guide{
			Category:  "Diagnostics",
			WhenToUse: "Read the counters and state the service itself publishes with expvar: request counts, queue lengths, cache sizes, feature flags.",
			WhenNotToUse: []string{
				"Go runtime figures (heap, GC, goroutines) - use runtime_metrics, which is cheaper than memstats.",
			},
			Examples: []mcp.Example{
				{Arguments: json.RawMessage(`{}`), Outcome: "every published variable but cmdline and memstats, with omitted naming those."},
				{Arguments: json.RawMessage(`{"names":["cmdline"]}`), Outcome: "the command line, values of secret-looking flags redacted."},
			},
		},
	}, func(ctx context.Context, req *mcp.Request, in varsArgs) (varsResult, error) {
		if len(in.Names) > maxVarNames {
			return varsResult{}, argError(req, "/names", "at most %d names, got %d", maxVarNames, len(in.Names))
		}
		for i, n := range in.Names {
			if err := checkText(req, fmt.Sprintf("/names/%d", i), n, maxVarName); err != nil {
				return varsResult{}, err
			}
		}
		vars, err := listVars(s.opts.Vars)
		if err != nil {
			return varsResult{}, err
		}
		for i, n := range in.Names {
			if !slices.ContainsFunc(vars, func(v namedVar) bool { return v.name == n }) {
				return varsResult{}, argError(req, fmt.Sprintf("/names/%d", i), "no expvar variable %s; published: %s", echo(n), publishedNames(vars))
			}
		}
		return readVars(vars, in.Names), nil
	})
}

// namedVar is one variable of Options.Vars.
type namedVar struct {
	name  string
	value fmt.Stringer
}

// listVars lists the variables of do (Options.Vars), sorted by name; of
// a name listed twice, the first.
func listVars(do func(func(string, fmt.Stringer))) (vars []namedVar, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("listing the variables panicked: %s", panicText(r))
		}
	}()
	do(func(name string, value fmt.Stringer) {
		vars = append(vars, namedVar{name, value})
	})
	slices.SortStableFunc(vars, func(a, b namedVar) int { return strings.Compare(a.name, b.name) })
	vars = slices.CompactFunc(vars, func(a, b namedVar) bool { return a.name == b.name })
	return vars, nil
}

// publishedNames lists the variables for an error message, bounded.
func publishedNames(vars []namedVar) string {
	var names []string
	for _, v := range vars[:min(len(vars), maxListedUnseen)] {
		names = append(names, v.name)
	}
	s := strings.Join(names, ", ")
	if len(vars) > len(names) {
		s += fmt.Sprintf(" and %d more", len(vars)-len(names))
	}
	return s
}

// readVars reads the named variables, or all but the on-request ones.
func readVars(vars []namedVar, names []string) varsResult {
	res := varsResult{Vars: []expVar{}}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	size := 0
	for _, kv := range vars {
		if len(names) > 0 && !want[kv.name] {
			continue
		}
		if len(names) == 0 && slices.Contains(onRequest, kv.name) {
			res.Omitted = append(res.Omitted, kv.name)
			continue
		}
		v := readVar(kv)
		n := len(v.Value) + len(v.Name) + 64
		if size+n > maxVarsBytes {
			res.Omitted = append(res.Omitted, kv.name)
			continue
		}
		size += n
		res.Vars = append(res.Vars, v)
	}
	return res
}

// readVar reads one variable, redacts it and bounds it.
func readVar(kv namedVar) (v expVar) {
	v.Name = kv.name
	defer func() {
		if r := recover(); r != nil {
			v = expVar{Name: kv.name, Error: "reading the variable panicked: " + panicText(r)}
		}
	}()
	if kv.value == nil {
		return expVar{Name: kv.name, Error: "the variable has no value (nil)"}
	}
	if defaultSecrets.match(kv.name) {
		// A variable named like a secret ("apiToken") is one, whole.
		v.Value = json.RawMessage(strconv.Quote(Redacted))
		return v
	}
	raw := kv.value.String()
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var val any
	if err := dec.Decode(&val); err != nil {
		return expVar{Name: kv.name, Error: "the value is not JSON: " + clip(err.Error(), 200)}
	}
	if kv.name == "cmdline" {
		if args, ok := val.([]any); ok {
			strs := make([]string, len(args))
			for i, a := range args {
				strs[i] = fmt.Sprint(a)
			}
			val = defaultSecrets.redactArgs(strs)
		}
	} else {
		val = defaultSecrets.redactJSON(val)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(val); err != nil {
		return expVar{Name: kv.name, Error: "encoding the value: " + clip(err.Error(), 200)}
	}
	out := bytes.TrimSpace(buf.Bytes())
	if len(out) > maxVarBytes {
		v.Truncated, v.Bytes = true, len(out)
		if m, ok := val.(map[string]any); ok {
			v.Keys = sortedKeys(m)
			if len(v.Keys) > maxSummaryKeys {
				v.Keys = v.Keys[:maxSummaryKeys]
			}
		}
		return v
	}
	v.Value = json.RawMessage(out)
	return v
}
