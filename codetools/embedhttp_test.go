package codetools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// embeddingsServer serves the embeddings endpoint of OpenAI's form with
// the vectors of fake, answering the texts in reverse order (with their
// indices), as an endpoint may; it records the last request.
func embeddingsServer(t *testing.T, fake *fakeEmbedder) (*httptest.Server, *http.Request, *[]byte) {
	t.Helper()
	last := new(http.Request)
	body := new([]byte)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*last = *r.Clone(context.Background())
		var in struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		dec := json.NewDecoder(r.Body)
		if err := dec.Decode(&in); err != nil || r.Method != http.MethodPost {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		*body, _ = json.Marshal(in)
		vecs, _ := fake.Embed(r.Context(), in.Input)
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
			Model  string `json:"model"`
		}{Object: "list", Model: in.Model}
		for i := len(vecs) - 1; i >= 0; i-- {
			out.Data = append(out.Data, item{"embedding", i, vecs[i]})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, last, body
}

// An HTTPEmbedder sends the model, the texts and the key, and returns the
// vectors in the order of the texts; through it, a catalog reranks as
// with any Embedder.
func TestHTTPEmbedder(t *testing.T) {
	const q = "serves a request handler"
	plain := rankedCatalog(t)
	words := ids(searchOK(t, plain, SearchQuery{Query: q}))
	if len(words) < 3 {
		t.Fatalf("%q: %q", q, words)
	}
	last := words[len(words)-1]
	x, _ := plain.index(ctx)
	i, _ := x.ExactID(last)
	fake := &fakeEmbedder{query: q, target: search.EmbedText(&x.Entries[i], x.DocOf(i))}
	srv, req, body := embeddingsServer(t, fake)
	em := &HTTPEmbedder{URL: srv.URL + "/v1/embeddings", Model: "test-model", APIKey: "k3y", Client: srv.Client()}

	vecs, err := em.Embed(ctx, []string{search.EmbedText(&x.Entries[i], x.DocOf(i)), "other", "another"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 0}, {0, 1}, {0, 1}}
	if len(vecs) != 3 || !slices.Equal(vecs[0], want[0]) || !slices.Equal(vecs[1], want[1]) || !slices.Equal(vecs[2], want[2]) {
		t.Errorf("vectors %v, want %v (in the texts' order)", vecs, want)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer k3y" {
		t.Errorf("Authorization %q", got)
	}
	if got := req.Header.Get("Content-Type"); got != "application/json" || req.URL.Path != "/v1/embeddings" {
		t.Errorf("Content-Type %q, path %q", got, req.URL.Path)
	}
	var sent struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.Unmarshal(*body, &sent); err != nil || sent.Model != "test-model" ||
		!slices.Equal(sent.Input, []string{search.EmbedText(&x.Entries[i], x.DocOf(i)), "other", "another"}) {
		t.Errorf("request %s (%v)", *body, err)
	}

	c := rankedCatalog(t)
	c.opts.Embedder = em
	got := ids(searchOK(t, c, SearchQuery{Query: q}))
	if !raised(got, words) {
		t.Errorf("fused %q, want %s raised above its rank by words in %q", got, last, words)
	}
}

// Every answer that is not one vector per text is an error that says
// what is wrong, as is a status other than 200; the search then ranks by
// words and its note says why.
func TestHTTPEmbedderErrors(t *testing.T) {
	answer := func(status int, body string) *HTTPEmbedder {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return &HTTPEmbedder{URL: srv.URL, Client: srv.Client()}
	}
	texts := []string{"a", "b"}
	for _, tc := range []struct {
		name, body string
		want       string
	}{
		{"not JSON", `<html>`, "malformed embeddings answer"},
		{"too few", `{"data":[{"index":0,"embedding":[1,0]}]}`, "1 vectors for 2 texts"},
		{"index out of range", `{"data":[{"index":0,"embedding":[1]},{"index":2,"embedding":[1]}]}`, "index 2 out of range 0..1"},
		{"index twice", `{"data":[{"index":1,"embedding":[1]},{"index":1,"embedding":[1]}]}`, "index 1 given twice"},
		{"lengths differ", `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1]}]}`, "lengths 2 and 1"},
		{"empty vector", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`, "empty vector at index 0"},
		{"out of float32", `{"data":[{"index":0,"embedding":[1e39]},{"index":1,"embedding":[1]}]}`, "out of range at index 0"},
	} {
		_, err := answer(http.StatusOK, tc.body).Embed(ctx, texts)
		if !errors.Is(err, ErrEmbedResponse) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrEmbedResponse saying %q", tc.name, err, tc.want)
		}
	}

	// Without indices the vectors are taken in order.
	vecs, err := answer(http.StatusOK, `{"data":[{"embedding":[1,0]},{"embedding":[0,1]}]}`).Embed(ctx, texts)
	if err != nil || len(vecs) != 2 || vecs[1][1] != 1 {
		t.Errorf("without indices: %v, %v", vecs, err)
	}

	// A status other than 200: its code and a bounded excerpt of its body.
	_, err = answer(http.StatusUnauthorized, `{"error":"invalid key"}`+strings.Repeat("x", 10000)).Embed(ctx, texts)
	var se *EmbedStatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(se.Body, `{"error":"invalid key"}`) || len(se.Body) > index.MaxEcho+8 {
		t.Errorf("401: %v", err)
	}

	// An answer over the bound is refused.
	long := answer(http.StatusOK, `{"data":[`+strings.Repeat(" ", 200)+`]}`)
	long.MaxResponseBytes = 100
	if _, err := long.Embed(ctx, texts); !errors.Is(err, ErrEmbedResponse) || !strings.Contains(err.Error(), "longer than 100 bytes") {
		t.Errorf("long answer: %v", err)
	}

	// No URL, and an ended context.
	if _, err := (&HTTPEmbedder{}).Embed(ctx, texts); err == nil || !strings.Contains(err.Error(), "no URL") {
		t.Errorf("no URL: %v", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := answer(http.StatusOK, `{}`).Embed(done, texts); !errors.Is(err, context.Canceled) {
		t.Errorf("ended context: %v", err)
	}

	// In a search, the failure is in the note and the order is by words.
	const q = "serves a request handler"
	words := ids(searchOK(t, rankedCatalog(t), SearchQuery{Query: q}))
	c := rankedCatalog(t)
	c.opts.Embedder = answer(http.StatusServiceUnavailable, "model loading")
	res := searchOK(t, c, SearchQuery{Query: q})
	if !slices.Equal(ids(res), words) || !strings.Contains(res.Note, "503 Service Unavailable: model loading") {
		t.Errorf("503: %q, note %q", ids(res), res.Note)
	}
}

// modeServer serves the embeddings endpoint of OpenAI's form as a model
// trained for asymmetric retrieval would: the query q points toward the
// declaration text target only when q is sent as a query (model
// e5-query, "query: " before it) and target as a document (model
// e5-passage, "passage: " before it); every other text, and these sent
// the other way, point elsewhere. It counts the texts by model and
// prefix.
func modeServer(t *testing.T, q, target string) (*httptest.Server, func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	counts := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		mu.Lock()
		for i, s := range in.Input {
			mode := "no prefix"
			for _, p := range []string{"query: ", "passage: "} {
				if strings.HasPrefix(s, p) {
					mode = p
				}
			}
			counts[in.Model+", "+mode]++
			v := []float32{0, 1}
			if in.Model == "e5-query" && s == "query: "+q || in.Model == "e5-passage" && s == "passage: "+target {
				v = []float32{1, 0}
			}
			out.Data = append(out.Data, item{i, v})
		}
		mu.Unlock()
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		got := maps.Clone(counts)
		clear(counts)
		return got
	}
}

// An HTTPEmbedder with a document model and prefixes embeds queries with
// Model and QueryPrefix and the declarations with DocumentModel and
// DocumentPrefix: on demand, in WriteVectors, and its name records both,
// so that vectors written one way are not used by an HTTPEmbedder that
// embeds otherwise.
func TestHTTPEmbedderQueryAndDocument(t *testing.T) {
	q, words, target, fsys := rerankCase(t)
	srv, counts := modeServer(t, q, target)
	em := &HTTPEmbedder{URL: srv.URL, Client: srv.Client(), Model: "e5-query", DocumentModel: "e5-passage",
		QueryPrefix: "query: ", DocumentPrefix: "passage: "}
	const name = `e5-query; queries "query: "; documents e5-passage; documents "passage: "`
	if got := em.EmbedderName(); got != name {
		t.Errorf("EmbedderName %q, want %q", got, name)
	}
	if got := (&HTTPEmbedder{Model: "m", DocumentModel: "m"}).EmbedderName(); got != "m" {
		t.Errorf("EmbedderName of one model both ways: %q, want m", got)
	}

	// On demand: the query as a query, every declaration as a document.
	lazy := rankedCatalog(t)
	lazy.opts.Embedder = em
	got := ids(searchOK(t, lazy, SearchQuery{Query: q}))
	if !raised(got, words) {
		t.Errorf("on demand: %q, want %s raised above its rank by words in %q", got, words[len(words)-1], words)
	}
	if c := counts(); len(c) != 2 || c["e5-query, query: "] != 1 || c["e5-passage, passage: "] < 5 {
		t.Errorf("on demand: texts by model and prefix %v, want the query by e5-query, the declarations by e5-passage", c)
	}

	// Precomputed: WriteVectors embeds documents only, the search only its
	// query.
	var buf bytes.Buffer
	n, err := WriteVectors(ctx, &buf, fsys, em)
	if err != nil {
		t.Fatal(err)
	}
	if c := counts(); len(c) != 1 || c["e5-passage, passage: "] != n {
		t.Errorf("WriteVectors: texts by model and prefix %v, want all %d by e5-passage", c, n)
	}
	if !bytes.Contains(buf.Bytes(), []byte(name)) {
		t.Errorf("the vectors file does not record %s", name)
	}
	pre := rankedCatalog(t)
	pre.opts.Snapshot = withVectors(fsys, buf.Bytes())
	pre.opts.Embedder = em
	res := searchOK(t, pre, SearchQuery{Query: q})
	if !slices.Equal(ids(res), got) || res.Note != "" {
		t.Errorf("precomputed: %q (note %q), want %q", ids(res), res.Note, got)
	}
	if c := counts(); len(c) != 1 || c["e5-query, query: "] != 1 {
		t.Errorf("precomputed: texts by model and prefix %v, want the query alone, by e5-query", c)
	}

	// Documents embedded in query mode are not used by an Embedder that
	// embeds them as passages.
	var queryMode bytes.Buffer
	if _, err := WriteVectors(ctx, &queryMode, fsys, &HTTPEmbedder{URL: srv.URL, Client: srv.Client(), Model: "e5-query"}); err != nil {
		t.Fatal(err)
	}
	counts()
	old := rankedCatalog(t)
	old.opts.Snapshot = withVectors(fsys, queryMode.Bytes())
	old.opts.Embedder = em
	if res := searchOK(t, old, SearchQuery{Query: q}); !slices.Equal(ids(res), got) ||
		!strings.Contains(res.Note, "precomputed vectors not used: they are of model e5-query, the embedder's is e5-query; queries") {
		t.Errorf("query-mode vectors: %q (note %q), want %q and a note", ids(res), res.Note, got)
	}
}
