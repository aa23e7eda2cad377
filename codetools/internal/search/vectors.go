package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codesnap"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
const VectorsMagic = "embedmcp-vectors/1\n"

// Bounds of a vectors file.
const (
	MaxVectorDim   = 8192
	maxVectorsFile = 512 << 20
	MaxVectorName  = 256
	maxVectorID    = 4096
)

// ErrVectorsFile is wrapped by the errors of a vectors file that cannot be
// read: a wrong header, a bound exceeded, a truncated record.
var ErrVectorsFile = errors.New("malformed vectors file")

// TextHash is the hash of an entry's text that a record keeps, so that a
// vector computed for an older text is not used.
func TextHash(s string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, s)
	return h.Sum64()
}

// PreVectors are the vectors of a snapshot's vectors.bin, read once.
type PreVectors struct {
	Once sync.Once
	// err says why the file is not used; nil when it is, or when the
	// snapshot has none (byID is then empty).
	Err  error
	Name string
	dim  int
	data []byte
	// recs are the offsets in data of the records, whose ids ascend.
	Recs []int32
	// off is set when the Embedder's vectors are not of dim dimensions;
	// the file is then ignored.
	Off atomic.Bool
}

// Read reads and checks vectors.bin of fsys; a missing file is no error.
func (p *PreVectors) Read(fsys fs.FS) error {
	fi, err := fs.Stat(fsys, codesnap.VectorsName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Size() > maxVectorsFile {
		return fmt.Errorf("%w: %d bytes, more than %d", ErrVectorsFile, fi.Size(), maxVectorsFile)
	}
	data, err := fs.ReadFile(fsys, codesnap.VectorsName)
	if err != nil {
		return err
	}
	bad := func(what string) error { return fmt.Errorf("%w: %s", ErrVectorsFile, what) }
	if len(data) < len(VectorsMagic) || string(data[:len(VectorsMagic)]) != VectorsMagic {
		return bad("no " + VectorsMagic[:len(VectorsMagic)-1] + " header")
	}
	r := data[len(VectorsMagic):]
	uv := func(limit uint64) (int, bool) {
		v, n := binary.Uvarint(r)
		if n <= 0 || v > limit {
			return 0, false
		}
		r = r[n:]
		return int(v), true
	}
	nl, ok := uv(MaxVectorName)
	if !ok || nl == 0 || len(r) < nl {
		return bad("bad model name")
	}
	p.Name = string(r[:nl])
	r = r[nl:]
	if p.dim, ok = uv(MaxVectorDim); !ok {
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
			return bad("the records' ids do not ascend at " + Clip(string(id), index.MaxEcho))
		}
		prev = id
		recs = append(recs, at)
		r = r[il+8+p.dim:]
	}
	if len(r) != 0 {
		return bad(fmt.Sprintf("%d bytes after the last record", len(r)))
	}
	p.data, p.Recs = data, recs
	return nil
}

// Record returns the id of the record at offset off of p.data, and the
// offset of its hash.
func (p *PreVectors) Record(off int32) (string, int) {
	il, n := binary.Uvarint(p.data[off:])
	at := int(off) + n
	return string(p.data[at : at+int(il)]), at + int(il)
}

// lookup returns the precomputed vector of e, if the file holds one for
// its current text (doc giving its documentation), and whether the file
// lists e at all.
func (p *PreVectors) lookup(e *index.Entry, doc func() string) (vec []byte, ok, listed bool) {
	k, found := sort.Find(len(p.Recs), func(k int) int {
		id, _ := p.Record(p.Recs[k])
		return strings.Compare(e.ID, id)
	})
	if !found {
		return nil, false, false
	}
	_, h := p.Record(p.Recs[k])
	if binary.LittleEndian.Uint64(p.data[h:]) != TextHash(EmbedText(e, doc())) {
		return nil, false, true
	}
	return p.data[h+8 : h+8+p.dim], true, true
}

// CosineQ is cosine for a vector of signed bytes (appendQuantized).
func CosineQ(a []float32, b []byte) float64 {
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
