package codetools

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
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

// lazyWords holds the search words built so far for a snapshot without
// them.
type lazyWords struct {
	snap *snapshot.Snapshot
	// files lists the Go files of each package, in compile order (which
	// numbers its init functions as mcpsnapshot does).
	files map[string][]int32

	mu sync.Mutex
	// built maps each package built to its declarations' words by
	// entry id; a package's map is not changed once stored.
	built map[string]map[string]string
	// first is the number of packages the first search index built.
	first int

	once sync.Once
	done chan struct{} // closed once every package is built and indexed
}

// newLazyWords returns the lazy words of s, or nil if s has words or is
// nil.
func newLazyWords(s *snapshot.Snapshot) *lazyWords {
	if s == nil || s.Words {
		return nil
	}
	l := &lazyWords{snap: s, files: map[string][]int32{}, built: map[string]map[string]string{}, done: make(chan struct{})}
	for fi := range s.GoFiles {
		f := &s.Files[fi]
		l.files[f.Pkg] = append(l.files[f.Pkg], int32(fi))
	}
	return l
}

// build computes the words of the declarations of package pkg, unless
// they are built already.
func (l *lazyWords) build(pkg string) {
	l.mu.Lock()
	_, ok := l.built[pkg]
	l.mu.Unlock()
	if ok {
		return
	}
	words := map[string]string{}
	srcs := make([]codeindex.Source, 0, len(l.files[pkg]))
	for _, fi := range l.files[pkg] {
		data, err := l.snap.ReadFile(fi, nil)
		if err != nil {
			continue // left out of the catalog at load already
		}
		f := &l.snap.Files[fi]
		srcs = append(srcs, codeindex.Source{Path: f.Path, Name: f.Name, Src: data})
	}
	if parsed, err := codeindex.ParsePackage(srcs); err == nil {
		for _, f := range parsed {
			for _, d := range f.Decls {
				if d.Words != "" && d.Kind != codeindex.Package {
					words[declID(pkg, d.Name)] = d.Words
				}
			}
		}
	}
	l.mu.Lock()
	if _, ok := l.built[pkg]; !ok {
		l.built[pkg] = words
	}
	l.mu.Unlock()
}

// count returns the number of packages built so far, and the number
// the first search index built.
func (l *lazyWords) count() (built, first int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.built), l.first
}

// wordsOf returns, for buildTerms, the function that gives the search
// words of an entry of x ("" and false for none). Over a snapshot
// without words, it first builds the words of the packages of the main
// scope (scopes holds the scope of each entry), once.
func (x *coreIndex) wordsOf(scopes []index.Scope) func(e *index.Entry) (string, bool) {
	s := x.base.snap
	l := x.base.lazy
	if l == nil {
		return func(e *index.Entry) (string, bool) {
			return e.Words, e.Words != "" || e.Snap >= 0 && s != nil && s.Words
		}
	}
	l.mu.Lock()
	first := len(l.built) == 0 && l.first == 0
	l.mu.Unlock()
	if first {
		main := map[string]bool{}
		for i := range x.entries {
			if e := &x.entries[i]; scopes[i] == index.ScopeMain && e.Snap >= 0 && e.Kind != index.KindPackage {
				main[e.Pkg] = true
			}
		}
		for p := range main {
			l.build(p)
		}
		l.mu.Lock()
		l.first = len(main)
		l.mu.Unlock()
	}
	l.mu.Lock()
	built := make(map[string]map[string]string, len(l.built))
	for p, m := range l.built {
		built[p] = m
	}
	l.mu.Unlock()
	return func(e *index.Entry) (string, bool) {
		m, ok := built[e.Pkg]
		if !ok || e.Snap < 0 {
			return "", false
		}
		w, ok := m[e.ID]
		return w, ok
	}
}

// continueWords starts, once, the build of the words of the packages
// that index x was built without; when they are all built, the catalog
// builds its index again.
func (c *Catalog) continueWords(x *catalogIndex) {
	l := x.base.lazy
	if l == nil {
		return
	}
	l.continueAll(x.coreIndex, func() {
		c.mu.Lock()
		c.dirty = true
		c.mu.Unlock()
		c.index(context.Background()) // a background context does not end
	})
}

// continueAll builds, once and in the background, the words of the
// packages of x outside the standard library that are not built yet, best
// prior first, then calls rebuild.
func (l *lazyWords) continueAll(x *coreIndex, rebuild func()) {
	l.once.Do(func() {
		// The packages outside the standard library, best prior first.
		tier := map[string]uint8{}
		for i := range x.entries {
			e := &x.entries[i]
			if e.Snap < 0 || e.Kind == index.KindPackage || x.search.Scope[i] == index.ScopeStd {
				continue
			}
			if t, ok := tier[e.Pkg]; !ok || x.search.Tier[i] < t {
				tier[e.Pkg] = x.search.Tier[i]
			}
		}
		l.mu.Lock()
		var pending []string
		for p := range tier {
			if _, ok := l.built[p]; !ok {
				pending = append(pending, p)
			}
		}
		l.mu.Unlock()
		slices.SortFunc(pending, func(a, b string) int {
			return cmp.Or(cmp.Compare(tier[a], tier[b]), cmp.Compare(a, b))
		})
		if len(pending) == 0 {
			close(l.done)
			return
		}
		go func() {
			defer close(l.done)
			for _, p := range pending {
				l.build(p)
			}
			rebuild()
		}()
	})
}

// wordsDone waits until the words of an older snapshot are all built and
// indexed, or ctx ends.
func (c *Catalog) wordsDone(ctx context.Context, x *catalogIndex) error {
	if l := x.base.lazy; l != nil {
		return l.wait(ctx)
	}
	return nil
}

// wait waits until every package is built and indexed, or ctx ends.
func (l *lazyWords) wait(ctx context.Context) error {
	select {
	case <-l.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
