package codetools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// Precomputed vectors. mcpsnapshot -embed-url writes, with WriteVectors,
// the vector of every declaration of a snapshot into its vectors.bin
// (codesnap.VectorsName); a catalog whose Embedder names the same model
// (NamedEmbedder) reads them on its first rerank, and then embeds only
// the query and the candidates that the file lacks or whose text changed.
//
// The file holds, in order:
//
//	the line "embedmcp-vectors/1\n"
//	the model's name: a uvarint length and its bytes
//	the dimension, a uvarint
//	the number of records, a uvarint
//	the records, in the order of their ids: the id (a uvarint length and
//	its bytes), the FNV-64a hash of the entry's text (8 bytes, little
//	endian) and the vector, one signed byte per dimension, scaled so
//	that its largest component is ±127.
//
// The cosine similarity ignores a vector's length, so no scale is kept.
const vectorsMagic = "embedmcp-vectors/1\n"

// Bounds of a vectors file.
const (
	maxVectorDim   = 8192
	maxVectorsFile = 512 << 20
	maxVectorName  = 256
	maxVectorID    = 4096
)

// NamedEmbedder is an Embedder that names its model. Vectors of one model
// are comparable only with vectors of the same model: a catalog uses the
// vectors that mcpsnapshot precomputed only when its Embedder is a
// NamedEmbedder of the name the file records.
type NamedEmbedder interface {
	Embedder
	// EmbedderName names the model, such as "nomic-embed-text".
	EmbedderName() string
}

// errVectorsFile is wrapped by the errors of a vectors file that cannot be
// read: a wrong header, a bound exceeded, a truncated record.
var errVectorsFile = errors.New("malformed vectors file")

// WriteVectors computes with em the vector of every declaration of the
// source snapshot in fsys (the text code_search reranks by: the words of
// its name and type, its kind and the start of its documentation) and
// writes them to w in the form a Catalog reads from the snapshot's
// vectors.bin. It calls em with at most 31 texts at a time and
// returns the number of vectors written. mcpsnapshot calls it for
// -embed-url.
func WriteVectors(ctx context.Context, w io.Writer, fsys fs.FS, em NamedEmbedder) (int, error) {
	if em == nil {
		return 0, errors.New("WriteVectors: nil Embedder")
	}
	name := em.EmbedderName()
	if name == "" || len(name) > maxVectorName {
		return 0, fmt.Errorf("WriteVectors: the Embedder's name must have 1 to %d bytes, not %d", maxVectorName, len(name))
	}
	if fsys == nil {
		return 0, errors.New("WriteVectors: nil snapshot")
	}
	c := newCatalog(Options{Snapshot: fsys})
	c.loadRuntime = func() (*runtimeTable, error) { return &runtimeTable{}, nil }
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
	var ids []*index.Entry
	for i := range b.Entries {
		if b.Entries[i].Sources&index.SrcSnapshot != 0 {
			ids = append(ids, &b.Entries[i])
		}
	}
	var body []byte
	dim := 0
	texts := make([]string, 0, rerankDepth+1)
	for start := 0; start < len(ids); start += rerankDepth + 1 {
		batch := ids[start:min(start+rerankDepth+1, len(ids))]
		texts = texts[:0]
		for _, e := range batch {
			texts = append(texts, embedText(e))
		}
		vecs, err := em.Embed(ctx, texts)
		if err != nil {
			return 0, fmt.Errorf("embedding declarations %d to %d of %d: %w", start+1, start+len(batch), len(ids), err)
		}
		if len(vecs) != len(batch) {
			return 0, fmt.Errorf("the Embedder answered %d vectors for %d texts", len(vecs), len(batch))
		}
		for j, v := range vecs {
			if dim == 0 {
				dim = len(v)
				if dim == 0 || dim > maxVectorDim {
					return 0, fmt.Errorf("the Embedder answered a vector of %d dimensions; want 1 to %d", dim, maxVectorDim)
				}
			}
			if len(v) != dim {
				return 0, fmt.Errorf("the Embedder answered vectors of %d and %d dimensions", dim, len(v))
			}
			id := batch[j].ID
			body = binary.AppendUvarint(body, uint64(len(id)))
			body = append(body, id...)
			body = binary.LittleEndian.AppendUint64(body, textHash(texts[j]))
			if body, err = appendQuantized(body, v); err != nil {
				return 0, fmt.Errorf("the vector of %s: %w", id, err)
			}
		}
	}
	bw := bufio.NewWriter(w)
	head := []byte(vectorsMagic)
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

// textHash is the hash of an entry's text that a record keeps, so that a
// vector computed for an older text is not used.
func textHash(s string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, s)
	return h.Sum64()
}

