package mcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// writeFields writes a Markdown table of an object schema's properties,
// required ones first, then by name.
func writeFields(b *bytes.Buffer, s *jsonschema.Schema, none string) {
	if s == nil {
		b.WriteString("Any JSON object (the tool declares no schema).\n\n")
		return
	}
	if len(s.Properties) == 0 {
		b.WriteString(none + "\n\n")
		return
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.SortFunc(names, func(x, y string) int {
		rx, ry := slices.Contains(s.Required, x), slices.Contains(s.Required, y)
		if rx != ry {
			if rx {
				return -1
			}
			return 1
		}
		return strings.Compare(x, y)
	})
	b.WriteString("| Name | Type | Required | Description |\n| --- | --- | --- | --- |\n")
	for _, n := range names {
		p := s.Properties[n]
		req := "no"
		if slices.Contains(s.Required, n) {
			req = "yes"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", n, cell(schemaType(p)), req, cell(describeField(p)))
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Not != nil {
		b.WriteString("\nNo other properties are accepted.\n")
	}
	b.WriteString("\n")
}

// schemaType names the type of a property schema for people.
func schemaType(s *jsonschema.Schema) string {
	if s == nil {
		return "any"
	}
	t := s.Type
	if t == "" {
		t = strings.Join(s.Types, " or ")
	}
	if (t == "array" || slices.Contains(s.Types, "array")) && s.Items != nil {
		t = strings.Replace(t, "array", "array of "+schemaType(s.Items), 1)
	}
	if t == "" {
		var alts []string
		for _, a := range append(slices.Clone(s.AnyOf), s.OneOf...) {
			alts = append(alts, schemaType(a))
		}
		t = strings.Join(alts, " or ")
	}
	if t == "" {
		t = "any"
	}
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	return t
}

// describeField is a property's description followed by its constraints.
func describeField(s *jsonschema.Schema) string {
	parts := []string{}
	if d := strings.TrimSpace(s.Description); d != "" {
		if !strings.HasSuffix(d, ".") {
			d += "."
		}
		parts = append(parts, d)
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = "`" + jsonText(v) + "`"
		}
		parts = append(parts, "One of "+strings.Join(vals, ", ")+".")
	}
	if s.Const != nil {
		parts = append(parts, "Always `"+jsonText(*s.Const)+"`.")
	}
	if s.Minimum != nil {
		parts = append(parts, "At least "+num(*s.Minimum)+".")
	}
	if s.ExclusiveMinimum != nil {
		parts = append(parts, "More than "+num(*s.ExclusiveMinimum)+".")
	}
	if s.Maximum != nil {
		parts = append(parts, "At most "+num(*s.Maximum)+".")
	}
	if s.ExclusiveMaximum != nil {
		parts = append(parts, "Less than "+num(*s.ExclusiveMaximum)+".")
	}
	if s.MinLength != nil {
		parts = append(parts, "At least "+strconv.Itoa(*s.MinLength)+" characters.")
	}
	if s.MaxLength != nil {
		parts = append(parts, "At most "+strconv.Itoa(*s.MaxLength)+" characters.")
	}
	if s.Pattern != "" {
		parts = append(parts, "Matches `"+s.Pattern+"`.")
	}
	if len(s.Default) > 0 {
		parts = append(parts, "Default `"+string(encodeCompact(s.Default))+"`.")
	}
	return strings.Join(parts, " ")
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
