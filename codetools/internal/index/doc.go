// Package index holds the entries of the code catalog and the structures
// search ranks them by: their names in name order, their files, scopes and
// tiers, and the postings of their terms (package bm25f). It builds on
// package snapshot and knows nothing of search, navigation or the tools,
// which build on it.
package index
