// Package bm25f is the one ranking engine of the project's searches: the
// tool enquiry (tool_detail) and the code search (code_search) both rank
// with it.
//
// It has three parts:
//
//   - a tokeniser (Terms, Words) that splits prose and Go identifiers alike
//     into lower-case words (snake_case, kebab-case, dotted and path names
//     at their separators, camelCase and PascalCase at case changes), drops
//     a short list of English stop words, removes inflections with the
//     inflectional steps of Porter's stemmer and maps common abbreviations
//     of Go code to the word they abbreviate (max → maximum, req → request,
//     cfg → config);
//   - a Builder and a compact, immutable Index of documents of up to
//     MaxFields fields: delta- and varint-encoded postings with per-field
//     term frequencies, and per-document field lengths;
//   - BM25F scoring (Index.Score) with per-field weights and length
//     normalisation, over all documents or a subset whose statistics
//     (document count, average field lengths, document frequencies) are
//     computed over the subset alone.
package bm25f
