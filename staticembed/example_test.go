package staticembed_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/staticembed"
)

// A host loads a table, usually from an embed.FS compiled into its
// binary, and gives it to codetools as the Embedder of code_search.
func Example() {
	table, err := staticembed.Load(os.DirFS("testdata"), "tiny.semb")
	if err != nil {
		log.Fatal(err)
	}
	catalog := codetools.NewCatalog(&codetools.Options{Embedder: table})
	defer catalog.Close()

	fmt.Println(table.Tokens("The server's sessions."))
	v, err := table.Embed(context.Background(), []string{"close the session"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(v[0]), "dimensions")
	// Output:
	// [the server [UNK] s session ##s .]
	// 8 dimensions
}
