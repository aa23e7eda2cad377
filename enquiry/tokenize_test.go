package enquiry

import (
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"ek9_extract_method", []string{"ek9", "extract", "method"}},
		{"insertedLineRange", []string{"inserted", "line", "range"}},
		{"JSONSchema parser", []string{"json", "schema", "parser"}},
		{"HTTPServer2Go", []string{"http", "server2go"}},
		{"kebab-case.dotted_name", []string{"kebab", "case", "dotted", "name"}},
		{"Fix E11066 now!", []string{"fix", "e11066", "now"}},
		{"Parameters, classes & dependencies; status", []string{"parameter", "class", "dependency", "status"}},
		{"matches boxes analysis", []string{"match", "box", "analysis"}},
		{"Größe ändern", []string{"größe", "ändern"}},
		{"  ", nil},
		{"", nil},
	} {
		if got := words(c.in); !slices.Equal(got, c.want) {
			t.Errorf("words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTermsDropStopWords(t *testing.T) {
	got := terms("Find a class by name, then replace the block with a call")
	want := []string{"find", "class", "name", "replace", "block", "call"}
	if !slices.Equal(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"parameters": "parameter", "files": "file", "classes": "class", "dependencies": "dependency",
		"matches": "match", "boxes": "box", "wishes": "wish", "status": "status", "class": "class",
		"analysis": "analysis", "its": "its", "gas": "gas", "extracted": "extracted", "ties": "tie",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

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
