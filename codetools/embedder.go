package codetools

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"io"
	"io/fs"
	"math"
)

// NamedEmbedder is an Embedder that names its model. Vectors of one model
// are comparable only with vectors of the same model: a catalog uses the
// vectors that mcpsnapshot precomputed only when its Embedder is a
// NamedEmbedder of the name the file records. The name of an Embedder
// that embeds documents otherwise than queries (DocumentEmbedder) names
// both ways, so that vectors of documents embedded one way are not
// compared with queries embedded to match another.
type NamedEmbedder interface {
	Embedder
	// EmbedderName names the model, such as "nomic-embed-text".
	EmbedderName() string
}

// DocumentEmbedder is an Embedder that embeds documents (the
// declarations' texts) otherwise than queries, as models trained for
// asymmetric retrieval expect: e5 models want "query: " before a query
// and "passage: " before a document. WriteVectors and a catalog that
// embeds declarations on demand call EmbedDocuments; a search embeds its
// query with Embed. HTTPEmbedder is one.
type DocumentEmbedder interface {
	Embedder
	// EmbedDocuments returns one vector per document text, in order, as
	// Embed does for queries.
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
}

// WriteVectors computes with em the vector of every declaration of the
// source snapshot in fsys (the text code_search embeds: the words of
// its name and type, its kind and the start of its documentation) and
// writes them to w in the form a Catalog reads from the snapshot's
// vectors.bin, under em's name. It embeds the texts as documents
// (EmbedDocuments, when em is a DocumentEmbedder), at most 31 at a time, and
// returns the number of vectors written. mcpsnapshot calls it for
// -embed-url, staticembed-vectors for a static table.
func WriteVectors(ctx context.Context, w io.Writer, fsys fs.FS, em NamedEmbedder) (int, error) {
	if em == nil {
		return 0, errors.New("WriteVectors: nil Embedder")
	}
	name := em.EmbedderName()
	if name == "" || len(name) > search.MaxVectorName {
		return 0, fmt.Errorf("WriteVectors: the Embedder's name must have 1 to %d bytes, not %d", search.MaxVectorName, len(name))
	}
	if fsys == nil {
		return 0, errors.New("WriteVectors: nil snapshot")
	}
	c := newCatalog(Options{Snapshot: fsys})
	c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{}, nil }
	b, err := c.baseIndex(ctx)
	if err != nil {
		return 0, err
	}
	var se *snapshot.Error
	if b.Snap == nil || errors.As(b.SnapshotErr, &se) {
		if b.SnapshotErr == nil {
			return 0, errors.New("WriteVectors: the snapshot was not used")
		}
		return 0, b.SnapshotErr
	}
	var ids []int
	for i := range b.Entries {
		if b.Entries[i].Sources&index.SrcSnapshot != 0 {
			ids = append(ids, i)
		}
	}
	var body []byte
	dim := 0
	texts := make([]string, 0, search.FuseBatch)
	for start := 0; start < len(ids); start += search.FuseBatch {
		batch := ids[start:min(start+search.FuseBatch, len(ids))]
		texts = texts[:0]
		for _, i := range batch {
			texts = append(texts, search.EmbedText(&b.Entries[i], b.BaseDoc(i)))
		}
		vecs, err := search.EmbedDocuments(ctx, em, texts)
		if err != nil {
			return 0, fmt.Errorf("embedding declarations %d to %d of %d: %w", start+1, start+len(batch), len(ids), err)
		}
		if len(vecs) != len(batch) {
			return 0, fmt.Errorf("the Embedder answered %d vectors for %d texts", len(vecs), len(batch))
		}
		for j, v := range vecs {
			if dim == 0 {
				dim = len(v)
				if dim == 0 || dim > search.MaxVectorDim {
					return 0, fmt.Errorf("the Embedder answered a vector of %d dimensions; want 1 to %d", dim, search.MaxVectorDim)
				}
			}
			if len(v) != dim {
				return 0, fmt.Errorf("the Embedder answered vectors of %d and %d dimensions", dim, len(v))
			}
			id := b.Entries[batch[j]].ID
			body = binary.AppendUvarint(body, uint64(len(id)))
			body = append(body, id...)
			body = binary.LittleEndian.AppendUint64(body, search.TextHash(texts[j]))
			if body, err = appendQuantized(body, v); err != nil {
				return 0, fmt.Errorf("the vector of %s: %w", id, err)
			}
		}
	}
	bw := bufio.NewWriter(w)
	head := []byte(search.VectorsMagic)
	head = binary.AppendUvarint(head, uint64(len(name)))
	head = append(head, name...)
	head = binary.AppendUvarint(head, uint64(dim))
	head = binary.AppendUvarint(head, uint64(len(ids)))
	bw.Write(head)
	bw.Write(body)
	return len(ids), bw.Flush()
}

