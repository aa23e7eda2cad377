package codetools

import (
	"context"
)

// Search words of an older snapshot. mcpsnapshot writes each
// declaration's search words into the index ("w" records, see
// codeindex.Words); a snapshot written before it did has none, and the
// catalog computes them from the source, the same way, one package at a
// time:
//
//   - the first search index takes the words of the host's main module,
//     which it builds then (a query is most often about the host's code);
//   - the other packages (dependencies, by prior: those the host requires
//     directly first) are built by one goroutine that starts then, after
//     which the catalog builds its search index again, now the same as
//     over a snapshot with the words;
//   - until then, a dependency's declarations are found by their names,
//     documentation, package and file, not by the words of their source.
//
// Warm waits for the whole build. The standard library's declarations
// have no source words in either case.

// continueWords starts, once, the build of the words of the packages
// that index x was built without; when they are all built, the catalog
// builds its index again.
func (c *Catalog) continueWords(x *catalogIndex) {
	l := x.base.Lazy
	if l == nil {
		return
	}
	l.ContinueAll(x.Index, func() {
		c.mu.Lock()
		c.dirty = true
		c.mu.Unlock()
		c.index(context.Background()) // a background context does not end
	})
}

// wordsDone waits until the words of an older snapshot are all built and
// indexed, or ctx ends.
func (c *Catalog) wordsDone(ctx context.Context, x *catalogIndex) error {
	if l := x.base.Lazy; l != nil {
		return l.Wait(ctx)
	}
	return nil
}
