package search

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
	"math"
	"strings"
)

// maxEmbedText bounds the text of an entry given to an Embedder.
const maxEmbedText = 300

// EmbedText returns the text of an entry given to an Embedder: the words
// of its name and type, its kind and the start of its documentation doc.
func EmbedText(e *index.Entry, doc string) string {
	var b strings.Builder
	if r := index.ReceiverOf(e); r != "" {
		b.WriteString(strings.Join(splitWords(r), " "))
		b.WriteByte(' ')
	}
	b.WriteString(strings.Join(splitWords(index.EntryName(e)), " "))
	b.WriteString(" (")
	b.WriteString(e.Kind.String())
	b.WriteString(")")
	if doc != "" {
		b.WriteString(": ")
		b.WriteString(doc)
	}
	return index.CutText(b.String(), maxEmbedText)
}

// splitWords splits a Go identifier at case changes, digits and
// underscores ("ServeHTTP" → Serve HTTP).
func splitWords(s string) []string {
	var out []string
	start := 0
	isUpper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	for i := 1; i <= len(s); i++ {
		switch {
		case i == len(s):
		case s[i] == '_':
		case isUpper(s[i]) && !isUpper(s[i-1]):
		case isUpper(s[i-1]) && isUpper(s[i]) && i+1 < len(s) && !isUpper(s[i+1]) && s[i+1] != '_':
		default:
			continue
		}
		if w := strings.Trim(s[start:i], "_"); w != "" {
			out = append(out, w)
		}
		start = i
	}
	return out
}

// joinNote joins two notes of an answer.
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Cosine returns the cosine similarity of a and b, of equal lengths; 0
// when either is zero.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