// appendQuantized appends v as signed bytes, scaled so that its largest
// component is ±127; a zero vector stays zero.
func appendQuantized(dst []byte, v []float32) ([]byte, error) {
	m := 0.0
	for _, f := range v {
		a := math.Abs(float64(f))
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return dst, errors.New("not a finite number")
		}
		m = max(m, a)
	}
	for _, f := range v {
		q := 0.0
		if m > 0 {
			q = math.Round(float64(f) / m * 127)
		}
		dst = append(dst, byte(int8(q)))
	}
	return dst, nil
}

// vectors returns the snapshot's precomputed vectors if em is a
// NamedEmbedder of their model, and a note when a file exists but is not
// used.
func (b *baseIndex) vectors(em Embedder) (*search.PreVectors, string) {
	p := &b.pre
	p.Once.Do(func() {
		if b.Snap == nil {
			return
		}
		p.Err = p.Read(b.Snap.FS)
	})
	switch {
	case p.Err != nil:
		return nil, "precomputed vectors not used (" + search.Clip(p.Err.Error(), index.MaxEcho) + ")"
	case p.Recs == nil || p.Off.Load():
		return nil, ""
	}
	ne, ok := em.(NamedEmbedder)
	switch {
	case !ok:
		return nil, "precomputed vectors not used: they are of model " + search.Clip(p.Name, index.MaxEcho) + ", and the embedder does not name its model"
	case ne.EmbedderName() != p.Name:
		return nil, "precomputed vectors not used: they are of model " + search.Clip(p.Name, index.MaxEcho) + ", the embedder's is " + search.Clip(ne.EmbedderName(), index.MaxEcho)
	}
	return p, ""
}

// Embedder turns texts into vectors whose cosine similarity says how
// close their meanings are: a sentence-embedding model the host runs or
// calls. It is optional (Options.Embedder): without one, code_search
// ranks by words alone, and nothing else changes.
//
// With one, code_search fuses the ranking of a phrase in words (two
// words or more, no digits or punctuation: not a name, a file or a pasted
// message) that some entry matches by words with dense retrieval: the query is embedded, the 30 entries
// whose vectors are nearest to it are found by brute force over all
// entries, and they are fused with the 30 best by words by reciprocal
// rank (the best by words stays first), so that a question sharing no
// word with the code can still reach the first results. An entry's
// vector is computed from its text (its id's name and receiver as words,
// its kind and the first sentences of its documentation), as a document
// when the Embedder is a DocumentEmbedder (the query with Embed): all entries are
// embedded on the first phrase and kept with the search index (about a
// byte per dimension and entry), unless mcpsnapshot precomputed them with
// the Embedder's model (NamedEmbedder, WriteVectors). An Embedder that
// fails, panics, or answers vectors of the wrong number or of mismatched
// lengths, leaves the order by words, and the answer's note says so.
type Embedder interface {
	// Embed returns one vector per text, in order, all of the same
	// length. It is called with at most 31 texts at a time,
	// from concurrent searches, and must honour ctx.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
