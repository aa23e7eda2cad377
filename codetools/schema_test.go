package codetools

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/google/jsonschema-go/jsonschema"
)

// The input schemas of the nsmcp seeds (CodeSearchTool, CodeDefinitionTool),
// copied verbatim.
const (
	seedSearchSchema     = `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100},"offset":{"type":"integer","minimum":0}},"required":["query"],"additionalProperties":false}`
	seedDefinitionSchema = `{"type":"object","properties":{"name":{"type":"string"},"offset":{"type":"integer","minimum":0},"maxCharacters":{"type":"integer","minimum":1,"maximum":32768}},"required":["name"],"additionalProperties":false}`
)

// withoutDescriptions decodes a schema and removes every "description"
// member of its properties, returning the rest and the descriptions.
func withoutDescriptions(t *testing.T, doc string) (rest map[string]any, descs map[string]string) {
	t.Helper()
	if err := json.Unmarshal([]byte(doc), &rest); err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	descs = map[string]string{}
	props, _ := rest["properties"].(map[string]any)
	for name, p := range props {
		p := p.(map[string]any)
		if d, ok := p["description"].(string); ok {
			descs[name] = d
			delete(p, "description")
		}
	}
	return rest, descs
}

// The input schemas keep the seeds' contract: every property of the seed,
// with its type and bounds, and no property the seed requires is lost;
// ours adds descriptions (and code_search its filters).
func TestInputSchemasMatchSeeds(t *testing.T) {
	for _, c := range []struct {
		name, ours, seed string
		extra            []string
	}{
		{SearchToolName, searchInputSchema, seedSearchSchema, []string{"kind", "scope", "package", "packages"}},
		{DefinitionToolName, definitionInputSchema, seedDefinitionSchema, []string{"listOffset", "detail"}},
	} {
		ours, descs := withoutDescriptions(t, c.ours)
		seed, seedDescs := withoutDescriptions(t, c.seed)
		if len(seedDescs) != 0 {
			t.Fatalf("%s: seed has descriptions %v", c.name, seedDescs)
		}
		props := ours["properties"].(map[string]any)
		for _, name := range c.extra {
			delete(props, name)
		}
		if !reflect.DeepEqual(ours, seed) {
			t.Errorf("%s: input schema without descriptions and filters\n%v\ndiffers from the seed's\n%v", c.name, ours, seed)
		}
		if len(descs) != len(props)+len(c.extra) {
			t.Errorf("%s: descriptions %v for properties %v and %v", c.name, descs, props, c.extra)
		}
		for name, d := range descs {
			if strings.TrimSpace(d) == "" {
				t.Errorf("%s: property %q has no description", c.name, name)
			}
		}
	}
}

// TestOutputConformsToSchema validates real answers against the inferred
// output schemas, which the typed tools do not check at run time (their
// result types are plain).
func TestOutputConformsToSchema(t *testing.T) {
	huge := "package main\n\n// Huge is long.\nfunc Huge() string {\n\treturn \"" + strings.Repeat("héllo 世界 ", 100) + "\"\n}\n"
	ts := mcp.NewToolSet()
	if err := Register(ts, newFixtureCatalog(t, "", map[string]string{"huge.go": huge})); err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(ts, mcp.GrantsAuthorizer{}, nil)
	resolved := map[string]*jsonschema.Resolved{}
	for tool := range ts.All() {
		info := tool.Info()
		// The output schema is shown by tool_detail, not in tools/list.
		if info.OutputSchema != nil || info.Guide == nil || info.Guide.OutputSchema == nil {
			t.Fatalf("%s: the output schema must be in the guide only", info.Name)
		}
		if err := checkDescribed(info.Guide.OutputSchema, info.Name); err != nil {
			t.Error(err)
		}
		// Round-trip through JSON, as a client sees the schema.
		data, err := json.Marshal(info.Guide.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sch jsonschema.Schema
		if err := json.Unmarshal(data, &sch); err != nil {
			t.Fatal(err)
		}
		r, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not compile: %v", info.Name, err)
		}
		resolved[info.Name] = r
	}
	calls := []struct{ tool, args, want string }{
		{SearchToolName, `{"query":"fixture","limit":3}`, `"nextOffset":3`},
		{SearchToolName, `{"query":"zzyzx quux"}`, `"results":[]`},
		{SearchToolName, `{"query":"tool:code_def"}`, `"kind":"tool"`},
		{DefinitionToolName, `{"name":"main.(*T).Ptr","detail":"provenance"}`, `"snapshot":{`},
		{DefinitionToolName, `{"name":"main.(*T).Ptr"}`, `"sha256":"`},
		{DefinitionToolName, `{"name":"main.main"}`, `"runtime":{`},
		{DefinitionToolName, `{"name":"main.Huge","maxCharacters":100}`, `"nextArguments":{`},
		{DefinitionToolName, `{"name":"tool:code_search"}`, `"source":"registered"`},
	}
	for _, c := range calls {
		res, e := callTool(t, s, reader, "", c.tool, c.args)
		if e != nil || res["isError"] == true {
			t.Errorf("%s %s: %v %v", c.tool, c.args, e, res)
			continue
		}
		sc := res["structuredContent"]
		enc, _ := json.Marshal(sc)
		if !strings.Contains(string(enc), c.want) {
			t.Errorf("%s %s: answer lacks %s: %s", c.tool, c.args, c.want, enc)
		}
		if err := resolved[c.tool].Validate(sc); err != nil {
			t.Errorf("%s %s: answer breaks the output schema: %v\n%s", c.tool, c.args, err, enc)
		}
	}
}

// checkDescribed reports a property without a description anywhere in s.
func checkDescribed(s *jsonschema.Schema, path string) error {
	if s == nil {
		return nil
	}
	for name, p := range s.Properties {
		if strings.TrimSpace(p.Description) == "" {
			return &undescribedError{path + "." + name}
		}
		if err := checkDescribed(p, path+"."+name); err != nil {
			return err
		}
	}
	if err := checkDescribed(s.Items, path+"[]"); err != nil {
		return err
	}
	return checkDescribed(s.AdditionalProperties, path+"{}")
}

type undescribedError struct{ path string }

func (e *undescribedError) Error() string {
	return "output schema property " + e.path + " has no description"
}
