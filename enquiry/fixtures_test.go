package enquiry

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/embedmcp/mcp"
)

// Permissions of the realistic registry.
const (
	permRefactor = "ek9.refactor"
	permEdit     = "ek9.edit"
	permDiag     = "ek9.diag.read"
	permBuild    = "ek9.build"
)

// fixture is one hand-written tool of the realistic registry.
type fixture struct {
	name, title, desc, perm, schema string
	guide                           *mcp.Guide
}

// overlaySchema is the shared dirtyOverlay property.
const overlaySchema = `"dirtyOverlay":{"type":"array","description":"Override on-disk content for files with unsaved buffers.",
 "items":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}`

func ex(args, outcome string) mcp.Example {
	return mcp.Example{Arguments: json.RawMessage(args), Outcome: outcome}
}

// ek9Fixtures is a registry modelled on the EK9 language server's MCP tools
// (descriptions from the seed, the rest written to match).
var ek9Fixtures = []fixture{
	{
		name: "ek9_extract_method", perm: permRefactor,
		desc: "Inserts the new method (parameters and return inferred from variable data-flow) and replaces the block with a call to it; answers status, edits[] and summary, an ambiguous or boundary-crossing block as conflicts[].",
		schema: `{"type":"object","additionalProperties":false,"required":["path","startLine","endLine","newName"],"properties":{
 "path":{"type":"string","description":"The .ek9 file."},
 "startLine":{"type":"integer","minimum":1},"endLine":{"type":"integer","minimum":1},
 "newName":{"type":"string","description":"Name of the new method or function."},
 "dryRun":{"type":"boolean"},` + overlaySchema + `}}`,
		guide: &mcp.Guide{
			Category:     "Refactoring",
			WhenToUse:    "A long body hides a step that deserves its own name, or the same lines appear twice.",
			WhenNotToUse: []string{"Changing an existing signature - use ek9_change_signature.", "Wrapping lines in a control head - use ek9_surround_with."},
			Details:      "Variables read in the range and defined before it become parameters; the one variable written in it and read after becomes the return. A range that crosses a block boundary or writes two live variables is a conflict.",
			Examples:     []mcp.Example{ex(`{"path":"orders/pricing.ek9","startLine":40,"endLine":52,"newName":"applyDiscount","dryRun":true}`, "status:ready, edits[] with one INSERT for the new method and one REPLACE for the call.")},
			Workflows:    []string{"refactor_safely"},
		},
	},
	{
		name: "ek9_change_signature", perm: permRefactor,
		desc: "Rewrites the declaration and EVERY call site atomically (add / remove / reorder parameters, change the return type, toggle 'as pure'); answers status, edits[] and summary with the call-site count, a blocking call site as conflicts[] (callsite-incompatible-with-new-signature).",
		schema: `{"type":"object","additionalProperties":false,"required":["symbol"],"properties":{
 "symbol":{"type":"string"},"parameters":{"type":"array","items":{"type":"object"}},
 "returnType":{"type":"string"},"pure":{"type":"boolean"},"dryRun":{"type":"boolean"}}}`,
		guide: &mcp.Guide{
			Category:     "Refactoring",
			WhenToUse:    "Add, remove or reorder the parameters of a method or function, or change its return, everywhere at once.",
			WhenNotToUse: []string{"Adding one parameter fed from an existing expression - use ek9_introduce_parameter."},
			Details:      "New parameters need a default value expression that is passed at every call site. A call site that cannot be rewritten blocks the whole change.",
			Examples:     []mcp.Example{ex(`{"symbol":"pricing::total","parameters":[{"name":"currency","type":"String","default":"\"GBP\""}]}`, "status:applied with the call-site count in summary.")},
			ErrorCodes:   []string{"E06010"},
		},
	},
	{
		name: "ek9_surround_with", perm: permRefactor,
		desc: "Folds a contiguous line range under an if / if-else / try-catch / try-catch-finally / for-range / while head, re-indenting the block per EK9's brace-free rules; answers status and edits[] (one REPLACE carrying the head + the re-indented lines, one DELETE per absorbed line).",
		schema: `{"type":"object","additionalProperties":false,"required":["path","startLine","endLine","construct"],"properties":{
 "path":{"type":"string"},"startLine":{"type":"integer"},"endLine":{"type":"integer"},
 "construct":{"type":"string","enum":["if","if-else","try-catch","try-catch-finally","for-range","while"]},
 "condition":{"type":"string"}}}`,
		guide: &mcp.Guide{
			Category:  "Refactoring",
			WhenToUse: "Put existing lines under a new control head (a guard, a loop, exception handling).",
			Details:   "The condition is inserted as given; the block is re-indented one level.",
			Examples:  []mcp.Example{ex(`{"path":"io/reader.ek9","startLine":12,"endLine":18,"construct":"try-catch"}`, "status:applied, one REPLACE with the try head.")},
		},
	},
	{
		name: "ek9_introduce_parameter", perm: permRefactor,
		desc: "Appends a new parameter to the enclosing method/function, replaces the selected in-body expression with it and passes the ORIGINAL expression at every call site (Fowler \"Introduce Parameter\"); answers status, edits[] and conflicts[] (value-expression-not-a-single-expression, type-not-inferable, ...).",
		schema: `{"type":"object","additionalProperties":false,"required":["path","line","expression","parameterName"],"properties":{
 "path":{"type":"string"},"line":{"type":"integer"},"expression":{"type":"string"},"parameterName":{"type":"string"}}}`,
		guide: &mcp.Guide{
			Category:  "Refactoring",
			WhenToUse: "Turn a hard-coded value inside a body into a parameter the callers supply.",
		},
	},
	{
		name: "ek9_insert_statements", perm: permEdit,
		desc: "Splices EK9 statement(s) into a named method/function/operator body at anchor top, bottom, replace or a body line, re-indented by the tool; answers status, edits[] (one INSERT), insertedLineRange and resultingBodySnippet, or error.problems[] naming the entry that does not parse.",
		schema: `{"type":"object","additionalProperties":false,"required":["symbol","statements"],"properties":{
 "symbol":{"type":"string"},"statements":{"type":"array","items":{"type":"string"}},
 "anchor":{"type":"string","enum":["top","bottom","replace","line"]},"line":{"type":"integer"}}}`,
		guide: &mcp.Guide{
			Category:  "Editing",
			WhenToUse: "Add code to a body by symbol name without counting lines or indenting by hand.",
			Examples:  []mcp.Example{ex(`{"symbol":"Orders::place","statements":["audit.record(order)"],"anchor":"bottom"}`, "status:applied, insertedLineRange [51,51].")},
		},
	},
	{
		name: "ek9_edit_file", perm: permEdit, title: "Edit file",
		desc: "Answers first: status (applied | ready | would-fail | conflicts), written, edits[{file, startLine, endLine, before, after}], wouldBeDiagnostics from the verifying compile and contentHash on an applied edit - an atomic batch of text edits to one file, or to several as one apply.",
		schema: `{"type":"object","additionalProperties":false,"required":["path"],"properties":{
 "path":{"type":"string","description":"File to edit."},
 "edits":{"type":"array","items":{"type":"object","properties":{"mode":{"type":"string","enum":["find-replace","regex-replace","line-range"]}}}},
 "dryRun":{"type":"boolean"},"expectedHash":{"type":"string"},
 "mode":{"type":"string","enum":["apply","verify"]},` + overlaySchema + `}}`,
		guide: &mcp.Guide{
			Category:     "Editing",
			WhenToUse:    "Text edits that no structured tool covers: find-replace, regex-replace or line ranges, in EK9 and non-EK9 files.",
			WhenNotToUse: []string{"Renaming a symbol - use ek9_rename_symbol.", "Adding statements to a body - use ek9_insert_statements."},
			Details:      "A batch applies all edits or none; expectedOccurrences guards against matching more than intended. EK9 files are compile-checked before writing.",
			Examples: []mcp.Example{
				ex(`{"path":"orders/constants.ek9","edits":[{"mode":"find-replace","find":"MAX_RETRIES <- 5","replace":"MAX_RETRIES <- 10"}],"dryRun":true}`, "status:ready (default expectedOccurrences=1 verifies exactly one match)."),
				ex(`{"path":"notes.md","edits":[{"mode":"regex-replace","pattern":"// TODO\\(.*?\\): ","replace":"// TODO: ","expectedOccurrences":"all"}]}`, "status:applied with a non-ek9-file-not-compile-checked advisory."),
			},
		},
	},
	{
		name: "ek9_add_field", perm: permEdit,
		desc: "Inserts the field declaration at the construct's canonical field position; answers status, edits[] and summary, a clashing name as conflicts[] (name-collision).",
		schema: `{"type":"object","additionalProperties":false,"required":["symbol"],"properties":{
 "symbol":{"type":"string"},"fieldName":{"type":"string"},"defaultValue":{"type":"string"},
 "rawDeclaration":{"type":"string"},"dryRun":{"type":"boolean"},` + overlaySchema + `}}`,
		guide: &mcp.Guide{
			Category:  "Code generation",
			WhenToUse: "Give a class, record or component a new field.",
			Details:   "Two forms: structured (fieldName + defaultValue; defaultValue REQUIRED for records) or raw (rawDeclaration as typed). Visibility is genus-fixed.",
			Examples: []mcp.Example{
				ex(`{"symbol":"CustomerOrder","fieldName":"cachedTotal","defaultValue":"Money(\"0\")","dryRun":true}`, "status:ready, one INSERT."),
				ex(`{"symbol":"CustomerOrder","rawDeclaration":"logger as Logger!"}`, "status:applied; the ! suffix marks the field for injection."),
			},
		},
	},
	{
		name: "ek9_add_constructor", perm: permEdit,
		desc: "Generates a constructor for a class or record from chosen fields; answers status and edits[].",
		schema: `{"type":"object","required":["symbol"],"properties":{"symbol":{"type":"string"},"fields":{"type":"array","items":{"type":"string"}},
 "visibility":{"type":"string","enum":["public","private"]}}}`,
		guide: &mcp.Guide{
			Category:   "Code generation",
			WhenToUse:  "A construct needs an explicit constructor, e.g. to stop a public no-argument constructor building a partial object.",
			ErrorCodes: []string{"E07175", "E07170"},
		},
	},
	{
		name: "ek9_apply_quick_fix", perm: permEdit,
		desc:   "Applies the compiler's suggested fix for one diagnostic at a file and line; answers status and edits[].",
		schema: `{"type":"object","required":["path","line","code"],"properties":{"path":{"type":"string"},"line":{"type":"integer"},"code":{"type":"string"}}}`,
		guide: &mcp.Guide{
			Category:   "Diagnostics",
			WhenToUse:  "A diagnostic has a mechanical fix the compiler can apply itself.",
			ErrorCodes: []string{"E07175", "E11066", "W02001"},
		},
	},
	{
		name: "ek9_rename_symbol", perm: permRefactor,
		desc:   "Renames a type, function, method, field or variable and every reference to it across the project; answers status, edits[] and the reference count, a clash as conflicts[].",
		schema: `{"type":"object","required":["symbol","newName"],"properties":{"symbol":{"type":"string"},"newName":{"type":"string"},"dryRun":{"type":"boolean"}}}`,
		guide: &mcp.Guide{
			Category:   "Refactoring",
			WhenToUse:  "Give any named thing a new name everywhere it is used.",
			ErrorCodes: []string{"E03030"},
		},
	},
	{
		name: "ek9_inline_variable", perm: permRefactor,
		desc:   "Replaces every use of a local variable with its initialiser and removes the declaration; answers status and edits[].",
		schema: `{"type":"object","required":["path","line","variable"],"properties":{"path":{"type":"string"},"line":{"type":"integer"},"variable":{"type":"string"}}}`,
		guide:  &mcp.Guide{Category: "Refactoring", WhenToUse: "A local variable adds nothing over the expression it holds."},
	},
	{
		name: "ek9_introduce_variable", perm: permRefactor,
		desc:   "Names an expression: declares a local variable initialised with it just before the statement and replaces the expression (and, optionally, its duplicates) with the variable; answers status and edits[].",
		schema: `{"type":"object","required":["path","line","expression","variableName"],"properties":{"path":{"type":"string"},"line":{"type":"integer"},"expression":{"type":"string"},"variableName":{"type":"string"},"allOccurrences":{"type":"boolean"}}}`,
		guide:  &mcp.Guide{Category: "Refactoring", WhenToUse: "A long or repeated expression deserves a name."},
	},
	{
		name: "ek9_find_symbol", title: "Find symbol",
		desc:   "Finds classes, records, traits, functions and methods by name or name pattern across the project and its dependencies; answers matches[] with kind, module, file and line.",
		schema: `{"type":"object","required":["query"],"properties":{"query":{"type":"string"},"kind":{"type":"string","enum":["class","record","trait","function","method","any"]},"limit":{"type":"integer","minimum":1,"maximum":100}}}`,
		guide: &mcp.Guide{
			Category:  "Navigation",
			WhenToUse: "Find a class, function or method by name when you do not know its file.",
			Examples:  []mcp.Example{ex(`{"query":"CustomerOrder","kind":"class"}`, "one match with its file and line.")},
		},
	},
	{
		name:   "ek9_find_references",
		desc:   "Lists every reference to a symbol (calls, type uses, field reads and writes) with file, line and enclosing construct.",
		schema: `{"type":"object","required":["symbol"],"properties":{"symbol":{"type":"string"},"limit":{"type":"integer"}}}`,
		guide:  &mcp.Guide{Category: "Navigation", WhenToUse: "Who calls this method, who uses this type, before changing it."},
	},
	{
		name: "ek9_explain_error", perm: permDiag,
		desc:   "Explains a compiler error or warning code: what it means, a minimal example that triggers it and how to fix it.",
		schema: `{"type":"object","required":["code"],"properties":{"code":{"type":"string"}}}`,
		guide: &mcp.Guide{
			Category:     "Diagnostics",
			WhenToUse:    "Understand an error code before fixing it.",
			WhenNotToUse: []string{"The tool that fixes it - use the enquiry tool with errorCode."},
		},
	},
	{
		name: "ek9_add_reference", perm: permEdit,
		desc:   "Adds a references line for a symbol defined in another module so that it resolves; answers status and edits[].",
		schema: `{"type":"object","required":["path","symbol"],"properties":{"path":{"type":"string"},"symbol":{"type":"string"}}}`,
		guide: &mcp.Guide{
			Category:   "Editing",
			WhenToUse:  "A symbol from another module does not resolve.",
			ErrorCodes: []string{"E50001"},
		},
	},
	{
		name: "ek9_run_tests", perm: permBuild,
		desc:   "Runs the project's tests, or those matching a pattern, and answers passed, failed and the failures with their output.",
		schema: `{"type":"object","properties":{"pattern":{"type":"string"}}}`,
	},
	{
		name: "ek9_format_file", perm: permEdit,
		desc:   "Re-indents and normalises the layout of one EK9 source file.",
		schema: `{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}`,
	},
}

// newFixture builds one raw tool; its Execute is never the point of the tests.
func newFixture(t testing.TB, f fixture) mcp.Tool {
	t.Helper()
	s, err := mcp.ParseSchema([]byte(f.schema))
	if err != nil {
		t.Fatalf("%s: %v", f.name, err)
	}
	return mcp.NewRawTool(mcp.ToolInfo{Name: f.name, Title: f.title, Description: f.desc, Permission: f.perm,
		InputSchema: s, Guide: f.guide}, func(context.Context, *mcp.Request) (*mcp.Result, error) {
		return mcp.TextResult("ok"), nil
	})
}

// ek9Set returns a ToolSet with the fixtures whose names keep says yes to
// (all when keep is nil) and the enquiry tools with prefix "ek9".
func ek9Set(t testing.TB, az mcp.Authorizer, keep func(string) bool) *mcp.ToolSet {
	t.Helper()
	ts := mcp.NewToolSet()
	for _, f := range ek9Fixtures {
		if keep == nil || keep(f.name) {
			if err := ts.Register(newFixture(t, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := Register(ts, &Options{Prefix: "ek9"}); err != nil {
		t.Fatal(err)
	}
	return ts
}
