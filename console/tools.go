package console

import (
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/embedmcp/mcp"
	"github.com/google/jsonschema-go/jsonschema"
)

// toolView is what the Tools page shows of a tool, built once per ToolInfo
// (a Tool's Info never changes).
type toolView struct {
	Name, Title, Summary, Description string
	Permission                        string
	Annotations                       []string
	TaskSupport                       string
	AdminSummary, AdminExample        string
	Category                          string
	Schema                            []schemaRow
	SchemaJSON                        string
	OutputJSON                        string
	// Cells are the row's cells on the Tools page, rendered once.
	Cells template.HTML
}

// schemaRow is one property of an input schema, indented by Depth.
type schemaRow struct {
	Depth       int
	Name        string
	Type        string
	Required    bool
	Description string
	Rules       string // constraints: enum, range, pattern, default
}

// maxSchemaDepth and maxSchemaRows bound the rendering of one schema.
const (
	maxSchemaDepth = 5
	maxSchemaRows  = 200
)

// views caches the toolViews by ToolInfo pointer; it is emptied when it
// grows past twice the registry, so that replaced tools do not pile up.
type views struct {
	cells *template.Template // "toolcells"

	mu sync.Mutex
	m  map[*mcp.ToolInfo]*toolView
}

func (v *views) get(info *mcp.ToolInfo, registered int) *toolView {
	v.mu.Lock()
	defer v.mu.Unlock()
	if tv, ok := v.m[info]; ok {
		return tv
	}
	if v.m == nil || len(v.m) > 2*registered+64 {
		v.m = map[*mcp.ToolInfo]*toolView{}
	}
	tv := newToolView(info)
	var b strings.Builder
	if err := v.cells.Execute(&b, tv); err != nil {
		b.Reset()
		b.WriteString("<td><code>" + template.HTMLEscapeString(tv.Name) + "</code> (cannot be shown)</td><td></td><td></td><td></td>")
	}
	tv.Cells = template.HTML(b.String())
	v.m[info] = tv
	return tv
}

func newToolView(info *mcp.ToolInfo) *toolView {
	tv := &toolView{
		Name: info.Name, Title: info.Title, Description: info.Description,
		Summary:      firstLine(info.Description),
		Permission:   info.Permission,
		TaskSupport:  string(info.TaskSupport),
		AdminSummary: info.AdminSummary, AdminExample: info.AdminExample,
	}
	if tv.TaskSupport == "" {
		tv.TaskSupport = "never"
	}
	if tv.Title == "" && info.Annotations != nil {
		tv.Title = info.Annotations.Title
	}
	if info.Guide != nil {
		tv.Category = info.Guide.Category
	}
	if a := info.Annotations; a != nil {
		for _, h := range []struct {
			name string
			v    *bool
		}{{"read-only", a.ReadOnlyHint}, {"destructive", a.DestructiveHint}, {"idempotent", a.IdempotentHint}, {"open-world", a.OpenWorldHint}} {
			switch {
			case h.v == nil:
			case *h.v:
				tv.Annotations = append(tv.Annotations, h.name)
			default:
				tv.Annotations = append(tv.Annotations, "not "+h.name)
			}
		}
	}
	if s := info.InputSchema; s != nil {
		tv.Schema = schemaRows(nil, s, 0)
		tv.SchemaJSON = indentJSON(s)
	}
	if s := info.OutputSchema; s != nil {
		tv.OutputJSON = indentJSON(s)
	}
	return tv
}

func indentJSON(s *jsonschema.Schema) string {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "(the schema cannot be encoded: " + err.Error() + ")"
	}
	return string(b)
}

// firstLine returns the first sentence or line of s, at most 160 bytes.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return truncate(s, 160)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !startsRune(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func startsRune(b byte) bool { return b&0xC0 != 0x80 }

// schemaRows lists the properties of an object schema s, depth-first.
func schemaRows(rows []schemaRow, s *jsonschema.Schema, depth int) []schemaRow {
	if s == nil || depth >= maxSchemaDepth {
		return rows
	}
	names := slices.Clone(s.PropertyOrder)
	for _, n := range slices.Sorted(maps.Keys(s.Properties)) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, name := range names {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if len(rows) >= maxSchemaRows {
			return append(rows, schemaRow{Depth: depth, Name: "…", Description: "more properties: see the JSON schema"})
		}
		rows = append(rows, schemaRow{Depth: depth, Name: name, Type: schemaType(p), Required: slices.Contains(s.Required, name),
			Description: p.Description, Rules: schemaRules(p)})
		switch {
		case len(p.Properties) > 0:
			rows = schemaRows(rows, p, depth+1)
		case p.Items != nil && len(p.Items.Properties) > 0:
			rows = schemaRows(rows, p.Items, depth+1)
		}
	}
	return rows
}

// schemaType names the type of s: "string", "integer|null", "array of string".
func schemaType(s *jsonschema.Schema) string {
	t := s.Type
	if t == "" && len(s.Types) > 0 {
		t = strings.Join(s.Types, "|")
	}
	if t == "" {
		switch {
		case len(s.AnyOf) > 0, len(s.OneOf) > 0:
			var alts []string
			for _, a := range append(slices.Clone(s.AnyOf), s.OneOf...) {
				alts = append(alts, schemaType(a))
			}
			return strings.Join(alts, " or ")
		case s.Ref != "":
			return s.Ref
		case len(s.Enum) > 0:
			return "enum"
		}
		return "any"
	}
	if strings.HasPrefix(t, "array") && s.Items != nil {
		t += " of " + schemaType(s.Items)
	}
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	return t
}

// schemaRules describes the constraints of s in a line.
func schemaRules(s *jsonschema.Schema) string {
	var r []string
	if len(s.Enum) > 0 {
		vals := make([]string, 0, len(s.Enum))
		for _, v := range s.Enum {
			vals = append(vals, jsonText(v))
		}
		r = append(r, "one of "+truncate(strings.Join(vals, ", "), 200))
	}
	if s.Const != nil {
		r = append(r, "= "+jsonText(*s.Const))
	}
	num := func(label string, v *float64) {
		if v != nil {
			r = append(r, label+strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	num("≥ ", s.Minimum)
	num("> ", s.ExclusiveMinimum)
	num("≤ ", s.Maximum)
	num("< ", s.ExclusiveMaximum)
	num("multiple of ", s.MultipleOf)
	length := func(label string, v *int) {
		if v != nil {
			r = append(r, fmt.Sprintf(label, *v))
		}
	}
	length("length ≥ %d", s.MinLength)
	length("length ≤ %d", s.MaxLength)
	length("≥ %d items", s.MinItems)
	length("≤ %d items", s.MaxItems)
	if s.Pattern != "" {
		r = append(r, "matches "+truncate(s.Pattern, 120))
	}
	if len(s.Default) > 0 {
		r = append(r, "default "+truncate(string(s.Default), 120))
	}
	if s.Deprecated {
		r = append(r, "deprecated")
	}
	return strings.Join(r, "; ")
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
