package codetools_test

import (
	"context"
	"fmt"
	"log"

	"github.com/embedmcp/mcp/codetools"
)

// A catalog of the running binary alone (no snapshot), warmed at
// start-up, answers code_definition for a function of this program.
func ExampleCatalog_Warm() {
	catalog := codetools.NewCatalog(&codetools.Options{
		// Only this module's packages, as mcpsnapshot -exclude would.
		Packages: &codetools.Selection{Exclude: []string{"github.com/google/..."}},
	})
	stats, err := catalog.Warm(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("entries built:", stats.Entries > 0)

	d, err := catalog.Definition(context.Background(), codetools.DefinitionQuery{Name: "github.com/embedmcp/mcp/codetools.NewCatalog"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Kind, d.Source, d.Linked, d.Consistency.Status)
	// Output:
	// entries built: true
	// func runtime true unverified
}
