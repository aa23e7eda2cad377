// Package staticembed is a sentence embedder that needs no model server:
// a static embedding table, one vector per WordPiece token, distilled
// from a transformer sentence encoder the model2vec way. A text's vector
// is the mean of its tokens' vectors, computed in microseconds, in pure
// Go, without cgo and without the network.
//
// A [Table] implements codetools.Embedder and codetools.NamedEmbedder, so
// a host turns code_search's dense retrieval on with one option, with the
// table compiled into this package ([Default]: all-MiniLM-L6-v2's, 8 000
// tokens, 128 dimensions, 1 MB):
//
//	opts := codetools.Options{Embedder: staticembed.Default()}
//
// or with a table of its own ([Load], [Parse]; plain or gzip-compressed).
// The command staticembed-vectors precomputes a snapshot's vectors with a
// table, as mcpsnapshot -embed-url does with a server.
//
// # Tokenizer
//
// Texts are split as BERT's uncased tokenizer splits them: control
// characters are dropped and white space normalized, CJK ideographs are
// set apart, accents are stripped (NFD, then the non-spacing marks
// removed) and letters lower-cased; words split at white space and at
// punctuation (ASCII punctuation and the Unicode P categories), each
// punctuation character a word of its own; each word is then cut into the
// longest tokens of the table's vocabulary, first to last, the tokens
// after the first spelled with a "##" prefix. A word longer than 100
// characters, or with a part no token matches, is unknown. Unknown words
// add nothing to a text's vector (as in model2vec).
//
// # Table format
//
// A table file, version 1, is little-endian:
//
//	magic    4 bytes  "SEMB"
//	version  uint32   1
//	flags    uint32   bit 0: lower-case and strip accents
//	count    uint32   number of tokens, at most 1<<20
//	dims     uint32   dimensions of a vector, 1 to 4096
//	notice   uvarint length, then UTF-8: the source model's licence notice
//	unknown  uvarint length, then UTF-8: the unknown token (not in the vocabulary)
//	tokens   count times: uvarint length (1 to 200), then the token in UTF-8
//	scales   dims float32: the scale of each dimension
//	vectors  count*dims int8: token i's vector is row i, times the scales
//	crc      uint32   CRC-32 (IEEE) of every byte before it
//
// The tooling that distils a table from an encoder, and writes this
// format, is in the repository's searcheval/embedtable directory; it puts
// the source model's licence notice in the file, and Table.Notice returns
// it, so that a host shipping the table can show it.
package staticembed
