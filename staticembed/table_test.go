package staticembed

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/embedmcp/mcp/codetools"
)

var (
	_ codetools.Embedder      = (*Table)(nil)
	_ codetools.NamedEmbedder = (*Table)(nil)
)

// goldenFile is testdata/wordpiece.json, written by the Python tooling
// (searcheval/embedtable/golden.py) with the Hugging Face tokenizer.
type goldenFile struct {
	Vocab []string `json:"vocab"`
	Cases []struct {
		Text   string   `json:"text"`
		Tokens []string `json:"tokens"`
		Full   []string `json:"full"`
	} `json:"cases"`
}

func readGolden(t testing.TB) goldenFile {
	t.Helper()
	data, err := os.ReadFile("testdata/wordpiece.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Vocab) == 0 || len(g.Cases) == 0 {
		t.Fatal("empty golden file")
	}
	return g
}

// build writes a table file of tokens and their vectors, the way the
// Python tooling does (int8, one scale per dimension).
func build(t testing.TB, tokens []string, vecs [][]float32, notice string) []byte {
	t.Helper()
	dims := len(vecs[0])
	scales := make([]float32, dims)
	for _, v := range vecs {
		for d, x := range v {
			scales[d] = max(scales[d], float32(math.Abs(float64(x)))/127)
		}
	}
	for d := range scales {
		if scales[d] == 0 {
			scales[d] = 1
		}
	}
	var b bytes.Buffer
	b.WriteString(magic)
	for _, n := range []uint32{version, flagLower, uint32(len(tokens)), uint32(dims)} {
		b.Write(binary.LittleEndian.AppendUint32(nil, n))
	}
	str := func(s string) {
		b.Write(binary.AppendUvarint(nil, uint64(len(s))))
		b.WriteString(s)
	}
	str(notice)
	str("[UNK]")
	for _, tok := range tokens {
		str(tok)
	}
	for _, s := range scales {
		b.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(s)))
	}
	for _, v := range vecs {
		for d, x := range v {
			b.WriteByte(byte(int8(math.Round(float64(x / scales[d])))))
		}
	}
	b.Write(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(b.Bytes())))
	return b.Bytes()
}

