// Package embedcheck checks a real embeddings server through
// codetools.HTTPEmbedder: scripts/test.d/embed-server.sh starts one on
// loopback and names it in SEARCHEVAL_EMBED_URL (the model in
// SEARCHEVAL_EMBED_MODEL, the model of documents, when the server
// embeds them otherwise, in SEARCHEVAL_EMBED_DOCUMENT_MODEL); without it
// the test is skipped.
package embedcheck

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

	"github.com/embedmcp/mcp/codetools"
)

// triples are a question, a paraphrase of it sharing few words, and an
// unrelated text about code.
var triples = [][3]string{
	{"how do I close a session", "end the connection when the client is done", "parse the header of a DNS message"},
	{"the request body is too large", "reject uploads over the size limit", "list the keys that expire soonest"},
	{"wait before trying again after a failure", "retry with exponential backoff", "encode a string as base64"},
	{"check the user's password", "authenticate a client with its credentials", "render the page as HTML"},
	{"store the data on disk", "write the records to a file and sync it", "the colour of the button"},
}

func TestHTTPEmbedderRanksParaphrases(t *testing.T) {
	url := os.Getenv("SEARCHEVAL_EMBED_URL")
	if url == "" {
		t.Skip("SEARCHEVAL_EMBED_URL names no embeddings server")
	}
	em := &codetools.HTTPEmbedder{URL: url, Model: os.Getenv("SEARCHEVAL_EMBED_MODEL"),
		DocumentModel: os.Getenv("SEARCHEVAL_EMBED_DOCUMENT_MODEL")}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The questions are queries, the paraphrases and the unrelated texts
	// documents, as code_search embeds them.
	var queries, docs []string
	for _, tr := range triples {
		queries = append(queries, tr[0])
		docs = append(docs, tr[1], tr[2])
	}
	t0 := time.Now()
	qv, err := em.Embed(ctx, queries)
	if err != nil {
		t.Fatal(err)
	}
	dv, err := em.EmbedDocuments(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d texts embedded in %v, %d dimensions", len(queries)+len(docs), time.Since(t0).Round(time.Millisecond), len(qv[0]))
	for i, tr := range triples {
		q, p, u := qv[i], dv[2*i], dv[2*i+1]
		near, far := cosine(q, p), cosine(q, u)
		t.Logf("%.3f paraphrase, %.3f unrelated: %q", near, far, tr[0])
		if near <= far {
			t.Errorf("%q: cosine to %q %.3f, not above %.3f to %q", tr[0], tr[1], near, far, tr[2])
		}
	}
	// One query at a time, as a search embeds it.
	t0 = time.Now()
	const n = 20
	for range n {
		if _, err := em.Embed(ctx, queries[:1]); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("one query: %v each over HTTP", (time.Since(t0) / n).Round(time.Microsecond))
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}
