package enquiry

import "testing"

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
