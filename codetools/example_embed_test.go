package codetools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/embedmcp/mcp/codetools"
)

// An HTTPEmbedder calls an embeddings endpoint of OpenAI's form, as
// Ollama or llama.cpp's server serve for a local model; here a stand-in
// endpoint answers two numbers per text. Options.Embedder takes it.
func ExampleHTTPEmbedder() {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var out strings.Builder
		out.WriteString(`{"data":[`)
		for i, text := range in.Input {
			if i > 0 {
				out.WriteByte(',')
			}
			fmt.Fprintf(&out, `{"index":%d,"embedding":[%d,1]}`, i, len(text))
		}
		out.WriteString(`]}`)
		w.Write([]byte(out.String()))
	}))
	defer endpoint.Close()

	em := &codetools.HTTPEmbedder{URL: endpoint.URL + "/v1/embeddings", Model: "nomic-embed-text"}
	vecs, err := em.Embed(context.Background(), []string{"close idle connections", "Server.IdleTimeout"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(vecs)
	_ = codetools.NewCatalog(&codetools.Options{Embedder: em})
	// Output: [[22 1] [18 1]]
}
