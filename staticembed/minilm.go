package staticembed

import _ "embed"

// minilm is the table Default reads: distilled from all-MiniLM-L6-v2
// (minilm.NOTICE), gzip-compressed.
//
//go:embed minilm.semb.gz
var minilm []byte

// Default returns the table compiled into this package: distilled from
// sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0; Notice returns the
// notice a host that ships it must show, also in minilm.NOTICE), the
// first 8 000 tokens of its vocabulary and every character, 128
// dimensions, about 1 MB in the binary and 1.2 MB of memory once read. A
// host turns dense retrieval on in code_search with one line:
//
//	opts := codetools.Options{Embedder: staticembed.Default()}
//
// Each call reads the table anew (about 0.1 s): call it once. The
// package's tests read the compiled table; were it unreadable, the
// table's Embed would return the error, and code_search would rank by
// words alone and say why.
func Default() *Table {
	t, err := Parse(minilm)
	if err != nil {
		return &Table{err: err}
	}
	return t
}
