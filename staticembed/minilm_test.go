package staticembed

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// The compiled table reads, holds its licence notice, and ranks a
// question nearer to the text that answers it than to an unrelated one.
func TestDefault(t *testing.T) {
	tab := Default()
	if tab.err != nil {
		t.Fatal(tab.err)
	}
	if tab.Dims() != 128 || tab.Len() < 8000 {
		t.Errorf("%d dimensions, %d tokens", tab.Dims(), tab.Len())
	}
	notice, err := os.ReadFile("minilm.NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tab.Notice(), "Apache License") || !strings.HasPrefix(string(notice), tab.Notice()) {
		t.Errorf("notice %q is not at the start of minilm.NOTICE", tab.Notice())
	}
	v, err := tab.Embed(context.Background(), []string{"close the network connection",
		"Close shuts the listener and every open socket", "parse a date in the calendar"})
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	if near, far := dot(v[0], v[1]), dot(v[0], v[2]); near <= far {
		t.Errorf("cosine to the answer %.3f, to an unrelated text %.3f", near, far)
	}
}

// A compressed table reads as the same table; a corrupt one is an
// ErrFormat, and Default's error is Embed's.
func TestParseGzip(t *testing.T) {
	raw, err := os.ReadFile("testdata/tiny.semb")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	b, err := Parse(z.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if b.EmbedderName() != a.EmbedderName() || !slices.Equal(b.vecs, a.vecs) || Default().EmbedderName() == a.EmbedderName() {
		t.Errorf("compressed: %s, plain: %s", b.EmbedderName(), a.EmbedderName())
	}
	if _, err := Parse([]byte{0x1f, 0x8b, 0, 1, 2}); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("corrupt gzip: %v", err)
	}
	bad := &Table{err: ErrFormat}
	if _, err := bad.Embed(context.Background(), []string{"x"}); err != ErrFormat {
		t.Errorf("Embed of an unreadable table: %v", err)
	}
}
