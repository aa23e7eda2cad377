// Command staticembed-serve serves a static embedding table over the
// OpenAI embeddings API (POST /v1/embeddings with a JSON body
// {"input": [texts]}, answered {"data": [{"index": i, "embedding": [...]}]}),
// so that programs that speak that API, such as codetools.HTTPEmbedder in
// an evaluation, can use a table without linking it:
//
//	staticembed-serve -table table.semb -addr 127.0.0.1:8431
//
// It listens on loopback by default, prints the address it listens on as
// its first line of output, and answers at most 256 texts of at most
// 16 KiB each per request.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/embedmcp/mcp/staticembed"
)

const (
	maxTexts     = 256
	maxTextBytes = 16 << 10
	maxBody      = 8 << 20
)

func main() {
	table := flag.String("table", "", "table `file` written by the embedtable tooling")
	addr := flag.String("addr", "127.0.0.1:0", "listen `address`")
	flag.Parse()
	if *table == "" {
		log.Fatal("staticembed-serve: -table is required")
	}
	data, err := os.ReadFile(*table)
	if err != nil {
		log.Fatal(err)
	}
	t, err := staticembed.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/v1/embeddings %s %d tokens %d dimensions\n", ln.Addr(), t.EmbedderName(), t.Len(), t.Dims())
	mux := http.NewServeMux()
	mux.Handle("POST /v1/embeddings", handler(t))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

// handler answers embeddings requests with the table.
func handler(t *staticembed.Table) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input json.RawMessage `json:"input"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&req); err != nil {
			http.Error(w, "the body is not a JSON object of at most 8 MiB", http.StatusBadRequest)
			return
		}
		texts, err := inputs(req.Input)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		vecs, err := t.Embed(r.Context(), texts)
		if err != nil {
			http.Error(w, "embedding failed", http.StatusServiceUnavailable)
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		ans := struct {
			Object string `json:"object"`
			Model  string `json:"model"`
			Data   []item `json:"data"`
		}{Object: "list", Model: t.EmbedderName()}
		for i, v := range vecs {
			ans.Data = append(ans.Data, item{"embedding", i, v})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ans)
	})
}

// inputs reads the input of a request: a string or an array of strings.
func inputs(raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		raw, _ = json.Marshal([]string{one})
	}
	var texts []string
	if err := json.Unmarshal(raw, &texts); err != nil || len(texts) == 0 {
		return nil, errors.New("input must be a string or a non-empty array of strings")
	}
	if len(texts) > maxTexts {
		return nil, fmt.Errorf("input has more than %d texts", maxTexts)
	}
	for _, s := range texts {
		if len(s) > maxTextBytes {
			return nil, fmt.Errorf("a text is longer than %d bytes", maxTextBytes)
		}
	}
	return texts, nil
}
