package enquiry

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, prefix, want string }{
		{"edit file", "ek9", "edit_file"},
		{"  EK9   Edit\tFile ", "ek9", "edit_file"},
		{"ek9_edit_file", "ek9", "edit_file"},
		{"ek9-edit_file", "ek9", "edit_file"},
		{"ek9.edit_file", "ek9", "edit_file"},
		{"ek9edit_file", "ek9", "ek9edit_file"}, // no separator: not the prefix
		{"ek9_", "ek9", "ek9_"},                 // nothing after the prefix
		{"mcp_edit_file", "ek9", "mcp_edit_file"},
		{"Edit File", "", "edit_file"},
	} {
		if got := normalize(c.in, c.prefix); got != c.want {
			t.Errorf("normalize(%q, %q) = %q, want %q", c.in, c.prefix, got, c.want)
		}
	}
}

// Mentions of other tools (snake_case words) are no evidence about a tool;
// other prose stays.
func TestWithoutReferences(t *testing.T) {
	for in, want := range map[string]string{
		"Returns exact ids for code_definition.":  "Returns exact ids for " + blank("code_definition") + ".",
		"Use tool_detail or max_tokens, not it.":  "Use " + blank("tool_detail") + " or " + blank("max_tokens") + ", not it.",
		"Plain prose, camelCase and kebab-case.":  "Plain prose, camelCase and kebab-case.",
		"A _leading and trailing_ underscore.":    "A _leading and trailing_ underscore.",
		`{"tool":"tool_catalogue","verbosity":1}`: `{"tool":"` + blank("tool_catalogue") + `","verbosity":1}`,
	} {
		if got := withoutReferences(in); got != want {
			t.Errorf("withoutReferences(%q) = %q, want %q", in, got, want)
		}
	}
}

func blank(s string) string { return strings.Repeat(" ", len(s)) }
