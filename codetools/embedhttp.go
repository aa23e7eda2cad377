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
// Its fields are read on every call; set them before the first.
type HTTPEmbedder struct {
	// URL is the endpoint, such as https://api.openai.com/v1/embeddings.
	URL string
	// Model names the model, as the endpoint expects it.
	Model string
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

// EmbedderName implements NamedEmbedder: the model.
func (h *HTTPEmbedder) EmbedderName() string { return h.Model }

// Embed implements Embedder.
func (h *HTTPEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if h.URL == "" {
		return nil, errors.New("HTTPEmbedder has no URL")
	}
	body, err := json.Marshal(struct {
		Model string   `json:"model,omitempty"`
		Input []string `json:"input"`
	}{h.Model, texts})
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
