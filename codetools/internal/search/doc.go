// Package search ranks the entries of an index for code_search: literal
// matches of names and documentation in tiers, terms scored by BM25F with
// priors, files and file lines, and the fusion of the word ranking with an
// embedder's similarities. It builds on package index and knows nothing of
// navigation or the tools, which build on it.
package search
