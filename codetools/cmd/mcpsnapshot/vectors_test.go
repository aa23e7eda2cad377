package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// embeddingsEndpoint serves OpenAI-form embeddings of three dimensions,
// derived from each text's hash; it counts the texts and checks the
// model and the bearer token.
func embeddingsEndpoint(t *testing.T, texts *atomic.Int64) *httptest.Server {
	return modelsEndpoint(t, texts, nil)
}

// modelsEndpoint is embeddingsEndpoint, with the models of models
// accepted beside test-model; it counts the texts each model embeds, and
// those that start with each prefix (in the order given), in models.
func modelsEndpoint(t *testing.T, texts *atomic.Int64, models *textCounts, prefixes ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		err := json.NewDecoder(r.Body).Decode(&req)
		if err == nil && models != nil {
			models.mu.Lock()
			_, ok := models.n[req.Model]
			if ok {
				for _, s := range req.Input {
					key := req.Model
					for _, p := range prefixes {
						if strings.HasPrefix(s, p) {
							key += " " + p
							break
						}
					}
					models.n[key]++
				}
			}
			models.mu.Unlock()
			if ok {
				req.Model = "test-model"
			}
		}
		if err != nil || req.Model != "test-model" || r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unknown model or key", http.StatusBadRequest)
			return
		}
		texts.Add(int64(len(req.Input)))
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var ans struct {
			Data []item `json:"data"`
		}
		for i, s := range req.Input {
			h := fnv.New32a()
			io.WriteString(h, s)
			v := h.Sum32()
			ans.Data = append(ans.Data, item{i, []float32{float32(v & 255), float32(v >> 8 & 255), float32(v>>16&255) + 1}})
		}
		json.NewEncoder(w).Encode(ans)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// greetingMain is a main package with several declarations that a phrase
// about greetings matches.
const greetingMain = `package main

import "fmt"

// Greet returns a greeting for a name.
func Greet(name string) string { return "hello " + name }

// Farewell returns a parting greeting.
func Farewell(name string) string { return "bye " + name }

// greetAll returns a greeting for each name.
func greetAll(names []string) []string {
	var out []string
	for _, n := range names {
		out = append(out, Greet(n))
	}
	return out
}

func main() { fmt.Println(greetAll([]string{"a"}), Farewell("b")) }
`

// -embed-url and -embed-model write vectors.bin, which a catalog with an
// Embedder of that model reads; -check checks it; a run without them
// removes it.
func TestEmbedVectors(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{"go.mod": "module example.com/first\n\ngo 1.26\n", "main.go": greetingMain})
	var texts atomic.Int64
	srv := embeddingsEndpoint(t, &texts)
	t.Setenv(embedKeyEnv, "s3cret")
	t.Chdir(dir)
	args := []string{"-o", "snapshot", "-embed-url", srv.URL + "/v1/embeddings", "-embed-model", "test-model"}
	var stderr bytes.Buffer
	if code := cli(ctx, args, io.Discard, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(filepath.Join("snapshot", codesnap.VectorsName))
	if err != nil || !bytes.HasPrefix(data, []byte("embedmcp-vectors/1\n")) {
		t.Fatalf("vectors.bin: %v, %q", err, data[:min(len(data), 20)])
	}
	generated := texts.Load()
	if generated == 0 {
		t.Fatal("the endpoint embedded nothing")
	}

	// A catalog of that snapshot, with an Embedder of that model, embeds
	// only the query for a phrase about the snapshot's code.
	bi := &debug.BuildInfo{GoVersion: "go1.26", Path: "example.com/first", Main: debug.Module{Path: "example.com/first"}}
	c := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS("snapshot"), Packages: &codetools.Selection{}, BuildInfo: bi,
		Embedder: &codetools.HTTPEmbedder{URL: srv.URL + "/v1/embeddings", Model: "test-model", APIKey: "s3cret"}})
	res, err := c.Search(ctx, codetools.SearchQuery{Query: "returns a greeting", Scope: "main"})
	if err != nil || res.Note != "" || len(res.Results) < 3 {
		t.Fatalf("search: %v, note %q, %d results", err, res.Note, len(res.Results))
	}
	if d := texts.Load() - generated; d != 1 {
		t.Errorf("the search embedded %d texts, want the query alone", d)
	}

	stderr.Reset()
	if code := cli(ctx, append([]string{"-check"}, args...), io.Discard, &stderr); code != 0 {
		t.Errorf("-check with the same model: exit status %d: %s", code, stderr.String())
	}
	// Without the flags, the file goes (and -check with them says so).
	if code := cli(ctx, []string{"-o", "snapshot"}, io.Discard, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join("snapshot", codesnap.VectorsName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("vectors.bin after a run without -embed-url: %v", err)
	}
	stderr.Reset()
	if code := cli(ctx, append([]string{"-check"}, args...), io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "missing vectors.bin") {
		t.Errorf("-check without vectors.bin: exit status %d: %s", code, stderr.String())
	}
}

