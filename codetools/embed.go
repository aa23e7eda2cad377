package codetools

import (
	"context"
)

// Embedder turns texts into vectors whose cosine similarity says how
// close their meanings are: a sentence-embedding model the host runs or
// calls. It is optional (Options.Embedder): without one, code_search
// ranks by words alone, and nothing else changes.
//
// With one, code_search reranks the best 30 candidates of a
// phrase (a query matched by terms, not a name or a file): each
// candidate's score becomes its word score, relative to the best, plus
// the cosine similarity of its vector to the query's.
// A candidate's vector is computed from its text (its id's name and
// receiver as words, its kind and the first sentences of its
// documentation) on the first query that ranks it, and kept with the
// search index, unless mcpsnapshot -embed-url precomputed it with the
// Embedder's model (NamedEmbedder, WriteVectors). An Embedder that
// fails, or answers vectors of the wrong number or of mismatched
// lengths, leaves the order by words, and the answer's note says so.
type Embedder interface {
	// Embed returns one vector per text, in order, all of the same
	// length. It is called with at most 31 texts at a time,
	// from concurrent searches, and must honour ctx.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
