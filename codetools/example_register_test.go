package codetools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools"
)

// Register adds code_search, code_definition, code_references and
// code_file to a ToolSet; a caller granted codetools.Permission uses them.
// Without a snapshot (Options.Snapshot, written by mcpsnapshot) the catalog
// holds what the running binary's function table tells.
func ExampleRegister() {
	catalog := codetools.NewCatalog(&codetools.Options{Server: "example"})
	tools := mcp.NewToolSet()
	if err := codetools.Register(tools, catalog); err != nil {
		log.Fatal(err)
	}
	for tool := range tools.All() {
		fmt.Println(tool.Info().Name, tool.Info().Permission)
	}

	server := mcp.NewServer(tools, mcp.GrantsAuthorizer{}, nil)
	caller := mcp.Caller{Principal: "dev", Grants: []string{codetools.Permission}}
	res, err := server.CallTool(context.Background(), mcp.NewRequest(caller, codetools.DefinitionToolName,
		json.RawMessage(`{"name":"codetools.NewCatalog"}`)))
	if err != nil {
		log.Fatal(err)
	}
	var def codetools.Definition
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &def); err != nil {
		log.Fatal(err)
	}
	fmt.Println(def.Name, def.Kind, def.Linked)
	// Output:
	// code_definition diagnostics.code.read
	// code_file diagnostics.code.read
	// code_references diagnostics.code.read
	// code_search diagnostics.code.read
	// github.com/embedmcp/mcp/codetools.NewCatalog func true
}

// hello serves GET /hello/{name}.
func hello(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "hello, %s\n", r.PathValue("name"))
}

// A ServeMux serves like an http.ServeMux and tells the catalog its
// routes, so that code_search answers a request path with its handler.
func ExampleNewServeMux() {
	catalog := codetools.NewCatalog(nil)
	mux := codetools.NewServeMux(catalog, nil)
	mux.HandleFunc("GET /hello/{name}", hello)

	res, err := catalog.Search(context.Background(), codetools.SearchQuery{Query: "GET /hello/ann"})
	if err != nil {
		log.Fatal(err)
	}
	for _, hit := range res.Results {
		fmt.Println(res.Match, hit.Route, hit.Name)
	}
	// Output:
	// route GET /hello/{name} github.com/embedmcp/mcp/codetools_test.hello
}
