package console

import (
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

// TestSchemaRows: an input schema reads as a table: nested properties
// indented under their parent, required ones marked, constraints in words.
func TestSchemaRows(t *testing.T) {
	s, err := mcp.ParseSchema([]byte(`{"type":"object","required":["query"],"properties":{
		"query":{"type":"string","description":"what to find","minLength":1,"maxLength":200},
		"kind":{"type":"string","enum":["func","type"],"default":"func"},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"scope":{"type":"object","properties":{"module":{"type":"string","pattern":"^[a-z./]+$"},
			"deep":{"type":"object","properties":{"flag":{"type":["boolean","null"]}}}}},
		"ids":{"type":"array","items":{"type":"string"},"maxItems":5}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rows := schemaRows(nil, s, 0)
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = strings.Repeat(">", r.Depth) + r.Name + " " + r.Type + " [" + r.Rules + "]"
		if r.Required {
			got[i] += " *"
		}
	}
	want := []string{
		"ids array of string [≤ 5 items]",
		`kind string [one of "func", "type"; default "func"]`,
		"limit integer [≥ 1; ≤ 100]",
		"query string [length ≥ 1; length ≤ 200] *",
		"scope object []",
		">deep object []",
		">>flag boolean|null []",
		">module string [matches ^[a-z./]+$]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if firstLine("One. Two.\nThree") != "One." || truncate("héllo", 2) != "h…" {
		t.Error("firstLine or truncate")
	}
}