// preVectors are the vectors of a snapshot's vectors.bin, read once.
type preVectors struct {
	once sync.Once
	// err says why the file is not used; nil when it is, or when the
	// snapshot has none (byID is then empty).
	err  error
	name string
	dim  int
	data []byte
	// recs are the offsets in data of the records, whose ids ascend.
	recs []int32
	// off is set when the Embedder's vectors are not of dim dimensions;
	// the file is then ignored.
	off atomic.Bool
}

// vectors returns the snapshot's precomputed vectors if em is a
// NamedEmbedder of their model, and a note when a file exists but is not
// used.
func (b *baseIndex) vectors(em Embedder) (*preVectors, string) {
	p := &b.pre
	p.once.Do(func() {
		if b.Snap == nil {
			return
		}
		p.err = p.read(b.Snap.FS)
	})
	switch {
	case p.err != nil:
		return nil, "precomputed vectors not used (" + clip(p.err.Error(), index.MaxEcho) + ")"
	case p.recs == nil || p.off.Load():
		return nil, ""
	}
	ne, ok := em.(NamedEmbedder)
	switch {
	case !ok:
		return nil, "precomputed vectors not used: they are of model " + clip(p.name, index.MaxEcho) + ", and the embedder does not name its model"
	case ne.EmbedderName() != p.name:
		return nil, "precomputed vectors not used: they are of model " + clip(p.name, index.MaxEcho) + ", the embedder's is " + clip(ne.EmbedderName(), index.MaxEcho)
	}
	return p, ""
}

// read reads and checks vectors.bin of fsys; a missing file is no error.
func (p *preVectors) read(fsys fs.FS) error {
	fi, err := fs.Stat(fsys, codesnap.VectorsName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Size() > maxVectorsFile {
		return fmt.Errorf("%w: %d bytes, more than %d", errVectorsFile, fi.Size(), maxVectorsFile)
	}
	data, err := fs.ReadFile(fsys, codesnap.VectorsName)
	if err != nil {
		return err
	}
	bad := func(what string) error { return fmt.Errorf("%w: %s", errVectorsFile, what) }
	if len(data) < len(vectorsMagic) || string(data[:len(vectorsMagic)]) != vectorsMagic {
		return bad("no " + vectorsMagic[:len(vectorsMagic)-1] + " header")
	}
	r := data[len(vectorsMagic):]
	uv := func(limit uint64) (int, bool) {
		v, n := binary.Uvarint(r)
		if n <= 0 || v > limit {
			return 0, false
		}
		r = r[n:]
		return int(v), true
	}
	nl, ok := uv(maxVectorName)
	if !ok || nl == 0 || len(r) < nl {
		return bad("bad model name")
	}
	p.name = string(r[:nl])
	r = r[nl:]
	if p.dim, ok = uv(maxVectorDim); !ok {
		return bad("bad dimension")
	}
	count, ok := uv(uint64(len(r)))
	switch {
	case !ok:
		return bad("bad record count")
	case count == 0 && len(r) == 0:
		// A snapshot without declarations: nothing to use, nothing wrong.
		return nil
	case p.dim == 0:
		return bad("bad dimension")
	}
	recs := make([]int32, 0, count)
	var prev []byte
	for k := 0; k < count; k++ {
		at := int32(len(data) - len(r))
		il, ok := uv(maxVectorID)
		if !ok || il == 0 || len(r) < il+8+p.dim {
			return bad(fmt.Sprintf("record %d of %d is truncated", k+1, count))
		}
		id := r[:il]
		if k > 0 && bytes.Compare(prev, id) >= 0 {
			return bad("the records' ids do not ascend at " + clip(string(id), index.MaxEcho))
		}
		prev = id
		recs = append(recs, at)
		r = r[il+8+p.dim:]
	}
	if len(r) != 0 {
		return bad(fmt.Sprintf("%d bytes after the last record", len(r)))
	}
	p.data, p.recs = data, recs
	return nil
}

// record returns the id of the record at offset off of p.data, and the
// offset of its hash.
func (p *preVectors) record(off int32) (string, int) {
	il, n := binary.Uvarint(p.data[off:])
	at := int(off) + n
	return string(p.data[at : at+int(il)]), at + int(il)
}

// lookup returns the precomputed vector of e, if the file holds one for
// its current text.
func (p *preVectors) lookup(e *index.Entry) ([]byte, bool) {
	k, found := sort.Find(len(p.recs), func(k int) int {
		id, _ := p.record(p.recs[k])
		return strings.Compare(e.ID, id)
	})
	if !found {
		return nil, false
	}
	_, h := p.record(p.recs[k])
	if binary.LittleEndian.Uint64(p.data[h:]) != textHash(embedText(e)) {
		return nil, false
	}
	return p.data[h+8 : h+8+p.dim], true
}

// cosineQ is cosine for a vector of signed bytes (appendQuantized).
func cosineQ(a []float32, b []byte) float64 {
	var dot, na, nb float64
	for i := range a {
		q := float64(int8(b[i]))
		dot += float64(a[i]) * q
		na += float64(a[i]) * float64(a[i])
		nb += q * q
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