// vocabTable is a table of the golden vocabulary with 4-dimension vectors.
func vocabTable(t testing.TB, vocab []string) *Table {
	t.Helper()
	vecs := make([][]float32, len(vocab))
	for i := range vecs {
		vecs[i] = []float32{float32(i%7) - 3, float32(i%5) - 2, float32(i%3) - 1, 1}
	}
	tab, err := Parse(build(t, vocab, vecs, "notice"))
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestTokensMatchHuggingFace checks the tokenizer against the Hugging
// Face BERT tokenizer's output on a fixed list of strings.
func TestTokensMatchHuggingFace(t *testing.T) {
	g := readGolden(t)
	tab := vocabTable(t, g.Vocab)
	for _, c := range g.Cases {
		if got := tab.Tokens(c.Text); !slices.Equal(got, c.Tokens) && len(got)+len(c.Tokens) > 0 {
			t.Errorf("Tokens(%q)\n got %q\nwant %q", c.Text, got, c.Tokens)
		}
	}
}

// TestTokensFullVocabulary checks the tokenizer with a real table, built
// by the Python tooling, when STATICEMBED_TABLE names one.
func TestTokensFullVocabulary(t *testing.T) {
	path := os.Getenv("STATICEMBED_TABLE")
	if path == "" {
		t.Skip("STATICEMBED_TABLE names no table file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range readGolden(t).Cases {
		if got := tab.Tokens(c.Text); !slices.Equal(got, c.Full) && len(got)+len(c.Full) > 0 {
			t.Errorf("Tokens(%q)\n got %q\nwant %q", c.Text, got, c.Full)
		}
	}
	if !strings.Contains(tab.Notice(), "Apache License") {
		t.Errorf("the notice names no licence: %q", tab.Notice())
	}
}

// TestEmbedMatchesPython checks the reader and the pooling against a
// table and vectors written by the Python tooling.
func TestEmbedMatchesPython(t *testing.T) {
	fsys := os.DirFS("testdata")
	tab, err := Load(fsys, "tiny.semb")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Dims() != 8 || tab.Len() != 40 {
		t.Fatalf("Dims %d, Len %d, want 8 and 40", tab.Dims(), tab.Len())
	}
	data, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []struct {
		Text   string    `json:"text"`
		Vector []float64 `json:"vector"`
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(want))
	for i, w := range want {
		texts[i] = w.Text
	}
	got, err := tab.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if len(got[i]) != len(w.Vector) {
			t.Fatalf("%q: %d numbers, want %d", w.Text, len(got[i]), len(w.Vector))
		}
		for d := range w.Vector {
			if math.Abs(float64(got[i][d])-w.Vector[d]) > 1e-5 {
				t.Errorf("%q: %v\nwant %v", w.Text, got[i], w.Vector)
				break
			}
		}
	}
}

// TestEmbedRanksByMeaning: with vectors that say which words are close,
// a text is closer to one sharing its meaning than to an unrelated one.
func TestEmbedRanksByMeaning(t *testing.T) {
	tokens := []string{"close", "shut", "session", "connection", "parse", "header", "the", "##s"}
	vecs := [][]float32{
		{1, 0, 0, 0}, {0.9, 0.1, 0, 0}, // close, shut
		{0, 1, 0, 0}, {0.1, 0.9, 0, 0}, // session, connection
		{0, 0, 1, 0}, {0, 0, 0, 1}, // parse, header
		{0.01, 0.01, 0.01, 0.01}, {0, 0, 0, 0},
	}
	tab, err := Parse(build(t, tokens, vecs, "notice"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := tab.Embed(context.Background(), []string{"Close the session", "shut connections", "parse the header", "", "zzz"})
	if err != nil {
		t.Fatal(err)
	}
	if near, far := cos(v[0], v[1]), cos(v[0], v[2]); near <= 0.9 || far >= 0.1 {
		t.Errorf("cosine to the paraphrase %.3f, to the unrelated text %.3f", near, far)
	}
	for _, i := range []int{0, 1, 2} {
		if n := cos(v[i], v[i]); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has length %.6f, want 1", i, math.Sqrt(n))
		}
	}
	for _, i := range []int{3, 4} {
		if len(v[i]) != 4 || cos(v[i], v[i]) != 0 {
			t.Errorf("vector %d of a text without known tokens: %v, want 4 zeros", i, v[i])
		}
	}
}

func TestEmbedHonoursContext(t *testing.T) {
	tab := vocabTable(t, []string{"a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tab.Embed(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled context: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	good := build(t, []string{"a", "b"}, [][]float32{{1, 2}, {3, 4}}, "n")
	if _, err := Parse(good); err != nil {
		t.Fatal(err)
	}
	resum := func(b []byte) []byte {
		b = slices.Clone(b[:len(b)-4])
		return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	}
	set := func(off int, v uint32) []byte {
		b := slices.Clone(good)
		binary.LittleEndian.PutUint32(b[off:], v)
		return resum(b)
	}
	cases := map[string][]byte{
		"empty":        nil,
		"magic":        append([]byte("GIF8"), good[4:]...),
		"checksum":     append(slices.Clone(good[:len(good)-1]), good[len(good)-1]^1),
		"version":      set(4, 2),
		"no tokens":    set(12, 0),
		"many tokens":  set(12, MaxTokens+1),
		"no dims":      set(16, 0),
		"many dims":    set(16, MaxDims+1),
		"more tokens":  set(12, 3),
		"truncated":    resum(good[:len(good)-5]),
		"duplicate":    resum(bytes.Replace(good, []byte("\x01b"), []byte("\x01a"), 1)),
		"empty token":  resum(bytes.Replace(good, []byte("\x01b"), []byte("\x00b"), 1)),
		"not UTF-8":    resum(bytes.Replace(good, []byte("\x01b"), []byte("\x01\xff"), 1)),
		"scale is NaN": resum(bytes.Replace(good, binary.LittleEndian.AppendUint32(nil, math.Float32bits(3.0/127)), binary.LittleEndian.AppendUint32(nil, 0x7fc00000), 1)),
	}
	for name, b := range cases {
		if _, err := Parse(b); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Parse: %v, want ErrFormat", name, err)
		}
	}
	if _, err := Load(fstest.MapFS{}, "missing.semb"); err == nil || errors.Is(err, ErrFormat) {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func TestNameAndNotice(t *testing.T) {
	a, err := Parse(build(t, []string{"a"}, [][]float32{{1}}, "Licence A"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(build(t, []string{"a"}, [][]float32{{-1}}, "Licence A"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Notice() != "Licence A" {
		t.Errorf("Notice %q", a.Notice())
	}
	if !strings.HasPrefix(a.EmbedderName(), "staticembed-") || a.EmbedderName() == b.EmbedderName() {
		t.Errorf("names of two different tables: %q and %q", a.EmbedderName(), b.EmbedderName())
	}
}

func FuzzParse(f *testing.F) {
	f.Add(build(f, []string{"a", "##b"}, [][]float32{{1, 2}, {3, 4}}, "n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Parse(data)
		if err != nil {
			return
		}
		v, err := tab.Embed(context.Background(), []string{"a b ab", string(data)})
		if err != nil || len(v) != 2 || len(v[0]) != tab.Dims() {
			t.Fatalf("Embed: %v, %d vectors", err, len(v))
		}
	})
}

func FuzzTokens(f *testing.F) {
	g := readGolden(f)
	tab := vocabTable(f, g.Vocab)
	for _, c := range g.Cases {
		f.Add(c.Text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range tab.Tokens(s) {
			if _, ok := tab.ids[tok]; !ok && tok != "[UNK]" {
				t.Fatalf("Tokens(%q) gave %q, not in the vocabulary", s, tok)
			}
		}
	})
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
