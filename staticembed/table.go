package staticembed

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"unicode/utf8"
)

// ErrFormat is wrapped by the errors of a table file that cannot be read:
// a wrong magic or version, a bound exceeded, a truncated or corrupt file.
var ErrFormat = errors.New("staticembed: malformed table")

// Bounds of a table file.
const (
	// MaxTokens bounds the vocabulary of a table.
	MaxTokens = 1 << 20
	// MaxDims bounds the dimensions of a vector.
	MaxDims = 4096
	// maxTokenBytes bounds one token of the vocabulary.
	maxTokenBytes = 200
	// maxNoticeBytes bounds the licence notice.
	maxNoticeBytes = 64 << 10
	// maxTableBytes bounds a table compressed by gzip, once decompressed.
	maxTableBytes = 256 << 20
)

const (
	magic          = "SEMB"
	version        = 1
	flagLower      = 1
	maxWordRunes   = 100 // BERT's max_input_chars_per_word
	subwordPrefix  = "##"
	headerFixedLen = 4 + 4*4
)

// Table is a static embedding table: a vocabulary of WordPiece tokens
// and one int8 vector per token, with a scale per dimension. It is
// read-only once loaded and safe for concurrent use.
type Table struct {
	ids    map[string]int32
	tokens []string
	scales []float32
	vecs   []int8 // len(tokens)*dims
	dims   int
	lower  bool
	notice string
	unk    string
	name   string
	err    error // why Default's table could not be read; Embed returns it
}

// Load reads a table file from fsys, such as an embed.FS holding it.
func Load(fsys fs.FS, name string) (*Table, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("staticembed: %w", err)
	}
	return Parse(data)
}

// Parse reads a table from the bytes of a table file (see the package
// documentation for the format), or of one compressed by gzip. It keeps
// no reference to data.
func Parse(data []byte) (*Table, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		data, err = io.ReadAll(io.LimitReader(zr, maxTableBytes+1))
		if err == nil && len(data) > maxTableBytes {
			err = fmt.Errorf("more than %d bytes", maxTableBytes)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
	}
	if len(data) < headerFixedLen+4 {
		return nil, bad("%d bytes, shorter than a header", len(data))
	}
	if string(data[:4]) != magic {
		return nil, bad("not a table file (magic %q)", data[:4])
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if got := crc32.ChecksumIEEE(body); got != sum {
		return nil, bad("checksum %08x, the file says %08x", got, sum)
	}
	le := binary.LittleEndian
	if v := le.Uint32(body[4:]); v != version {
		return nil, bad("version %d, want %d", v, version)
	}
	flags := le.Uint32(body[8:])
	count, dims := le.Uint32(body[12:]), le.Uint32(body[16:])
	if count == 0 || count > MaxTokens {
		return nil, bad("%d tokens, want 1 to %d", count, MaxTokens)
	}
	if dims == 0 || dims > MaxDims {
		return nil, bad("%d dimensions, want 1 to %d", dims, MaxDims)
	}
	r := reader{b: body[headerFixedLen:]}
	notice, err := r.str(maxNoticeBytes, 0)
	if err != nil {
		return nil, bad("notice: %v", err)
	}
	unk, err := r.str(maxTokenBytes, 0)
	if err != nil {
		return nil, bad("unknown token: %v", err)
	}
	t := &Table{
		ids:    make(map[string]int32, count),
		tokens: make([]string, count),
		dims:   int(dims),
		lower:  flags&flagLower != 0,
		notice: notice,
		unk:    unk,
		name:   fmt.Sprintf("staticembed-%08x", sum),
	}
	for i := range t.tokens {
		tok, err := r.str(maxTokenBytes, 1)
		if err != nil {
			return nil, bad("token %d: %v", i, err)
		}
		if _, dup := t.ids[tok]; dup {
			return nil, bad("token %d (%.40q) repeats an earlier one", i, tok)
		}
		t.tokens[i] = tok
		t.ids[tok] = int32(i)
	}
	need := int(dims)*4 + int(count)*int(dims)
	if len(r.b) != need {
		return nil, bad("%d bytes of scales and vectors, want %d", len(r.b), need)
	}
	t.scales = make([]float32, dims)
	for d := range t.scales {
		s := math.Float32frombits(le.Uint32(r.b[4*d:]))
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			return nil, bad("scale %d is not a finite number", d)
		}
		t.scales[d] = s
	}
	raw := r.b[4*dims:]
	t.vecs = make([]int8, len(raw))
	for i, b := range raw {
		t.vecs[i] = int8(b)
	}
	return t, nil
}