// Bad -embed flags and a failing endpoint are errors that say why.
func TestEmbedErrors(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{"go.mod": "module example.com/first\n\ngo 1.26\n", "main.go": embeddingMain})
	var texts atomic.Int64
	srv := embeddingsEndpoint(t, &texts)
	t.Chdir(dir)
	var stderr bytes.Buffer
	if code := cli(ctx, []string{"-embed-url", srv.URL}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "go together") {
		t.Errorf("-embed-url alone: exit status %d: %s", code, stderr.String())
	}
	stderr.Reset()
	t.Setenv(embedKeyEnv, "wrong")
	code := cli(ctx, []string{"-o", "snapshot", "-embed-url", srv.URL, "-embed-model", "test-model"}, io.Discard, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "computing vectors") || !strings.Contains(stderr.String(), "400") {
		t.Errorf("wrong key: exit status %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join("snapshot", codesnap.VectorsName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed run wrote vectors.bin: %v", err)
	}
}

// textCounts counts texts by model and prefix (modelsEndpoint); the
// models accepted are the keys n starts with.
type textCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// -embed-document-model and the prefixes embed the declarations with the
// document model, each text after its prefix; a catalog whose
// HTTPEmbedder has the same fields uses the file and embeds its query
// with the query model and prefix, and one that embeds documents
// otherwise does not use it.
func TestEmbedVectorsDocumentModel(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{"go.mod": "module example.com/first\n\ngo 1.26\n", "main.go": greetingMain})
	var texts atomic.Int64
	counts := &textCounts{n: map[string]int{"e5-query": 0, "e5-passage": 0}}
	srv := modelsEndpoint(t, &texts, counts, "query: ", "passage: ")
	url := srv.URL + "/v1/embeddings"
	t.Setenv(embedKeyEnv, "s3cret")
	t.Chdir(dir)
	args := []string{"-o", "snapshot", "-embed-url", url, "-embed-model", "e5-query", "-embed-document-model", "e5-passage",
		"-embed-query-prefix", "query: ", "-embed-document-prefix", "passage: "}
	var stderr bytes.Buffer
	if code := cli(ctx, args, io.Discard, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	counts.mu.Lock()
	gen := counts.n["e5-passage passage: "]
	if gen == 0 || int64(gen) != texts.Load() {
		t.Errorf("generating: texts by model and prefix %v, want all %d of e5-passage after \"passage: \"", counts.n, texts.Load())
	}
	clear(counts.n)
	counts.n["e5-query"], counts.n["e5-passage"] = 0, 0
	counts.mu.Unlock()
	data, err := os.ReadFile(filepath.Join("snapshot", codesnap.VectorsName))
	if err != nil {
		t.Fatal(err)
	}
	want := `e5-query; queries "query: "; documents e5-passage; documents "passage: "`
	if !bytes.Contains(data, []byte(want)) {
		t.Errorf("vectors.bin does not record %s: %q", want, data[:min(len(data), 120)])
	}

	bi := &debug.BuildInfo{GoVersion: "go1.26", Path: "example.com/first", Main: debug.Module{Path: "example.com/first"}}
	search := func(em *codetools.HTTPEmbedder) (*codetools.SearchResult, map[string]int) {
		t.Helper()
		counts.mu.Lock()
		clear(counts.n)
		counts.n["e5-query"], counts.n["e5-passage"] = 0, 0
		counts.mu.Unlock()
		c := codetools.NewCatalog(&codetools.Options{Snapshot: os.DirFS("snapshot"), Packages: &codetools.Selection{}, BuildInfo: bi, Embedder: em})
		res, err := c.Search(ctx, codetools.SearchQuery{Query: "returns a greeting", Scope: "main"})
		if err != nil || len(res.Results) < 3 {
			t.Fatalf("search: %v, %v", err, res)
		}
		counts.mu.Lock()
		defer counts.mu.Unlock()
		got := map[string]int{}
		for k, v := range counts.n {
			if v > 0 {
				got[k] = v
			}
		}
		return res, got
	}
	same := &codetools.HTTPEmbedder{URL: url, APIKey: "s3cret", Model: "e5-query", DocumentModel: "e5-passage",
		QueryPrefix: "query: ", DocumentPrefix: "passage: "}
	res, got := search(same)
	if res.Note != "" || len(got) != 1 || got["e5-query query: "] != 1 {
		t.Errorf("same fields: note %q, texts embedded %v; want the query alone, by e5-query after \"query: \"", res.Note, got)
	}
	other := *same
	other.DocumentPrefix = ""
	res, got = search(&other)
	if !strings.Contains(res.Note, "precomputed vectors not used") || got["e5-query query: "] != 1 || got["e5-passage"] == 0 {
		t.Errorf("another document prefix: note %q, texts embedded %v; want the file unused and the declarations embedded by e5-passage without a prefix", res.Note, got)
	}
	stderr.Reset()
	if code := cli(ctx, []string{"-o", "snapshot", "-embed-document-model", "e5-passage"}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "need -embed-url") {
		t.Errorf("-embed-document-model alone: exit status %d: %s", code, stderr.String())
	}
}
