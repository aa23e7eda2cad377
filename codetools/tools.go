package codetools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/embedmcp/mcp"
)

// Tools returns the code_search and code_definition tools over c, with
// their names, input schemas and permission (SearchToolName,
// SearchInputSchema, ..., Permission). The server field
// of their answers is the caller's selected server when it has one.
//
// The tools reveal the service's code, including every registered tool's
// description and schemas: grant Permission only to callers who may see all
// of it.
func Tools(c *Catalog) ([]mcp.Tool, error) {
	searchSchema, err := mcp.ParseSchema([]byte(SearchInputSchema))
	if err != nil {
		return nil, err
	}
	defSchema, err := mcp.ParseSchema([]byte(DefinitionInputSchema))
	if err != nil {
		return nil, err
	}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false),
		IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	search, err := mcp.NewTool(mcp.ToolInfo{
		Name:         SearchToolName,
		Title:        "Search this server's code",
		Description:  SearchToolDescription,
		InputSchema:  searchSchema,
		Permission:   Permission,
		AdminSummary: "Lets an agent find functions, types, registered documentation and tools of this service by name or documentation.",
		AdminExample: `{"query":"ServeHTTP","limit":5}`,
		Annotations:  readOnly,
		Guide: &mcp.Guide{
			Category:     "Diagnostics",
			WhenToUse:    "Find the exact id of a Go function, method, type or registered tool of this server before reading it with code_definition.",
			WhenNotToUse: []string{"Reading a definition whose id you already know - use code_definition."},
			Examples: []mcp.Example{{Arguments: json.RawMessage(`{"query":"ServeHTTP","limit":5}`),
				Outcome: "results[] with exact ids such as net/http.HandlerFunc.ServeHTTP, their file:line and first doc line."}},
		},
	}, func(ctx context.Context, req *mcp.Request, q SearchQuery) (SearchResult, error) {
		res, err := c.Search(ctx, q)
		if err != nil {
			return SearchResult{}, toolError(req, err)
		}
		if req.Caller.Server != "" {
			res.Server = req.Caller.Server
		}
		return *res, nil
	})
	if err != nil {
		return nil, err
	}
	definition, err := mcp.NewTool(mcp.ToolInfo{
		Name:         DefinitionToolName,
		Title:        "Read a definition of this server's code",
		Description:  DefinitionToolDescription,
		InputSchema:  defSchema,
		Permission:   Permission,
		AdminSummary: "Lets an agent read the source, documentation and build provenance of one declaration of this service.",
		AdminExample: `{"name":"net/http.(*ServeMux).ServeHTTP"}`,
		Annotations:  readOnly,
		Guide: &mcp.Guide{
			Category:     "Diagnostics",
			WhenToUse:    "Read the source, documentation, file:line and build provenance of an exact id from code_search, a Go stack trace or a pprof profile.",
			WhenNotToUse: []string{"Finding ids by a word or fragment - use code_search."},
			Details:      "Long definitions come in chunks of maxCharacters characters: follow nextArguments while more is true. consistency says whether the embedded source matches the running binary.",
			Examples: []mcp.Example{{Arguments: json.RawMessage(`{"name":"main.main"}`),
				Outcome: "definition chunk, sha256, sourceFile, linked:true and consistency of the snapshot with the binary."}},
		},
	}, func(ctx context.Context, req *mcp.Request, q DefinitionQuery) (Definition, error) {
		d, err := c.Definition(ctx, q)
		if err != nil {
			return Definition{}, toolError(req, err)
		}
		if req.Caller.Server != "" {
			d.Server = req.Caller.Server
		}
		return *d, nil
	})
	if err != nil {
		return nil, err
	}
	return []mcp.Tool{search, definition}, nil
}

// toolError maps catalog errors: invalid arguments become an
// *mcp.ArgumentError (a correctable call); anything else, an unknown name
// among them, stays an ordinary error, which the client sees as an isError
// result with the message.
func toolError(req *mcp.Request, err error) error {
	if errors.Is(err, ErrInvalidArgument) {
		return &mcp.ArgumentError{Tool: req.Name, Msg: err.Error()}
	}
	return err
}

// Register adds the code tools to ts and keeps the catalog's registered
// tool entries in step with ts: every tool of ts, whoever may call it, can
// be found with code_search as "tool:<name>".
func Register(ts *mcp.ToolSet, c *Catalog) error {
	tools, err := Tools(c)
	if err != nil {
		return err
	}
	if err := ts.Register(tools...); err != nil {
		return err
	}
	// Watch first, then read: no change can fall in between.
	sync := func() { c.SetTools(ToolDocs(slices.Collect(ts.All()))) }
	ts.Watch(sync)
	sync()
	return nil
}

// ToolDocs describes tools for Catalog.SetTools.
func ToolDocs(tools []mcp.Tool) []ToolDoc {
	out := make([]ToolDoc, 0, len(tools))
	for _, t := range tools {
		info := t.Info()
		d := ToolDoc{Name: info.Name, Title: info.Title, Description: info.Description}
		if info.InputSchema != nil {
			d.InputSchema, _ = json.Marshal(info.InputSchema)
		}
		if info.OutputSchema != nil {
			d.OutputSchema, _ = json.Marshal(info.OutputSchema)
		}
		out = append(out, d)
	}
	return out
}