// reader reads the length-prefixed strings of a table file.
type reader struct{ b []byte }

func (r *reader) str(max, min int) (string, error) {
	n, k := binary.Uvarint(r.b)
	if k <= 0 {
		return "", errors.New("truncated length")
	}
	if n > uint64(max) || n < uint64(min) {
		return "", fmt.Errorf("length %d, want %d to %d", n, min, max)
	}
	if uint64(len(r.b)-k) < n {
		return "", errors.New("truncated")
	}
	s := r.b[k : k+int(n)]
	if !utf8.Valid(s) {
		return "", errors.New("not UTF-8")
	}
	r.b = r.b[k+int(n):]
	return string(s), nil
}

// Dims returns the dimensions of the table's vectors.
func (t *Table) Dims() int { return t.dims }

// Len returns the number of tokens of the table's vocabulary.
func (t *Table) Len() int { return len(t.tokens) }

// Notice returns the licence notice of the model the table was distilled
// from, as the table file carries it.
func (t *Table) Notice() string { return t.notice }

// EmbedderName implements codetools.NamedEmbedder: "staticembed-"
// followed by the table file's checksum, so that vectors precomputed
// with one table are never used with another.
func (t *Table) EmbedderName() string { return t.name }

// Embed implements codetools.Embedder: one vector per text, of Dims
// numbers, of unit length, or all zero for a text without a known token.
func (t *Table) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if t.err != nil {
		return nil, t.err
	}
	out := make([][]float32, len(texts))
	acc := make([]int32, t.dims)
	var ids []int32
	for i, s := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ids = t.appendIDs(ids[:0], s)
		out[i] = t.vector(acc, ids)
	}
	return out, nil
}

// vector returns the normalized sum of the rows of ids (their mean,
// normalized), using acc as scratch.
func (t *Table) vector(acc []int32, ids []int32) []float32 {
	clear(acc)
	for _, id := range ids {
		row := t.vecs[int(id)*t.dims : int(id+1)*t.dims]
		for d, q := range row {
			acc[d] += int32(q)
		}
	}
	v := make([]float32, t.dims)
	var norm float64
	for d, a := range acc {
		x := float64(a) * float64(t.scales[d])
		v[d] = float32(x)
		norm += x * x
	}
	if norm == 0 {
		return v
	}
	inv := 1 / math.Sqrt(norm)
	for d := range v {
		v[d] = float32(float64(v[d]) * inv)
	}
	return v
}

// Tokens returns the tokens of text, in order, as the table's tokenizer
// cuts it; an unknown word is the table's unknown token, such as "[UNK]".
func (t *Table) Tokens(text string) []string {
	var out []string
	t.words(text, func(w []byte) {
		n := len(out)
		out = t.appendPieces(out, w)
		if len(out) == n {
			out = append(out, t.unk)
		}
	})
	return out
}

// appendIDs appends the token ids of text, unknown words left out.
func (t *Table) appendIDs(ids []int32, text string) []int32 {
	t.words(text, func(w []byte) {
		ids = t.appendWordIDs(ids, w)
	})
	return ids
}

// appendPieces appends the tokens of one word, or nothing when the word
// is unknown.
func (t *Table) appendPieces(out []string, w []byte) []string {
	var ids [maxWordRunes]int32
	n := len(t.appendWordIDs(ids[:0], w))
	for _, id := range ids[:n] {
		out = append(out, t.tokens[id])
	}
	return out
}

// appendWordIDs appends the ids of the longest-match-first WordPiece
// tokens of word w, or nothing when a part of it matches no token or it
// is longer than maxWordRunes characters.
func (t *Table) appendWordIDs(ids []int32, w []byte) []int32 {
	if utf8.RuneCount(w) > maxWordRunes {
		return ids
	}
	start := len(ids)
	var buf [2 + 4*maxWordRunes]byte
	for s := 0; s < len(w); {
		found := int32(-1)
		end := len(w)
		for ; end > s; end-- {
			if end < len(w) && !utf8.RuneStart(w[end]) {
				continue
			}
			var key []byte
			if s > 0 {
				key = append(append(buf[:0], subwordPrefix...), w[s:end]...)
			} else {
				key = append(buf[:0], w[s:end]...)
			}
			if id, ok := t.ids[string(key)]; ok {
				found = id
				break
			}
		}
		if found < 0 {
			return ids[:start]
		}
		ids = append(ids, found)
		s = end
	}
	return ids
}
